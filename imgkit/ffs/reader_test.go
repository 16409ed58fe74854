package ffs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// build writes the tree of src with o and returns the image bytes.
func build(t *testing.T, src string, o *Options, mode bcache.Mode) []byte {
	t.Helper()
	tree, err := fstree.WalkDir(src, &fstree.Options{Timestamp: o.Timestamp})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.img")
	if err := Write(out, tree, o, &bcache.Options{Mode: mode}); err != nil {
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
	f, err := Open(bytes.NewReader(img), int64(len(img)))
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
	src := fstestTree(t)
	ts := time.Unix(1600000000, 0).UTC()
	for _, v := range []int{1, 2} {
		for _, bo := range []string{"le", "be"} {
			t.Run(fmt.Sprintf("v%d-%s", v, bo), func(t *testing.T) {
				o := &Options{Version: v, Timestamp: &ts}
				if bo == "be" {
					o.ByteOrder = bigEndian
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
	src := fstestTree(t)
	for _, v := range []int{1, 2} {
		t.Run(fmt.Sprint("v", v), func(t *testing.T) {
			img := debianMakefs(t, filepath.Join(t.TempDir(), "d.img"), src, "-o", fmt.Sprintf("version=%d", v), "-s", "8m")
			f := checkAgainstTree(t, img, src)
			if err := fstest.TestFS(f, "a/small", "b/double", "c/d/e/deep"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestReaderCorrupt(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, false)
	ts := time.Unix(1600000000, 0).UTC()
	img := build(t, src, &Options{Version: 2, BSize: 8192, FSize: 1024, Timestamp: &ts}, bcache.ModeAuto)
	if _, err := Open(bytes.NewReader(img[:4096]), 4096); !errors.Is(err, ErrFormat) {
		t.Errorf("truncated image: %v, want ErrFormat", err)
	}
	// Flip bytes all over the metadata: errors, never panics.
	for i := 0; i < 2000; i++ {
		b := bytes.Clone(img)
		off := (i * 7919) % (256 << 10)
		b[off] ^= byte(i) | 1
		f, err := Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			continue
		}
		walkAll(f)
	}
}

// walkAll reads everything reachable, ignoring errors.
func walkAll(f *FS) {
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth > 20 {
			return
		}
		ents, err := f.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			p := e.Name()
			if dir != "." {
				p = dir + "/" + p
			}
			f.Inode(p)
			if in, err := f.Inode(p); err == nil {
				f.BlockList(in)
			}
			switch {
			case e.IsDir():
				walk(p, depth+1)
			case e.Type().IsRegular():
				f.ReadFile(p)
			default:
				f.ReadLink(p)
			}
		}
	}
	walk(".", 0)
}

func FuzzReader(f *testing.F) {
	for _, seed := range [][]byte{fuzzSeed(f, 1), fuzzSeed(f, 2)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, err := Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		walkAll(fs)
	})
}

// fuzzSeed is a small image: superblock, group and inodes, nothing else.
func fuzzSeed(f *testing.F, v int) []byte {
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("hello"), 0o644)
	os.Symlink("f", filepath.Join(dir, "l"))
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	tree, err := fstree.WalkDir(dir, nil)
	if err != nil {
		f.Fatal(err)
	}
	ts := time.Unix(1, 0)
	out := filepath.Join(dir, "..", fmt.Sprint("seed", v))
	if err := Write(out, tree, &Options{Version: v, BSize: 4096, FSize: 512, Density: 8192, Size: 160 << 10, Timestamp: &ts, MinFreeSet: true}, nil); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		f.Fatal(err)
	}
	return b
}
