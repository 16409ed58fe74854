package ffs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// specTree builds a tree from an mtree specification alone.
func specTree(t *testing.T, spec string) *fstree.Tree {
	t.Helper()
	s, err := fstree.ReadSpec(strings.NewReader(spec), "test.mtree")
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Unix(1600000000, 0).UTC()
	tree, err := fstree.ApplySpec(nil, s, false, &fstree.Options{Timestamp: ts})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// writeTreeImage writes tree with o to a file and returns its path and
// the image opened with the reader.
func writeTreeImage(t *testing.T, tree *fstree.Tree, o *Options) (string, *FS) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.img")
	if err := WriteFile(path, tree, o); err != nil {
		t.Fatal(err)
	}
	rc, err := OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close() })
	return path, &rc.FS
}

// TestTripleIndirect writes a file one block into its triple indirect
// range (UFS2, bsize 4096: 12 + 512 + 512*512 blocks come first, 1 GiB),
// from a spec-only file that reads as zeros, and reads its last block
// back through the triple indirect chain. (sleuthkit's istat takes
// minutes over such a file, so it is not asked.)
func TestTripleIndirect(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes a 1 GiB image")
	}
	const bsize = 4096
	nindir := int64(bsize / 8)
	blocks := nDAddr + nindir + nindir*nindir + 1
	size := blocks*bsize - 100
	tree := specTree(t, fmt.Sprintf(`/set uid=0 gid=0 mode=0644
. type=dir mode=0755
    big type=file size=%d
    small type=file size=10
`, size))
	ts := time.Unix(1600000000, 0).UTC()
	_, f := writeTreeImage(t, tree, &Options{Version: 2, BSize: bsize, FSize: bsize, Timestamp: ts, MinFree: new(0)})
	in, err := f.Inode("big")
	if err != nil {
		t.Fatal(err)
	}
	if in.Size != size || in.Indirect[2] == 0 {
		t.Fatalf("big: size %d, di_ib %v; want size %d and a triple indirect block", in.Size, in.Indirect, size)
	}
	data, ind, err := f.BlockList(in)
	if err != nil {
		t.Fatal(err)
	}
	// Data blocks, plus 1 single, 1+512 double and 1+1+1 triple indirect.
	if int64(len(data)) != blocks || int64(len(ind)) != 1+1+nindir+3 {
		t.Fatalf("big: %d data and %d indirect blocks; want %d and %d", len(data), len(ind), blocks, 1+1+nindir+3)
	}
	if want := (blocks + int64(len(ind))) * bsize / 512; in.Blocks != want {
		t.Errorf("big: di_blocks %d, want %d", in.Blocks, want)
	}
	fh, err := f.Open("big")
	if err != nil {
		t.Fatal(err)
	}
	tail := make([]byte, 5000)
	n, err := fh.(io.ReaderAt).ReadAt(tail, size-int64(len(tail)))
	if n != len(tail) || (err != nil && err != io.EOF) || !bytes.Equal(tail, make([]byte, len(tail))) {
		t.Fatalf("big: last bytes: %d, %v", n, err)
	}
	if got, err := f.ReadFile("small"); err != nil || len(got) != 10 {
		t.Fatalf("small after big: %q, %v", got, err)
	}
}

// TestFlags checks that file flags from a spec land in di_flags, for
// both versions and byte orders.
func TestFlags(t *testing.T) {
	t.Parallel()
	tree := specTree(t, `/set uid=0 gid=0 mode=0644 type=file
. type=dir mode=0755
    plain
    immutable flags=schg
    several flags=uchg,nodump,uarch,sappnd
    d type=dir mode=0755 flags=opaque
`)
	want := map[string]uint32{
		"plain": 0, "immutable": fstree.FlagSImmut,
		"several": fstree.FlagUImmut | fstree.FlagNodump | fstree.FlagUArchive | fstree.FlagSAppend,
		"d":       fstree.FlagOpaque,
	}
	for _, v := range []int{1, 2} {
		for _, bo := range []string{"le", "be"} {
			o := &Options{Version: v}
			if bo == "be" {
				o.ByteOrder = binary.BigEndian
			}
			_, f := writeTreeImage(t, tree, o)
			for name, flags := range want {
				in, err := f.Inode(name)
				if err != nil {
					t.Fatal(err)
				}
				if in.Flags != flags {
					t.Errorf("v%d %s: %s: di_flags %#x, want %#x", v, bo, name, in.Flags, flags)
				}
			}
		}
	}
}

