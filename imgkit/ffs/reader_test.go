package ffs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt/imgfmttest"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// build writes the image of the directory src with o, through the block
// cache in the given mode, and returns its bytes.
func build(t *testing.T, src string, o *Options, mode bcache.Mode) []byte {
	t.Helper()
	x := *o
	x.Cache = &bcache.Options{Mode: mode}
	out := filepath.Join(t.TempDir(), "out.img")
	if err := WriteFile(out, fstree.Dir(src), &x); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkAgainstTree compares every path of the image with the source tree.
func checkAgainstTree(t *testing.T, img []byte, src string) *FS {
	t.Helper()
	f, err := NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := fstree.WalkDir(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	tree.Walk(func(p string, n *fstree.Node) error {
		in, err := f.Inode(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		if int64(in.Mode&0o7777) != int64(n.Mode) || uint32(in.Nlink) != n.Nlink || in.UID != n.UID || in.GID != n.GID {
			t.Errorf("%s: mode %o nlink %d uid %d gid %d; want %o %d %d %d", p, in.Mode, in.Nlink, in.UID, in.GID, n.Mode, n.Nlink, n.UID, n.GID)
		}
		switch n.Type {
		case fstree.TypeFile:
			got, err := f.ReadFile(p)
			want, _ := os.ReadFile(filepath.Join(src, p))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: contents differ (%v)", p, err)
			}
		case fstree.TypeSymlink:
			if l, err := f.ReadLink(p); err != nil || l != n.Link {
				t.Errorf("%s: link %q, %v; want %q", p, l, err, n.Link)
			}
		}
		return nil
	})
	return f
}

// fstestTree is a source tree whose symbolic links all resolve, as
// fstest.TestFS needs.
func fstestTree(t *testing.T) string {
	src := t.TempDir()
	writeTree(t, src, true)
	os.Remove(filepath.Join(src, "a/long"))
	os.Symlink(filepath.Join("..", "many", "file-with-a-long-name-007")+string(bytes.Repeat([]byte("/."), 30)), filepath.Join(src, "a/long"))
	return src
}

func TestReaderOwnImages(t *testing.T) {
	t.Parallel()
	src := fstestTree(t)
	ts := time.Unix(1600000000, 0).UTC()
	for i, v := range []int{1, 2} {
		for j, bo := range []string{"le", "be"} {
			if !tooltest.ShortSample(i*2+j, 3) {
				continue // with -short, v1-le and v2-be
			}
			t.Run(fmt.Sprintf("v%d-%s", v, bo), func(t *testing.T) {
				t.Parallel()
				o := &Options{Version: v, Timestamp: ts}
				if bo == "be" {
					o.ByteOrder = binary.BigEndian
				}
				img := build(t, src, o, bcache.ModeAuto)
				f := checkAgainstTree(t, img, src)
				if err := fstest.TestFS(f, "a/small", "b/double", "c/d/e/deep", "many/file-with-a-long-name-059"); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestReaderDebianImages(t *testing.T) {
	t.Parallel()
	src := fstestTree(t)
	for _, v := range []int{1, 2} {
		t.Run(fmt.Sprint("v", v), func(t *testing.T) {
			t.Parallel()
			img := debianMakefs(t, filepath.Join(t.TempDir(), "d.img"), src, "-o", fmt.Sprintf("version=%d", v), "-s", "8m")
			f := checkAgainstTree(t, img, src)
			if err := fstest.TestFS(f, "a/small", "b/double", "c/d/e/deep"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestReaderCorrupt(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writeTree(t, src, false)
	ts := time.Unix(1600000000, 0).UTC()
	img := build(t, src, &Options{Version: 2, BSize: 8192, FSize: 1024, Timestamp: ts}, bcache.ModeAuto)
	if _, err := NewReader(bytes.NewReader(img[:4096]), 4096); !errors.Is(err, ErrFormat) {
		t.Errorf("truncated image: %v, want ErrFormat", err)
	}
	// Flip bytes all over the metadata: errors, never panics.
	// One byte at a time, put back after each try: a copy of the whole
	// image per try costs more than the walk. With FIXTUREGEN_LONG=1
	// every try; by default every 5th (an odd step, so that the tries
	// still reach offsets and flips of every residue); with -short (which
	// the race detector's run uses), every 47th.
	step := 5
	switch {
	case testing.Short():
		step = 47
	case tooltest.Long():
		step = 1
	}
	b := bytes.Clone(img)
	for i := 0; i < 2000; i += step {
		off := (i * 7919) % (256 << 10)
		b[off] ^= byte(i) | 1
		if f, err := NewReader(bytes.NewReader(b), int64(len(b))); err == nil {
			walkAll(f, nil)
		}
		b[off] ^= byte(i) | 1
	}
}

// walkAll reads everything reachable, handing each error to check (when
// not nil) and going on. Each directory
// inode is listed once and at most 10000 names are visited, so that a
// corrupt image whose directories contain themselves (which the reader
// allows, as a kernel would) does not make the walk exponential.
func walkAll(f *FS, check func(error)) {
	if check == nil {
		check = func(error) {}
	}
	seen := map[uint32]bool{}
	budget := 10000
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth > 20 {
			return
		}
		ents, err := f.ReadDir(dir)
		if err != nil {
			check(err)
			return
		}
		for _, e := range ents {
			if budget--; budget < 0 {
				return
			}
			p := e.Name()
			if dir != "." {
				p = dir + "/" + p
			}
			in, err := f.Inode(p)
			check(err)
			if err == nil {
				_, _, err := f.BlockList(in)
				check(err)
			}
			switch {
			case e.IsDir():
				if err == nil && !seen[in.Ino] {
					seen[in.Ino] = true
					walk(p, depth+1)
				}
			case e.Type().IsRegular():
				_, err := f.ReadFile(p)
				check(err)
			default:
				_, err := f.ReadLink(p)
				check(err)
			}
		}
	}
	walk(".", 0)
}

// FuzzReader opens an image and reads everything reachable in it. The
// image is b cut or zero-extended to size bytes (at most 16 MiB), so that
// the committed corpus (testdata/fuzz/FuzzReader, see its README) can hold
// the start of an image, up to its superblock, without the zeros behind
// it; the seeds added here are whole images from the writer. Every error
// that wraps ErrFormat must be an *imgfmt.FormatError with a byte of the
// image or -1 as its Off.
func FuzzReader(f *testing.F) {
	imgfmttest.NoMinimize(f) // the seeds are images
	for _, v := range []int{1, 2} {
		seed := fuzzSeed(f, v)
		f.Add(seed, uint32(len(seed)))
	}
	f.Fuzz(func(t *testing.T, b []byte, size uint32) {
		size = min(size, 16<<20)
		check := func(err error) { imgfmttest.CheckFormatError(t, err, int64(size), "ffs", ErrFormat) }
		fs, err := NewReader(zeroExtended(b), int64(size))
		if err != nil {
			check(err)
			return
		}
		walkAll(fs, check)
	})
}

// zeroExtended reads as b followed by zeros.
type zeroExtended []byte

func (z zeroExtended) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	clear(p)
	if off < int64(len(z)) {
		copy(p, z[off:])
	}
	return len(p), nil
}

var updateCorpus = flag.Bool("update-corpus", false, "rewrite testdata/fuzz/FuzzReader from the writer")

// TestFuzzCorpus checks that the committed corpus of FuzzReader opens as
// the images it was cut from, and with -update-corpus writes it: for each
// seed image, the bytes up to the end of its superblock and its size.
func TestFuzzCorpus(t *testing.T) {
	t.Parallel()
	ts := time.Unix(1600000000, 0).UTC()
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "f"), []byte("hello"), 0o644)
	os.Symlink("f", filepath.Join(src, "l"))
	os.Mkdir(filepath.Join(src, "d"), 0o755)
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"ufs1-le", Options{Version: 1, BSize: 4096, FSize: 512}},
		{"ufs1-be", Options{Version: 1, BSize: 4096, FSize: 512, ByteOrder: binary.BigEndian}},
		{"ufs2-sb8192", Options{Version: 2, BSize: 4096, FSize: 512, Compat: CompatDebian, Size: 40 << 10}},
		{"ufs1-32k", Options{Version: 1}},
	} {
		c.o.Timestamp = ts
		img := build(t, src, &c.o, bcache.ModeAuto)
		f, err := NewReader(bytes.NewReader(img), int64(len(img)))
		if err != nil {
			t.Fatal(err)
		}
		cut := img[:f.g.sblockloc+sbStructSz]
		path := filepath.Join("testdata", "fuzz", "FuzzReader", c.name)
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nuint32(%d)\n", cut, len(img))
		if *updateCorpus {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s: stale; run go test ./imgkit/ffs -run TestFuzzCorpus -update-corpus", path)
		}
		// The cut image, zero-extended, has the same superblock.
		g, err := NewReader(zeroExtended(cut), int64(len(img)))
		if err != nil || g.g != f.g {
			t.Errorf("%s: opens as %+v, %v; want %+v", c.name, g, err, f.g)
		}
	}
}

// fuzzSeed is a small image: superblock, group and inodes, nothing else.
func fuzzSeed(f testing.TB, v int) []byte {
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("hello"), 0o644)
	os.Symlink("f", filepath.Join(dir, "l"))
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	b, err := Build(fstree.Dir(dir), &Options{Version: v, BSize: 4096, FSize: 512, Density: 8192, Size: 160 << 10, Timestamp: time.Unix(1, 0), MinFree: new(0)})
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// eofAtEnd is an io.ReaderAt that, as the interface allows, returns io.EOF
// with a full read that ends at the end of its bytes.
type eofAtEnd []byte

func (b eofAtEnd) ReadAt(p []byte, off int64) (int, error) {
	n, err := bytes.NewReader(b).ReadAt(p, off)
	if err == nil && off+int64(n) == int64(len(b)) {
		err = io.EOF
	}
	return n, err
}

// TestReaderEOFAtEnd checks that a full read that ends the image is not
// taken for a short one when the io.ReaderAt says io.EOF with it: the
// image is cut right after its superblock, which NewReader reads last.
func TestReaderEOFAtEnd(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writeTree(t, src, false)
	ts := time.Unix(1600000000, 0).UTC()
	for _, v := range []int{1, 2} {
		img := build(t, src, &Options{Version: v, Timestamp: ts}, bcache.ModeAuto)
		end := int64(sblockUFS1 + sblockSize)
		if v == 2 {
			end = sblockUFS2 + sblockSize
		}
		cut := eofAtEnd(img[:end])
		f, err := NewReader(cut, end)
		if err != nil {
			t.Fatalf("UFS%d: %v", v, err)
		}
		if f.Version() != v {
			t.Errorf("UFS%d: version %d", v, f.Version())
		}
		if err := f.readAt(make([]byte, 1), end); !errors.Is(err, imgfmt.ErrTruncated) {
			t.Errorf("UFS%d: read past the end of the cut image: %v, want imgfmt.ErrTruncated", v, err)
		}
	}
}
