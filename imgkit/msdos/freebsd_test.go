package msdos_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// These tests compare the writer with FreeBSD's own makefs -t msdos
// (freebsd-makefs, a Linux port of FreeBSD's code) byte for byte, on trees
// whose readdir order tooltest.RunSorted makes bytewise. No byte is
// masked: every case is made with -T, which FreeBSD uses for every time
// and for the volume id, and -T comes before the first -o, since FreeBSD's
// msdos type notes the -T time only while it parses -o options.

func TestMain(m *testing.M) { tooltest.Main(m) }

// fbsdStamp is the -T time of every comparison: 2023-11-14 22:13:20 UTC.
const fbsdStamp = "1700000000"

// fbsdFile is one entry of a comparison tree: a directory when the name
// ends in "/", a symbolic link when link is set, else a file of size
// bytes.
type fbsdFile struct {
	name string
	size int
	mode os.FileMode
	link string // symbolic link target
	hard string // hard link: the earlier file of the tree it names
}

// fbsdTrees are the source trees of the comparison, built once.
var fbsdTrees = map[string][]fbsdFile{
	"empty": nil,
	"small": {
		{name: "README.TXT", size: 100},
		{name: "A Long File Name.text", size: 9000},
		{name: "empty"},
		{name: "ro.bin", size: 700, mode: 0o444},
		{name: "dir1/Sub Directory/deep/file.c", size: 1234},
		{name: "dir1/x.y.z", size: 1},
		{name: "emptydir/"},
		{name: "mixedCase.Txt", size: 3},
		{name: "link", link: "README.TXT"},
	},
	"deep": {
		{name: "a/b/c/d/e/f/g/h/leaf.txt", size: 10},
		{name: "a/b/c/d/e/f/g/h/LeafTwo long.txt", size: 4096},
		{name: "a/one.cls", size: 512},
		{name: "a/one-1.cls", size: 513},
		{name: "a/b/hard.txt", size: 2000},
		{name: "a/hard-again.txt", hard: "a/b/hard.txt"},
		{name: "z.txt", hard: "a/b/hard.txt"},
		{name: "a/b/c/empty/"},
	},
	"many": func() []fbsdFile {
		f := []fbsdFile{{name: "big.bin", size: 300 << 10}, {name: "tail.dat", size: 513}}
		for i := range 40 {
			f = append(f, fbsdFile{name: fmt.Sprintf("sub/a rather long file name %02d.data", i), size: i * 97})
		}
		return f
	}(),
}