// TestSuperblockOptions checks -S, label and softupdates in the
// superblock, with the reader and with fsstat.
func TestSuperblockOptions(t *testing.T) {
	t.Parallel()
	tree := specTree(t, `/set uid=0 gid=0 mode=0644 type=file
. type=dir mode=0755
    f size=100000
`)
	for _, c := range []struct {
		o       Options
		fsbtodb int64
		fsstat  []string
	}{
		{Options{Version: 2, Label: "FIXTURE", SoftUpdates: true}, 3, []string{"Volume Name: FIXTURE\n", "Flags:  Soft Dependencies\n"}},
		{Options{Version: 2, SectorSize: 4096}, 0, []string{"File System Type: UFS 2\n"}},
		{Options{Version: 1, SectorSize: 2048, BSize: 16384, FSize: 2048, Label: "a label of 31 bytes, the most.."}, 0, []string{"Block Size: 16384\n", "Fragment Size: 2048\n"}},
		{Options{Version: 1, SectorSize: 1024, BSize: 8192, FSize: 4096}, 2, []string{"Fragment Size: 4096\n"}},
	} {
		t.Run(fmt.Sprintf("v%d-S%d-%q", c.o.Version, c.o.SectorSize, c.o.Label), func(t *testing.T) {
			t.Parallel()
			c.o.Size = 1 << 20 // sleuthkit reads no UFS1 image under 263680 bytes
			path, f := writeTreeImage(t, tree, &c.o)
			if got := int64(f.o.i32(f.sb.fsFsbtodb())); got != c.fsbtodb {
				t.Errorf("fs_fsbtodb %d, want %d", got, c.fsbtodb)
			}
			if got := string(bytes.TrimRight(f.sb.fsVolname(), "\x00")); got != c.o.Label {
				t.Errorf("fs_volname %q, want %q", got, c.o.Label)
			}
			if got, want := int64(f.o.i32(f.sb.fsFlags())), map[bool]int64{true: fsDoSoftDep}[c.o.SoftUpdates]; got != want {
				t.Errorf("fs_flags %#x, want %#x", got, want)
			}
			if got, err := f.ReadFile("f"); err != nil || len(got) != 100000 {
				t.Errorf("f: %d bytes, %v", len(got), err)
			}
			out, err := exec.Command(tooltest.Need(t, "fsstat"), path).Output()
			if err != nil {
				t.Fatalf("fsstat: %v", err)
			}
			for _, s := range c.fsstat {
				if !strings.Contains(string(out), s) {
					t.Errorf("fsstat does not say %q:\n%.600s", s, out)
				}
			}
		})
	}
}

// TestSparseOption checks that -Z changes no byte: images are always
// written sparse.
func TestSparseOption(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writeTree(t, src, false)
	ts := time.Unix(1600000000, 0).UTC()
	a := build(t, src, &Options{Version: 2, Timestamp: ts}, bcache.ModeAuto)
	b := build(t, src, &Options{Version: 2, Timestamp: ts, Sparse: true}, bcache.ModeAuto)
	if !bytes.Equal(a, b) {
		t.Fatal("-Z changed the image")
	}
}

// TestNeededSize checks that a tree that does not fit says the smallest
// -s that holds it, and that it does.
func TestNeededSize(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writeTree(t, src, false)
	tree, err := fstree.WalkDir(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{Version: 1}, {Version: 2, BSize: 4096, FSize: 512}, {Version: 2, Compat: CompatDebian}} {
		o.Size = 1 << 20
		err := WriteFile(filepath.Join(t.TempDir(), "x.img"), tree, &o)
		var need int64
		if err == nil || !(errors.Is(err, ErrNoSpace) || errors.Is(err, ErrTooLarge)) {
			t.Fatalf("%+v: %v, want no space", o, err)
		}
		if !strings.Contains(err.Error(), "at least") {
			t.Fatalf("%+v: %v", o, err)
		}
		if _, err := fmt.Sscanf(err.Error()[strings.Index(err.Error(), "at least"):], "at least %d bytes", &need); err != nil {
			t.Fatalf("%v: no size: %v", o, err)
		}
		o.Size = need
		if err := WriteFile(filepath.Join(t.TempDir(), "x.img"), tree, &o); err != nil {
			t.Errorf("-s %d: %v", need, err)
		}
		o.Size = need - int64(max(o.BSize, 32768))
		if o.Compat == CompatDebian {
			o.Size = need - 8192
		}
		if err := WriteFile(filepath.Join(t.TempDir(), "x.img"), tree, &o); err == nil {
			t.Errorf("-s %d (less than the %d said to be needed) works", o.Size, need)
		}
	}
}

