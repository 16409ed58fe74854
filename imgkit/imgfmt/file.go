package imgfmt

import (
	"errors"
	"io"
	"io/fs"
	"slices"
)

// A FileReader is the reading half of an open file of a format's FS: it
// gives the file Read, ReadAt, Seek and Close from a function that reads
// the file's bytes where they lie in the image, so that a format writes
// only that function. A format's file type embeds one and adds Stat:
//
//	type file struct {
//		imgfmt.FileReader
//		fi *fileInfo
//	}
//
//	x := &file{fi: fi}
//	x.FileReader = imgfmt.NewFileReader(name, size, x.readAt)
//
// Errors are *fs.PathError values naming the file as NewFileReader was
// given it. A FileReader is not safe for concurrent use, as an *os.File's
// offset is not; ReadAt does not move the offset.
type FileReader struct {
	name   string
	size   int64
	read   func(p []byte, off int64) (int, error)
	off    int64
	closed bool
}

// NewFileReader returns the FileReader of the file name of size bytes,
// which read reads: read(p, off) is called with 0 <= off and off+len(p) <=
// size, and returns how many bytes of p it filled, with an error, which
// the FileReader wraps, when it filled fewer than len(p) because the image
// could not be read. A read that fills fewer bytes without an error is the
// end of the file.
func NewFileReader(name string, size int64, read func(p []byte, off int64) (int, error)) FileReader {
	return FileReader{name: name, size: size, read: read}
}

// Read reads up to len(p) bytes from the file's offset and moves the
// offset past them. It returns io.EOF at the end of the file, and
// fs.ErrClosed after Close.
func (f *FileReader) Read(p []byte) (int, error) {
	if f.closed {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrClosed}
	}
	n, err := f.ReadAt(p, f.off)
	f.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// ReadAt reads len(p) bytes of the file at off, as io.ReaderAt does: fewer
// only at the end of the file, with io.EOF, or with the image's error. A
// negative off is fs.ErrInvalid, and after Close it fails with
// fs.ErrClosed.
func (f *FileReader) ReadAt(p []byte, off int64) (int, error) {
	if f.closed {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrClosed}
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrInvalid}
	}
	if off >= f.size {
		return 0, io.EOF
	}
	n, err := f.read(p[:min(int64(len(p)), f.size-off)], off)
	if err != nil {
		return n, &fs.PathError{Op: "read", Path: f.name, Err: err}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Seek sets the offset of the next Read, relative to the start of the
// file, the current offset or the end as whence is io.SeekStart,
// io.SeekCurrent or io.SeekEnd, and returns it. An offset before the
// start, or any other whence, is fs.ErrInvalid; one past the end reads
// as the end. After Close it fails with fs.ErrClosed, as an *os.File's
// does.
func (f *FileReader) Seek(offset int64, whence int) (int64, error) {
	if f.closed {
		return 0, &fs.PathError{Op: "seek", Path: f.name, Err: fs.ErrClosed}
	}
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		offset += f.size
	default:
		return 0, &fs.PathError{Op: "seek", Path: f.name, Err: fs.ErrInvalid}
	}
	if offset < 0 {
		return 0, &fs.PathError{Op: "seek", Path: f.name, Err: fs.ErrInvalid}
	}
	f.off = offset
	return offset, nil
}

// Close marks the file closed: Read, ReadAt and Seek fail after it, and
// so does a second Close, with fs.ErrClosed.
func (f *FileReader) Close() error {
	if f.closed {
		return &fs.PathError{Op: "close", Path: f.name, Err: fs.ErrClosed}
	}
	f.closed = true
	return nil
}

// ErrIsDir is the error a DirReader's Read returns, inside an
// *fs.PathError: a directory has no bytes to read.
var ErrIsDir = errors.New("is a directory")

// A DirReader is the reading half of an open directory of a format's FS:
// ReadDir over the directory's entries, as fs.ReadDirFile asks, and the
// Read and Close every fs.File has. A format's directory type embeds one
// and adds Stat:
//
//	type dir struct {
//		imgfmt.DirReader
//		fi *fileInfo
//	}
//
//	return &dir{DirReader: imgfmt.NewDirReader(name, entries), fi: fi}, nil
type DirReader struct {
	name string
	ents []fs.DirEntry
	pos  int
}

// NewDirReader returns the DirReader of the directory name, whose entries
// ReadDir returns in the order of ents.
func NewDirReader(name string, ents []fs.DirEntry) DirReader {
	return DirReader{name: name, ents: ents}
}

// ReadDir returns the next n entries, or with n <= 0 all that are left, as
// fs.ReadDirFile's ReadDir does: with n > 0 and none left, it returns
// io.EOF.
func (d *DirReader) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.ents[d.pos:]
	if n > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if n > 0 {
		rest = rest[:min(n, len(rest))]
	}
	d.pos += len(rest)
	return slices.Clone(rest), nil
}

// Read fails: the file is a directory (ErrIsDir).
func (d *DirReader) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: ErrIsDir}
}

// Close does nothing: a directory holds nothing open.
func (d *DirReader) Close() error { return nil }
