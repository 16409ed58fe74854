package imgfmt

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"testing"
	"testing/iotest"
	"time"
)

// TestFileReader checks that a FileReader over a read function behaves as
// io.Reader, io.ReaderAt and io.Seeker must (iotest.TestReader), that read
// sees only offsets inside the file, and that an error of the image, a
// short read, a negative offset, a bad whence and a closed file are said as an
// *fs.PathError naming the file or as io.EOF.
func TestFileReader(t *testing.T) {
	t.Parallel()
	image := []byte("..hello, world\n..")
	read := func(p []byte, off int64) (int, error) {
		if off < 0 || off+int64(len(p)) > 13 {
			t.Errorf("read of %d bytes at %d, outside the file", len(p), off)
		}
		return copy(p, image[2+off:]), nil
	}
	f := NewFileReader("dir/f", 13, read)
	if err := iotest.TestReader(&f, image[2:15]); err != nil {
		t.Error(err)
	}

	short := NewFileReader("f", 13, func(p []byte, off int64) (int, error) { return copy(p, image[2:7]), nil })
	if n, err := short.ReadAt(make([]byte, 13), 0); n != 5 || err != io.EOF {
		t.Errorf("short read: %d, %v, want 5, io.EOF", n, err)
	}
	errImage := errors.New("bad sector")
	bad := NewFileReader("f", 13, func(p []byte, off int64) (int, error) { return 2, errImage })
	var pe *fs.PathError
	if n, err := bad.Read(make([]byte, 4)); n != 2 || !errors.As(err, &pe) || pe.Op != "read" || pe.Path != "f" || !errors.Is(err, errImage) {
		t.Errorf("image error: %d, %v", n, err)
	}
	if _, err := f.ReadAt(make([]byte, 1), -1); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("ReadAt(-1): %v", err)
	}
	if _, err := f.Seek(-1, io.SeekStart); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Seek(-1): %v", err)
	}
	if off, err := f.Seek(-3, io.SeekEnd); off != 10 || err != nil {
		t.Errorf("Seek(-3, end) = %d, %v", off, err)
	}
	if _, err := f.Seek(0, 3); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Seek(0, 3): %v, want fs.ErrInvalid", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Read(make([]byte, 1)); !errors.Is(err, fs.ErrClosed) || !errors.As(err, &pe) || pe.Path != "dir/f" {
		t.Errorf("Read after Close: %v", err)
	}
	if _, err := f.ReadAt(make([]byte, 1), 0); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("ReadAt after Close: %v", err)
	}
	if _, err := f.Seek(0, io.SeekStart); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Seek after Close: %v", err)
	}
	if err := f.Close(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("second Close: %v", err)
	}
}

// TestDirReader checks ReadDir's paging as fs.ReadDirFile asks it (n > 0:
// at most n, io.EOF when none are left; n <= 0: all that are left, nil
// error) and that a directory's Read is ErrIsDir naming it.
func TestDirReader(t *testing.T) {
	t.Parallel()
	var ents []fs.DirEntry
	for _, name := range []string{"a", "b", "c"} {
		ents = append(ents, fs.FileInfoToDirEntry(testInfo(name)))
	}
	d := NewDirReader("dir", ents)
	var got []string
	for {
		page, err := d.ReadDir(2)
		if err == io.EOF {
			break
		}
		if err != nil || len(page) == 0 || len(page) > 2 {
			t.Fatalf("ReadDir(2) = %d entries, %v", len(page), err)
		}
		for _, e := range page {
			got = append(got, e.Name())
		}
	}
	if fmt.Sprint(got) != "[a b c]" {
		t.Errorf("entries %v", got)
	}
	if rest, err := d.ReadDir(-1); len(rest) != 0 || err != nil {
		t.Errorf("ReadDir(-1) at the end = %d entries, %v", len(rest), err)
	}
	d = NewDirReader("dir", ents)
	if first, _ := d.ReadDir(1); len(first) == 1 {
		first[0] = nil // the caller's slice, not the directory's
	}
	if rest, err := d.ReadDir(0); len(rest) != 2 || err != nil || ents[0] == nil {
		t.Errorf("ReadDir(0) after one = %d entries, %v; entries %v", len(rest), err, ents)
	}
	var pe *fs.PathError
	if _, err := d.Read(make([]byte, 1)); !errors.Is(err, ErrIsDir) || !errors.As(err, &pe) || pe.Path != "dir" {
		t.Errorf("Read: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// testInfo is the fs.FileInfo of a regular file name.
type testInfo string

func (i testInfo) Name() string       { return string(i) }
func (i testInfo) Size() int64        { return 0 }
func (i testInfo) Mode() fs.FileMode  { return 0o644 }
func (i testInfo) ModTime() time.Time { return time.Time{} }
func (i testInfo) IsDir() bool        { return false }
func (i testInfo) Sys() any           { return nil }
