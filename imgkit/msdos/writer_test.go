package msdos

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

func TestWriteSmallest(t *testing.T) {
	t.Parallel()
	_, tr := buildTree(t, sampleFiles())
	img := writeImage(t, tr, &Options{VolumeLabel: "fixture"})
	fsckClean(t, img)
}

// TestSmallest checks that the image made without a size is the smallest:
// one sector less does not hold the tree, and giving its size with -s
// makes the same bytes.
func TestSmallest(t *testing.T) {
	t.Parallel()
	_, tr := buildTree(t, sampleFiles())
	for _, o := range []Options{{}, {FATType: 16}, {FATType: 32}, {BytesPerSector: 4096}, {SectorsPerCluster: 4}, {VolumeLabel: "X", NumFATs: 1}} {
		l, err := LayoutOf(tr, &o)
		if err != nil {
			t.Fatal(err)
		}
		a := writeImage(t, tr, &o)
		fixed := o
		fixed.Size = l.ImageSize
		b := writeImage(t, tr, &fixed)
		// The FAT32 image is 2 GiB, sparse: compare its data, not a copy.
		if d, err := tooltest.FirstDiff(a, b); d >= 0 || err != nil {
			t.Errorf("%+v: -s %d gives different bytes from the smallest image (at byte %#x, %v)", o, l.ImageSize, d, err)
		}
		less := o
		less.Size = l.ImageSize - int64(l.BytesPerSector)
		if _, err := LayoutOf(tr, &less); err == nil {
			t.Errorf("%+v: %d bytes also hold the tree; the smallest was %d", o, less.Size, l.ImageSize)
		}
	}
}

// failWriterAt fails every write after the first n bytes.
type failWriterAt struct {
	buf []byte
	n   int
}

func (w *failWriterAt) WriteAt(p []byte, off int64) (int, error) {
	if int(off)+len(p) > w.n {
		return 0, errors.New("disk full")
	}
	return copy(w.buf[off:], p), nil
}

// TestOutputs checks that WriteFile, Write and Build make the same bytes,
// of the size LayoutOf tells, from a directory, an fs.FS and a built tree.
func TestOutputs(t *testing.T) {
	t.Parallel()
	dir, _ := buildTree(t, sampleFiles())
	ts := time.Date(2022, 2, 3, 4, 5, 7, 0, time.UTC)
	for _, o := range []Options{{}, {FATType: 32, SectorsPerCluster: 1, VolumeLabel: "OUT"}, {Offset: 4096, Size: 2 << 20, Timestamp: ts}, {Timestamp: ts, ClampTimes: true}} {
		l, err := LayoutOf(fstree.Dir(dir), &o)
		if err != nil {
			t.Fatal(err)
		}
		img := filepath.Join(t.TempDir(), "fat.img")
		if err := WriteFile(img, fstree.Dir(dir), &o); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(img)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(want)) != l.ImageSize {
			t.Errorf("%+v: WriteFile made %d bytes, LayoutOf says %d", o, len(want), l.ImageSize)
		}
		b, err := Build(fstree.FS(os.DirFS(dir)), &o)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, want) {
			t.Errorf("%+v: Build from os.DirFS differs from WriteFile from fstree.Dir", o)
		}
		tr, err := fstree.WalkDir(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		w := &failWriterAt{buf: bytes.Repeat([]byte{0xaa}, len(want)), n: len(want)}
		n, err := Write(w, tr, &o)
		if err != nil || n != int64(len(want)) || !bytes.Equal(w.buf, want) {
			t.Errorf("%+v: Write of a walked tree: %d bytes, %v; equal %v", o, n, err, bytes.Equal(w.buf, want))
		}
		w = &failWriterAt{buf: make([]byte, len(want)), n: len(want) / 2}
		if n, err := Write(w, fstree.Dir(dir), &o); err == nil || n != 0 || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%+v: Write to a failing io.WriterAt: %d, %v", o, n, err)
		}
	}
}

// TestMapFSModes builds from an fstest.MapFS whose entries have no mode
// bits, as most fstest users write them: they are ordinary files, not
// read-only ones.
func TestMapFSModes(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"a.txt":          {Data: []byte("a\n")},
		"dir/b.txt":      {Data: []byte("b\n")},
		"empty":          {},
		"emptydir":       {Mode: fs.ModeDir},
		"dir/sub/c.data": {Data: bytes.Repeat([]byte("c"), 3000)},
		"ro.txt":         {Data: []byte("ro\n"), Mode: 0o444},
	}
	img, err := Build(fstree.FS(fsys), nil)
	if err != nil {
		t.Fatal(err)
	}
	vol, err := NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = fs.WalkDir(vol, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		e, err := vol.Entry(p)
		if err != nil {
			return err
		}
		if ro := e.Attr&AttrReadOnly != 0; ro != (p == "ro.txt") {
			t.Errorf("%s: read-only %v (attributes %#x)", p, ro, e.Attr)
		}
		if !d.IsDir() {
			files++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files != 5 {
		t.Errorf("%d files in the image, want 5", files)
	}
}

// TestTimestamp checks the one time setting: Timestamp replaces every time
// of the tree, and with ClampTimes bounds them, whether the source is a
// directory or a tree walked without it.
func TestTimestamp(t *testing.T) {
	t.Parallel()
	dir, _ := buildTree(t, sampleFiles())
	ts := baseTime.Add(10 * time.Second) // later than some source times, earlier than others
	for _, clamp := range []bool{false, true} {
		o := &Options{VolumeLabel: "T", Timestamp: ts, ClampTimes: clamp}
		img, err := Build(fstree.Dir(dir), o)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := fstree.WalkDir(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Build(tr, o)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(img, again) {
			t.Errorf("clamp %v: a tree walked without the timestamp gives other bytes", clamp)
		}
		vol, err := NewReader(bytes.NewReader(img), int64(len(img)))
		if err != nil {
			t.Fatal(err)
		}
		fs.WalkDir(vol, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == "." {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil {
				return err
			}
			want := ts
			if clamp && st.ModTime().Before(ts) {
				want = st.ModTime()
			}
			if want = want.UTC().Truncate(2 * time.Second); !fi.ModTime().Equal(want) {
				t.Errorf("clamp %v: %s: time %v, want %v", clamp, p, fi.ModTime(), want)
			}
			return nil
		})
	}
}
