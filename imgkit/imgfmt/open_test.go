package imgfmt

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenImage checks that OpenImage gives init the file and its size,
// that its Close closes the file, and that an init error closes the file
// and names it, while an error of opening is OpenFile's as it is.
func TestOpenImage(t *testing.T) {
	t.Parallel()
	name := filepath.Join(t.TempDir(), "img")
	if err := os.WriteFile(name, []byte("image"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got io.ReaderAt
	img, err := OpenImage(name, func(r io.ReaderAt, size int64) error {
		got = r
		if size != 5 {
			t.Errorf("size %d, want 5", size)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 5)
	if _, err := got.ReadAt(b, 0); err != nil || string(b) != "image" {
		t.Errorf("init's reader: %q, %v", b, err)
	}
	if err := img.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := got.ReadAt(b, 0); !errors.Is(err, os.ErrClosed) {
		t.Errorf("ReadAt after Close: %v, want os.ErrClosed", err)
	}

	errBad := errors.New("bad magic at byte 0x0")
	_, err = OpenImage(name, func(r io.ReaderAt, size int64) error { got = r; return errBad })
	if !errors.Is(err, errBad) || err.Error() != name+": bad magic at byte 0x0" {
		t.Errorf("init error: %v", err)
	}
	if _, err := got.ReadAt(b, 0); !errors.Is(err, os.ErrClosed) {
		t.Errorf("the file after a failed init: %v, want it closed", err)
	}

	missing := filepath.Join(t.TempDir(), "nosuch")
	_, err = OpenImage(missing, func(io.ReaderAt, int64) error { t.Error("init called"); return nil })
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || err.Error() != pe.Error() {
		t.Errorf("missing file: %v", err)
	}
}
