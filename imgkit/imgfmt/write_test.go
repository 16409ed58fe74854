package imgfmt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// writerAt is an io.WriterAt over a byte slice that grows as needed.
type writerAt struct{ b []byte }

func (w *writerAt) WriteAt(p []byte, off int64) (int, error) {
	if n := off + int64(len(p)); n > int64(len(w.b)) {
		w.b = append(w.b, make([]byte, n-int64(len(w.b)))...)
	}
	return copy(w.b[off:], p), nil
}

// TestWriteImage checks that WriteImage makes the same bytes at every
// Target, that only the memory targets say InMemory, and that a failed
// fill leaves no file and nothing written.
func TestWriteImage(t *testing.T) {
	t.Parallel()
	fill := func(im *bcache.Image) error {
		_, err := im.WriteAt([]byte("image"), 3)
		return err
	}
	path := filepath.Join(t.TempDir(), "img")
	var wa writerAt
	want := []byte("\x00\x00\x00image\x00\x00")
	for _, tg := range []Target{ToFile(path), ToWriterAt(&wa), ToMemory()} {
		im, err := WriteImage(tg, 10, nil, fill)
		if err != nil {
			t.Fatal(err)
		}
		if im.Size() != 10 {
			t.Errorf("%+v: size %d, want 10", tg, im.Size())
		}
		if tg.InMemory() != (tg.path == "") {
			t.Errorf("%+v: InMemory %v", tg, tg.InMemory())
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) || !bytes.Equal(wa.b, want) {
		t.Errorf("file %q (%v), writer %q, want %q", got, err, wa.b, want)
	}
	im, err := WriteImage(ToMemory(), 10, nil, fill)
	if err != nil || !bytes.Equal(im.Bytes(), want) {
		t.Errorf("memory %q, %v", im.Bytes(), err)
	}

	// A section of another image: built in place there, not in memory.
	disk, err := bcache.CreateMemory(30, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := ToWriterAt(disk.Section(7, 12))
	if in.InMemory() {
		t.Error("ToWriterAt of a bcache.Section says InMemory")
	}
	if _, err := WriteImage(in, 10, nil, fill); err != nil {
		t.Fatal(err)
	}
	if err := disk.Commit(); err != nil || !bytes.Equal(disk.Bytes()[7:17], want) {
		t.Errorf("section %q, %v; want %q", disk.Bytes()[7:17], err, want)
	}

	errFill := errors.New("fill failed")
	failed := filepath.Join(t.TempDir(), "failed")
	var none writerAt
	for _, tg := range []Target{ToFile(failed), ToWriterAt(&none), ToMemory()} {
		if _, err := WriteImage(tg, 10, nil, func(*bcache.Image) error { return errFill }); !errors.Is(err, errFill) {
			t.Errorf("%+v: %v, want the fill's error", tg, err)
		}
	}
	if _, err := os.Stat(failed); !errors.Is(err, os.ErrNotExist) || len(none.b) != 0 {
		t.Errorf("failed image left a file (%v) or %d bytes written", err, len(none.b))
	}
}

// TestSourceTree checks that a source without a tree is ErrNoSource and
// that a source's tree comes back with its files.
func TestSourceTree(t *testing.T) {
	t.Parallel()
	for _, src := range []fstree.Source{nil, (*fstree.Tree)(nil), &fstree.Tree{}} {
		if _, err := SourceTree(src, &fstree.Options{}); !errors.Is(err, ErrNoSource) {
			t.Errorf("SourceTree(%#v): %v, want ErrNoSource", src, err)
		}
	}
	tr, err := SourceTree(fstree.FS(fstest.MapFS{"a/b": {Data: []byte("x")}}), &fstree.Options{})
	if err != nil || tr.Root == nil || len(tr.Root.Children) != 1 {
		t.Fatalf("SourceTree: %+v, %v", tr, err)
	}
}
