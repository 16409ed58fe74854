package imgfmt

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is the error OpenFile returns, inside an *fs.PathError, for
// a name that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// OpenFile opens the image file name for reading and returns it with its
// size. It refuses anything but a regular file with an *fs.PathError whose
// Err wraps ErrNotRegular, and it never blocks doing so: on Unix the file
// is opened with O_NONBLOCK, so that a named pipe without a writer is
// refused at once instead of hanging the open (a regular file reads the
// same with or without the flag).
func OpenFile(name string) (*os.File, int64, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, 0, err
	}
	return checkRegular(f, name)
}

// OpenFileIn opens the file name inside the folder root for reading, as
// OpenFile does (a regular file only, without blocking), and never
// outside the folder: an absolute name, a name with "..", or a symbolic
// link that leads out of root is an error, as os.Root's OpenFile gives
// it. A container reader opens the files its descriptor names with it.
func OpenFileIn(root *os.Root, name string) (*os.File, int64, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, 0, err
	}
	return checkRegular(f, name)
}

// checkRegular returns f, opened as name, with its size when it is a
// regular file, and closes it and refuses it otherwise.
func checkRegular(f *os.File, name string) (*os.File, int64, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
	}
	return f, fi.Size(), nil
}

// kind names the type of a file that is not regular.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file"
}

// An ImageFile is the open image file behind a format's ReadCloser, which
// embeds it for its Close beside the FS it read:
//
//	type ReadCloser struct {
//		FS
//		imgfmt.ImageFile
//	}
//
//	func OpenReader(name string) (*ReadCloser, error) {
//		rc := new(ReadCloser)
//		var err error
//		if rc.ImageFile, err = imgfmt.OpenImage(name, rc.FS.init); err != nil {
//			return nil, err
//		}
//		return rc, nil
//	}
type ImageFile struct{ f *os.File }

// OpenImage opens the image file name with OpenFile and calls init with
// the file and its size, for init to read the format's structures. It
// returns the ImageFile, whose Close closes the file; when init fails it
// closes the file itself and returns init's error after the file's name,
// "name: err". An error of OpenFile is returned as it is, an
// *fs.PathError that names the file.
func OpenImage(name string, init func(r io.ReaderAt, size int64) error) (ImageFile, error) {
	f, size, err := OpenFile(name)
	if err != nil {
		return ImageFile{}, err
	}
	if err := init(f, size); err != nil {
		f.Close()
		return ImageFile{}, fmt.Errorf("%s: %w", name, err)
	}
	return ImageFile{f: f}, nil
}

// Close closes the image file. What was read from it is not to be used
// after that.
func (i ImageFile) Close() error { return i.f.Close() }