// makeFbsdTree makes the named comparison tree under root and returns its
// directory.
func makeFbsdTree(t *testing.T, root, name string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, f := range fbsdTrees[name] {
		p := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(f.name, "/")))
		if strings.HasSuffix(f.name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if f.link != "" {
			if err := os.Symlink(f.link, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if f.hard != "" {
			if err := os.Link(filepath.Join(dir, filepath.FromSlash(f.hard)), p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b := make([]byte, f.size)
		for j := range b {
			b[j] = byte(i*31 + j*7 + j>>9)
		}
		mode := f.mode
		if mode == 0 {
			mode = 0o644
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// makeBootstraps writes the bootstrap files the cases name: boot1.bin of
// one sector and boot3.bin of three, each sector ending in the boot
// signature.
func makeBootstraps(t *testing.T, root string) {
	t.Helper()
	for name, n := range map[string]int{"boot1.bin": 1, "boot3.bin": 3} {
		b := make([]byte, n*512)
		for i := range b {
			b[i] = byte(i*13 + n)
		}
		for s := 0; s < n; s++ {
			b[s*512+510], b[s*512+511] = 0x55, 0xaa
		}
		if err := os.WriteFile(filepath.Join(root, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fbsdCase is one comparison: a tree and a makefs command line (the
// options before image-file; -T is added in front).
type fbsdCase struct {
	tree string
	args []string
	lib  []string // fixturegen's command line when it differs from args
}

func (c fbsdCase) name() string {
	return c.tree + " " + strings.Join(c.args, " ")
}

// fbsdMatrix lists the comparison cases: FAT12, FAT16 and FAT32, cluster
// sizes, reserved sectors given or not, root directory sizes, labels, OEM
// strings, hidden sectors, FAT counts, the standard floppies, offsets, and
// the size given as -s, -m or -o size.
func fbsdMatrix() []fbsdCase {
	var cs []fbsdCase
	add := func(tree string, args ...string) { cs = append(cs, fbsdCase{tree: tree, args: args}) }
	// FreeBSD's makefs makes no image without a size, floppies included.
	for _, f := range []string{"160", "180", "320", "360", "640", "720", "1200", "1440", "2880"} {
		add("small", "-s", f+"k", "-o", "floppy="+f)
	}
	add("small", "-s", "1440k", "-o", "floppy=1440,volume_label=Floppy,volume_id=1234")
	add("empty", "-s", "720k", "-o", "floppy=720,OEM_string=MSWIN4.1")
	add("small", "-s", "2m", "-o", "floppy=1440")
	add("small", "-S", "1024", "-s", "1232k", "-o", "floppy=1232")
	// FAT12 from the size.
	for _, s := range []string{"200k", "1m", "2m", "3m", "4m"} {
		add("small", "-s", s, "-o", "num_FAT=2")
	}
	for _, spc := range []string{"1", "2", "4", "8", "16"} {
		add("small", "-s", "2m", "-o", "sectors_per_cluster="+spc)
	}
	add("small", "-s", "2m", "-o", "block_size=4096")
	add("small", "-s", "2m", "-o", "reserved_sectors=1,sectors_per_cluster=4")
	add("small", "-s", "2m", "-o", "reserved_sectors=7,sectors_per_cluster=4")
	add("small", "-s", "4m", "-o", "reserved_sectors=3")
	add("small", "-s", "2m", "-o", "directory_entries=100")
	add("small", "-s", "2m", "-o", "e=16,c=2")
	add("small", "-s", "2m", "-o", "volume_label=My Label,OEM_string=FIXTURE")
	add("small", "-s", "2m", "-o", "L=lower,O=x")
	add("small", "-s", "2m", "-o", "hidden_sectors=63")
	add("small", "-s", "2m", "-o", "hidden_sectors=63,media_descriptor=240")
	add("small", "-s", "2m", "-o", "num_FAT=1")
	add("small", "-s", "2m", "-o", "num_FAT=3,c=2")
	add("small", "-s", "2m", "-o", "fat_type=12,c=1")
	add("small", "-s", "8m", "-o", "F=12,c=4")  // capped to 4084 clusters
	add("small", "-s", "40m", "-o", "F=16,c=1") // capped to 65524 clusters
	add("small", "-s", "2m", "-O", "64k", "-o", "num_FAT=2")
	// FreeBSD's makefs writes -o offset's volume but mounts the image at
	// -O's offset (0), and fails; -o offset is -O here.
	cs = append(cs, fbsdCase{tree: "small", args: []string{"-s", "2m", "-O", "4096", "-o", "num_FAT=2"}, lib: []string{"-s", "2m", "-o", "offset=4096"}})
	add("small", "-s", "2m", "-o", "size=3000")
	add("small", "-m", "3m", "-o", "num_FAT=2")
	add("small", "-s", "2m", "-o", "sectors_per_track=32,drive_heads=16")
	add("small", "-s", "2m", "-o", "align")
	add("many", "-s", "2m", "-o", "c=1")
	add("many", "-s", "2m", "-o", "c=2,L=MANY")
	add("many", "-s", "4m", "-o", "num_FAT=2")
	add("deep", "-s", "2m", "-o", "num_FAT=2")
	// Other -T times: an odd second, the first and the last FAT time.
	add("small", "-s", "2m", "-T", "1700000001", "-o", "num_FAT=2")
	add("small", "-s", "2m", "-T", "315532800", "-o", "num_FAT=2")
	add("small", "-s", "2m", "-T", "4354819199", "-o", "num_FAT=2")
	add("deep", "-s", "1m", "-o", "c=8,L=DEEP")
	add("small", "-S", "512", "-s", "2m", "-o", "num_FAT=2")
	add("small", "-s", "2m", "-o", "sectors_per_fat=20")
	add("small", "-s", "2m", "-o", "create_size=3m")
	add("small", "-o", "create_size=2m,c=2")
	add("small", "-s", "2m", "-o", "bootstrap=@ROOT@/boot1.bin")
	add("small", "-s", "2m", "-o", "B=@ROOT@/boot3.bin,r=4")
	add("empty", "-s", "1m", "-o", "volume_label=EMPTY")
	// FAT16.
	add("small", "-s", "8m", "-o", "fat_type=16,c=1")
	add("small", "-s", "16m", "-o", "fat_type=16,c=2")
	add("small", "-s", "16m", "-o", "fat_type=16,c=1,reserved_sectors=1")
	add("small", "-s", "20m", "-o", "num_FAT=2")
	add("small", "-s", "20m", "-o", "directory_entries=1000")
	add("small", "-s", "32m", "-o", "fat_type=16,c=4,L=SIXTEEN")
	add("small", "-s", "40m", "-o", "num_FAT=1")
	add("many", "-s", "24m", "-o", "c=1,fat_type=16")
	add("deep", "-s", "16m", "-o", "F=16,c=1")
	add("many", "-s", "20m", "-O", "1m", "-o", "hidden_sectors=2048")
	add("empty", "-s", "12m", "-o", "F=16,c=2,e=64")
	// FAT32.
	add("small", "-s", "40m", "-o", "fat_type=32,c=1")
	add("small", "-s", "40m", "-o", "c=1")
	add("small", "-s", "48m", "-o", "F=32,c=1,L=THIRTYTWO,I=3735928559")
	add("small", "-s", "40m", "-o", "F=32,c=1,reserved_sectors=32")
	add("small", "-s", "40m", "-o", "F=32,c=1,reserved_sectors=40")
	add("small", "-s", "40m", "-o", "F=32,c=1,info_sector=2,backup_sector=8")
	add("small", "-s", "40m", "-o", "F=32,c=1,num_FAT=1")
	add("small", "-s", "40m", "-o", "F=32,c=1,hidden_sectors=100")
	add("many", "-s", "40m", "-o", "F=32,c=1")
	add("deep", "-s", "40m", "-o", "F=32,c=1")
	add("small", "-s", "40m", "-o", "F=32,c=1,B=@ROOT@/boot3.bin")
	add("small", "-s", "40m", "-o", "F=32,c=1,B=@ROOT@/boot1.bin,k=6")
	add("many", "-s", "40m", "-O", "512", "-o", "F=32,c=1")
	add("empty", "-s", "72m", "-o", "F=32,c=1")
	add("small", "-s", "300m", "-o", "F=32,c=4")
	return cs
}

// libOptions turns a makefs command line, as the comparison cases write
// it, into Options: -s, -m, -M, -O and -T as makefs reads them, and each
// -o item through ParseOption (a key without a value gets none).
func libOptions(t *testing.T, args []string) *msdos.Options {
	t.Helper()
	o := &msdos.Options{}
	num := func(s string) int64 {
		v, err := fsopt.ParseNumber(s, 0, 1<<62)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i := 0; i < len(args); i += 2 {
		v := args[i+1]
		switch args[i] {
		case "-s":
			o.Size = num(v)
		case "-m":
			o.MaxSize = num(v)
		case "-M":
			o.MinSize = num(v)
		case "-O":
			o.Offset = num(v)
		case "-S":
			o.BytesPerSector = int(num(v))
		case "-T":
			o.Timestamp = time.Unix(num(v), 0).UTC()
		case "-o":
			for _, kv := range strings.Split(v, ",") {
				k, val, _ := strings.Cut(kv, "=")
				if err := msdos.ParseOption(o, k, val); err != nil {
					t.Fatal(err)
				}
			}
		default:
			t.Fatalf("libOptions: unknown flag %s", args[i])
		}
	}
	return o
}

// freebsdImage runs freebsd-makefs -t msdos with args on src and returns
// the image and what it printed, as freebsdImageFile does.
func freebsdImage(t *testing.T, src string, args []string) ([]byte, string) {
	t.Helper()
	img, out := freebsdImageFile(t, src, args)
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	return b, out
}

// freebsdImageFile runs freebsd-makefs -t msdos with args on src and
// returns the path of the image, in a temporary directory, and what it
// printed. FreeBSD's makefs exits 0 even when newfs_msdos refuses the
// parameters (leaving an image of zeros or none): that is a test failure
// here.
func freebsdImageFile(t *testing.T, src string, args []string) (string, string) {
	t.Helper()
	img := filepath.Join(t.TempDir(), "freebsd.img")
	out := tooltest.RunSorted(t, "", "freebsd-makefs", append(append([]string{"-t", "msdos"}, args...), img, src)...)
	f, err := os.Open(img)
	if err != nil {
		t.Fatalf("freebsd-makefs made no image: %v\n%s", err, out)
	}
	defer f.Close()
	b := make([]byte, 512)
	n, _ := io.ReadFull(f, b)
	if n < 512 || b[510] != 0x55 || b[511] != 0xaa {
		if off := strings.Index(strings.Join(args, " "), "offset"); off < 0 && !strings.Contains(strings.Join(args, " "), "-O") {
			t.Fatalf("freebsd-makefs made no volume:\n%s", out)
		}
	}
	return img, out
}

// fileSize returns the size of the file name.
func fileSize(t *testing.T, name string) int64 {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// compareImageFile is compareImages for freebsd-makefs's image in the file
// want, which it reads only where it has data (tooltest.FirstDiffBytes)
// unless the images differ: some are hundreds of MiB.
func compareImageFile(t *testing.T, want string, got []byte) {
	t.Helper()
	d, err := tooltest.FirstDiffBytes(want, got)
	if err != nil {
		t.Fatal(err)
	}
	if d < 0 {
		return
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	compareImages(t, b, got)
}

// compareImages fails the test with inspect.Diff's report unless the two
// images are the same bytes.
func compareImages(t *testing.T, want, got []byte) {
	t.Helper()
	if bytes.Equal(want, got) {
		return
	}
	r, err := inspect.Diff(bytes.NewReader(want), int64(len(want)), bytes.NewReader(got), int64(len(got)))
	if err != nil {
		t.Fatalf("images differ; inspect.Diff: %v", err)
	}
	var b strings.Builder
	r.Write(&b, "freebsd-makefs", "fixturegen")
	first := -1
	for i := 0; i < min(len(want), len(got)); i++ {
		if want[i] != got[i] {
			first = i
			break
		}
	}
	t.Errorf("images differ (first differing byte %#x):\n%s", first, b.String())
}

// TestFreeBSDMakefsBytes compares every case of fbsdMatrix with FreeBSD's
// makefs.
func TestFreeBSDMakefsBytes(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "freebsd-makefs")
	root := t.TempDir()
	trees := map[string]string{}
	for name := range fbsdTrees {
		trees[name] = makeFbsdTree(t, root, name)
	}
	makeBootstraps(t, root)
	for k, c := range fbsdMatrix() {
		if !tooltest.ShortSample(k, 3) {
			continue // -short (CI's race run): every third case; the run without -short, all
		}
		for i, a := range c.args {
			c.args[i] = strings.ReplaceAll(a, "@ROOT@", root)
		}
		src := trees[c.tree]
		t.Run(c.name(), func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-T", fbsdStamp}, c.args...)
			want, _ := freebsdImageFile(t, src, args)
			tooltest.Reserve(t, fileSize(t, want)) // Build's image
			if c.lib != nil {
				args = append([]string{"-T", fbsdStamp}, c.lib...)
			}
			got, err := msdos.Build(fstree.Dir(src), libOptions(t, args))
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			compareImageFile(t, want, got)
		})
	}
}

// TestFreeBSDInvalidLayouts checks the cases where FreeBSD's makefs writes
// a volume that fsck.fat refuses: its FAT cannot hold the clusters the
// sector count gives, its msdosfs fills a FAT12 table with FAT16 entries,
// or it claims more sectors than the file holds. The writer makes a valid
// volume, which fsck.fat and the reader accept, and says so; where only the
// sector count had to be cut (sameFAT), the images differ only in
// BPB_TotSec16 or BPB_TotSec32 of the boot sector and its backup.
func TestFreeBSDInvalidLayouts(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "freebsd-makefs")
	fsck := tooltest.Need(t, "fsck.fat")
	src := makeFbsdTree(t, t.TempDir(), "small")
	for i, c := range []struct {
		args []string
		// sameFAT is set where FreeBSD's msdosfs, which takes the FAT
		// type from the cluster count, fills the FAT as the boot sector
		// says: then only the sector count differs.
		sameFAT bool
		warn    string
	}{
		{[]string{"-s", "64m", "-o", "F=32,c=1"}, true, "the volume is cut to"},  // 2 clusters more than the FAT holds
		{[]string{"-s", "64m", "-o", "F=12,c=2"}, false, "the volume is cut to"}, // capped FAT12 of 4095 clusters, filled as FAT16
		{[]string{"-s", "1232k", "-o", "f=1232"}, true, "the volume is cut to"},
		{[]string{"-s", "64m", "-o", "F=12,c=1"}, false, "with FAT16 entries"},
		{[]string{"-s", "2m", "-o", "sectors_per_fat=4"}, true, "the volume is cut to"},
		{[]string{"-S", "4096", "-s", "4m", "-o", "num_FAT=2"}, false, "counts the image in 512-byte units"}, // 8 times the sectors the file holds // capped FAT12 of 4084 clusters, filled as FAT16  // the 1232 KiB floppy in 512-byte sectors
	} {
		if !tooltest.ShortSample(i, 2) {
			continue // -short (CI's race run): every other layout
		}
		args := c.args
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-T", fbsdStamp}, args...)
			want, _ := freebsdImage(t, src, args)
			tooltest.Reserve(t, 3*int64(len(want))) // it, Build's image and a patched copy
			o := libOptions(t, args)
			var warn strings.Builder
			o.Warn = &warn
			got, err := msdos.Build(fstree.Dir(src), o)
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			bad := filepath.Join(t.TempDir(), "freebsd.img")
			if err := os.WriteFile(bad, want, 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(fsck, "-n", bad).CombinedOutput(); err == nil {
				t.Errorf("fsck.fat accepts FreeBSD's image; move the case to fbsdMatrix:\n%s", out)
			}
			if !strings.Contains(warn.String(), c.warn) {
				t.Errorf("no warning; Warn got %q", warn.String())
			}
			img := filepath.Join(t.TempDir(), "fat.img")
			if err := os.WriteFile(img, got, 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(fsck, "-n", img).CombinedOutput(); err != nil {
				t.Errorf("fsck.fat -n: %v\n%s", err, out)
			}
			if _, err := msdos.NewReader(bytes.NewReader(got), int64(len(got))); err != nil {
				t.Errorf("Open: %v", err)
			}
			if !c.sameFAT {
				return
			}
			// Only the total sector count may differ.
			patched := bytes.Clone(want)
			bk := []int{0}
			if got[0x52] == 'F' && string(got[0x52:0x57]) == "FAT32" {
				bk = append(bk, int(got[0x32])|int(got[0x33])<<8)
			}
			for _, sec := range bk {
				off := sec * 512
				copy(patched[off+19:off+21], got[off+19:off+21])
				copy(patched[off+32:off+36], got[off+32:off+36])
			}
			compareImages(t, patched, got)
		})
	}
}

// TestFreeBSDSmallest checks the images made without a size, which
// FreeBSD's makefs does not make (it needs -s or -m; without them it makes
// no image and exits 0): the smallest image that holds the tree is the
// image FreeBSD's makefs makes at that size. -M, a minimum size to
// FreeBSD's makefs too, gives no size of its own there either.
func TestFreeBSDSmallest(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "freebsd-makefs")
	root := t.TempDir()
	trees := map[string]string{}
	for name := range fbsdTrees {
		trees[name] = makeFbsdTree(t, root, name)
	}
	for _, c := range []fbsdCase{
		{tree: "small", args: []string{"-o", "num_FAT=2"}},
		{tree: "empty", args: []string{"-o", "L=EMPTY"}},
		{tree: "many", args: []string{"-o", "c=4"}},
		{tree: "deep", args: []string{"-o", "F=16"}},
		{tree: "small", args: []string{"-o", "F=32,c=1"}},
		{tree: "small", args: []string{"-O", "4k", "-o", "e=32"}},
		{tree: "small", args: []string{"-M", "3m", "-o", "num_FAT=1"}},
	} {
		t.Run(c.name(), func(t *testing.T) {
			t.Parallel()
			src := trees[c.tree]
			args := append([]string{"-T", fbsdStamp}, c.args...)
			o := libOptions(t, args)
			got, err := msdos.Build(fstree.Dir(src), o)
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			var fargs []string
			for i := 0; i < len(args); i += 2 {
				if args[i] != "-M" {
					fargs = append(fargs, args[i], args[i+1])
				}
			}
			fargs = append(fargs, "-s", fmt.Sprint(int64(len(got))-o.Offset))
			want, _ := freebsdImage(t, src, fargs)
			compareImages(t, want, got)
		})
	}
}

// TestFreeBSDRandomOptions compares the writer with FreeBSD's makefs on
// option sets drawn from a fixed seed: FAT type, cluster size, reserved
// sectors, root entries, FAT count, hidden sectors and label over sizes
// from 300 KiB to 50 MiB, on every comparison tree. Where FreeBSD's image
// fails fsck.fat (the invalid layouts of DETAILS.md) the
// writer's must pass it instead; where both refuse the tree for want of
// space, that is agreement; every other case must give the same bytes.
// FIXTUREGEN_LONG=1 runs all 150 cases; otherwise every third is run
// (every ninth with -short), and each case with a tree, size, FAT type, cluster size, FAT count or
// other option no case run before it has (each drawn as in the whole
// run).
func TestFreeBSDRandomOptions(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "freebsd-makefs")
	fsck := tooltest.Need(t, "fsck.fat")
	root := t.TempDir()
	var names []string
	trees := map[string]string{}
	for name := range fbsdTrees {
		names = append(names, name)
		trees[name] = makeFbsdTree(t, root, name)
	}
	slices.Sort(names)
	r := rand.New(rand.NewPCG(10, 2026))
	sizes := []string{"300k", "700k", "1m", "1500k", "3m", "5m", "6m", "9m", "17m", "33m", "34m", "50m"}
	k := 3
	if testing.Short() {
		k = 9
	}
	sample := tooltest.NewSampler(k)
	defer sample.Log(t)
	for range 150 {
		var o []string
		if r.IntN(2) == 0 {
			o = append(o, fmt.Sprintf("F=%d", []int{12, 16, 32}[r.IntN(3)]))
		}
		if r.IntN(2) == 0 {
			o = append(o, fmt.Sprintf("c=%d", 1<<r.IntN(7)))
		}
		if r.IntN(3) == 0 {
			o = append(o, fmt.Sprintf("r=%d", 1+r.IntN(40)))
		}
		if r.IntN(3) == 0 {
			o = append(o, fmt.Sprintf("e=%d", 1+r.IntN(700)))
		}
		if r.IntN(3) == 0 {
			o = append(o, fmt.Sprintf("n=%d", 1+r.IntN(2))) // fsck.fat checks 1 or 2
		}
		if r.IntN(4) == 0 {
			o = append(o, fmt.Sprintf("o=%d", r.IntN(5000)))
		}
		if r.IntN(4) == 0 {
			o = append(o, "L=RANDOM")
		}
		o = append(o, "u=63") // every case has an -o, so that -T applies
		c := fbsdCase{tree: names[r.IntN(len(names))], args: []string{"-s", sizes[r.IntN(len(sizes))], "-o", strings.Join(o, ",")}}
		values := []string{"tree=" + c.tree, "size=" + c.args[1]}
		for _, kv := range o {
			k, _, _ := strings.Cut(kv, "=")
			if k == "F" || k == "c" || k == "n" {
				k = kv
			}
			values = append(values, k)
		}
		if !sample.Keep(values...) {
			continue
		}
		t.Run(c.name(), func(t *testing.T) {
			t.Parallel()
			src := trees[c.tree]
			args := append([]string{"-T", fbsdStamp}, c.args...)
			img := filepath.Join(t.TempDir(), "freebsd.img")
			cmd := exec.Command(tooltest.Need(t, "freebsd-makefs"), append(append([]string{"-t", "msdos"}, args...), img, src)...)
			cmd.Env = append(os.Environ(), "LD_PRELOAD="+tooltest.SortedReaddir(t), "TZ=UTC")
			out, _ := cmd.CombinedOutput()
			noSpace := bytes.Contains(out, []byte("No space left on device"))
			want, _ := os.ReadFile(img)
			tooltest.Reserve(t, 2*int64(len(want))) // it and Build's image
			made := len(want) > 512 && want[510] == 0x55 && want[511] == 0xaa && !noSpace
			got, err := msdos.Build(fstree.Dir(src), libOptions(t, args))
			switch {
			case !made && err == nil:
				t.Fatalf("freebsd-makefs made no volume, fixturegen did:\n%s", out)
			case !made:
				return // both refuse
			case err != nil:
				t.Fatalf("Build: %v; freebsd-makefs made the volume:\n%s", err, out)
			case bytes.Equal(want, got):
				return
			}
			if exec.Command(fsck, "-n", img).Run() == nil {
				compareImages(t, want, got)
				return
			}
			mine := filepath.Join(t.TempDir(), "fixturegen.img")
			if err := os.WriteFile(mine, got, 0o644); err != nil {
				t.Fatal(err)
			}
			if b, err := exec.Command(fsck, "-n", mine).CombinedOutput(); err != nil {
				t.Errorf("FreeBSD's layout is invalid and so is fixturegen's: fsck.fat: %v\n%s", err, b)
			}
		})
	}
}