// TestDtype checks that IFTODT of the di_mode type bits gives dir.h's
// DT_ values for every node type.
func TestDtype(t *testing.T) {
	t.Parallel()
	for typ, want := range map[fstree.Type]byte{
		fstree.TypeFile: dtReg, fstree.TypeDir: dtDir, fstree.TypeSymlink: dtLnk, fstree.TypeFIFO: dtFIFO,
		fstree.TypeSocket: dtSock, fstree.TypeChar: dtChr, fstree.TypeBlock: dtBlk, fstree.Type(255): dtUnknown,
	} {
		if got := dtype(typ); got != want {
			t.Errorf("dtype(%v) = %d, want %d", typ, got, want)
		}
	}
}

// TestClusterSumBigEndian checks the one place where the writer departs
// from FreeBSD's makefs because its layout is invalid: in a big-endian
// UFS2 image cg_clustersum is written big-endian, it agrees with the
// cluster map, and the writer says so; little-endian images and UFS1 say
// nothing.
func TestClusterSumBigEndian(t *testing.T) {
	t.Parallel()
	const warning = "cg_clustersum written big-endian"
	for _, c := range []struct {
		version int
		order   binary.ByteOrder
		warn    bool
	}{
		{2, binary.BigEndian, true},
		{2, binary.LittleEndian, false},
		{1, binary.BigEndian, false},
	} {
		var warn strings.Builder
		img, err := Build(fstree.FS(mapTree()), &Options{Version: c.version, ByteOrder: c.order, Warn: &warn})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(warn.String(), warning); got != c.warn {
			t.Errorf("UFS%d %v: warnings %q, want %q: %v", c.version, c.order, warn.String(), warning, c.warn)
		}
		if err := CheckClusterSums(img); err != nil {
			t.Errorf("UFS%d %v: %v", c.version, c.order, err)
		}
	}
}

// TestRefused checks that what a UFS image cannot hold is an error that
// names the path, not an image written wrong: a name over 255 bytes
// (d_namlen would wrap), a NUL in a name, more links than UFS_LINK_MAX,
// UFS1 times outside 32 bits, a device number past UFS1's di_rdev and a
// UFS1 file system past its 32-bit block addresses.
// A name of 255 bytes, and the same times in UFS2, are written and read
// back.
func TestRefused(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 255)
	img, err := Build(fstree.FS(fstest.MapFS{"d/" + long: {Data: []byte("x")}}), nil)
	if err != nil {
		t.Fatalf("a name of 255 bytes: %v", err)
	}
	f, err := NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(f, "d/"+long); err != nil || string(b) != "x" {
		t.Errorf("reading back the name of 255 bytes: %q, %v", b, err)
	}

	// A UFS1 file system past 2^31 fragments, which its 32-bit block
	// addresses cannot reach (the geometry alone is computed).
	if _, err := mkfs(&params{version: 1, sectorSize: 512, size: 1 << 41, bsize: 4096, fsize: 512, density: 1 << 20,
		minfree: 8, maxcontig: 16, maxbpg: 1024, avgfilesize: 16384, avgfpdr: 64, sblockloc: sblockUFS1, freebsd: true}); !errors.Is(err, ErrParams) ||
		!strings.Contains(err.Error(), "UFS1 addresses at most 2147483647") {
		t.Errorf("UFS1 of 2 TiB in 512-byte fragments: %v", err)
	}

	tree := func(n *fstree.Node) *fstree.Tree {
		root := &fstree.Node{Name: ".", Type: fstree.TypeDir, Mode: 0o755, Nlink: 3}
		d := &fstree.Node{Name: "d", Type: fstree.TypeDir, Mode: 0o755, Nlink: 2, Parent: root}
		root.Children = []*fstree.Node{d}
		n.Parent, d.Children = d, []*fstree.Node{n}
		return &fstree.Tree{Root: root}
	}
	y2040 := time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name    string
		n       *fstree.Node
		version int
		err     error
		want    string // in the error; "" when the image is written
	}{
		{"256 bytes", &fstree.Node{Name: long + "x", Type: fstree.TypeFile, Nlink: 1}, 1, ErrName, ": d/" + long + "x: a name of 256 bytes; UFS names are at most 255"},
		{"NUL", &fstree.Node{Name: "a\x00b", Type: fstree.TypeFile, Nlink: 1}, 2, ErrName, `"a\x00b"`},
		{"links", &fstree.Node{Name: "f", Type: fstree.TypeFile, Nlink: 65501}, 2, ErrParams, ": d/f: 65501 links; an inode counts at most 65500"},
		{"UFS1 2040", &fstree.Node{Name: "f", Type: fstree.TypeFile, Nlink: 1, Mtime: y2040}, 1, ErrParams, ": d/f: modification time 2040-01-01T00:00:00Z is outside UFS1's range"},
		{"UFS2 2040", &fstree.Node{Name: "f", Type: fstree.TypeFile, Nlink: 1, Mtime: y2040}, 2, nil, ""},
		{"UFS1 device", &fstree.Node{Name: "c", Type: fstree.TypeChar, Nlink: 1, Rdev: fstree.Mkdev(300, 1)}, 1, ErrParams, ": d/c: device 300,1 does not fit UFS1's 32-bit di_rdev"},
		{"UFS2 device", &fstree.Node{Name: "c", Type: fstree.TypeChar, Nlink: 1, Rdev: fstree.Mkdev(300, 1)}, 2, nil, ""},
	} {
		_, err := Build(tree(c.n), &Options{Version: c.version})
		switch {
		case c.err == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != nil && (!errors.Is(err, c.err) || !strings.Contains(fmt.Sprint(err), c.want)):
			t.Errorf("%s: %v, want %v with %q", c.name, err, c.err, c.want)
		}
	}
}

