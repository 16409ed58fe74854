//go:build unix

package bcache

import (
	"io"
	"io/fs"

	"golang.org/x/sys/unix"
)

// openSource opens a source file for reading with open(2) alone.
func openSource(path string) (io.ReadCloser, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return rawFile(fd), nil
	}
}

// A rawFile is a file descriptor read with read(2).
type rawFile int

func (f rawFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := unix.Read(int(f), p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f rawFile) Seek(off int64, whence int) (int64, error) {
	return unix.Seek(int(f), off, whence)
}

func (f rawFile) Close() error { return unix.Close(int(f)) }

// ReadAt reads len(p) bytes at byte off of the file with pread(2), as
// os.File's ReadAt does: fewer only with an error (io.EOF at the end).
func (f rawFile) ReadAt(p []byte, off int64) (int, error) {
	done := 0
	for done < len(p) {
		n, err := unix.Pread(int(f), p[done:], off+int64(done))
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return done, err
		case n == 0:
			return done, io.EOF
		}
		done += n
	}
	return done, nil
}
