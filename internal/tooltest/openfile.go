package tooltest

import (
	"errors"
	"io"
	"io/fs"
	"testing"
)

// CheckOpenFile checks the shape every format's open file has, as an
// *os.File has it: the regular file name of fsys, of at least one byte,
// seeks with io.SeekStart, io.SeekCurrent and io.SeekEnd and refuses any
// other whence with fs.ErrInvalid; after Close, Read, Seek and a second
// Close fail with fs.ErrClosed.
func CheckOpenFile(t testing.TB, fsys fs.FS, name string) {
	t.Helper()
	f, err := fsys.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := f.(io.Seeker)
	if !ok {
		t.Fatalf("%s: open file %T is not an io.Seeker", name, f)
	}
	if off, err := s.Seek(1, io.SeekStart); off != 1 || err != nil {
		t.Errorf("%s: Seek(1, io.SeekStart) = %d, %v", name, off, err)
	}
	if _, err := s.Seek(0, 7); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("%s: Seek(0, 7) = %v, want fs.ErrInvalid", name, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := f.Read(make([]byte, 1)); n != 0 || !errors.Is(err, fs.ErrClosed) {
		t.Errorf("%s: Read after Close = %d, %v, want fs.ErrClosed", name, n, err)
	}
	if _, err := s.Seek(0, io.SeekStart); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("%s: Seek after Close = %v, want fs.ErrClosed", name, err)
	}
	if err := f.Close(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("%s: second Close = %v, want fs.ErrClosed", name, err)
	}
}