// TestSoftUpdatesUFS1 checks that with CompatFreeBSD soft updates are
// marked in UFS2 only, as FreeBSD's mkfs marks them, with a warning for
// UFS1, and in both versions with CompatDebian.
func TestSoftUpdatesUFS1(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		version int
		compat  Compat
		flag    bool
	}{{1, CompatFreeBSD, false}, {2, CompatFreeBSD, true}, {1, CompatDebian, true}} {
		var warn strings.Builder
		img, err := Build(fstree.FS(mapTree()), &Options{Version: c.version, Compat: c.compat, SoftUpdates: true, Size: 1 << 20, Warn: &warn})
		if err != nil {
			t.Fatal(err)
		}
		f, err := NewReader(bytes.NewReader(img), int64(len(img)))
		if err != nil {
			t.Fatal(err)
		}
		flags := f.o.u32((*superblock)(img[f.g.sblockloc:][:sblockSize]).fsFlags())
		if got := flags&fsDoSoftDep != 0; got != c.flag {
			t.Errorf("UFS%d compat %d: FS_DOSOFTDEP %v, want %v", c.version, c.compat, got, c.flag)
		}
		if got := strings.Contains(warn.String(), "softupdates ignored"); got != !c.flag {
			t.Errorf("UFS%d compat %d: warnings %q", c.version, c.compat, warn.String())
		}
	}
}

// TestSocketsLeftOut checks that sockets are left out of the image, with
// a warning naming them, as FreeBSD's and Debian's makefs leave them out.
func TestSocketsLeftOut(t *testing.T) {
	t.Parallel()
	src := fstree.FS(fstest.MapFS{"d/sock": {Mode: fs.ModeSocket | 0o666}, "d/f": {Data: []byte("f")}})
	for _, compat := range []Compat{CompatFreeBSD, CompatDebian} {
		var warn strings.Builder
		img, err := Build(src, &Options{Compat: compat, Size: 1 << 20, Warn: &warn})
		if err != nil {
			t.Fatal(err)
		}
		f, err := NewReader(bytes.NewReader(img), int64(len(img)))
		if err != nil {
			t.Fatal(err)
		}
		ents, err := fs.ReadDir(f, "d")
		if err != nil || len(ents) != 1 || ents[0].Name() != "f" {
			t.Errorf("compat %d: d holds %v (%v), want f only", compat, ents, err)
		}
		if want := "d/sock: socket left out"; !strings.Contains(warn.String(), want) {
			t.Errorf("compat %d: warnings %q, want %q", compat, warn.String(), want)
		}
	}
}

// TestExtentReduced checks that an extent above FS_MAXCONTIG blocks is
// written as 16 blocks, with a warning saying FreeBSD's makefs writes it
// whole.
func TestExtentReduced(t *testing.T) {
	t.Parallel()
	var warn strings.Builder
	img, err := Build(fstree.FS(mapTree()), &Options{BSize: 8192, FSize: 1024, Extent: 1 << 20, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.o.u32((*superblock)(img[f.g.sblockloc:][:sblockSize]).fsMaxbsize()); got != 16*8192 {
		t.Errorf("fs_maxbsize %d, want %d", got, 16*8192)
	}
	if want := "extent size reduced from 1048576 to 131072; FreeBSD's makefs writes fs_maxbsize 1048576"; !strings.Contains(warn.String(), want) {
		t.Errorf("warnings %q, want %q", warn.String(), want)
	}
}
