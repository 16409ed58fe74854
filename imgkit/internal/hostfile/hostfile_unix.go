//go:build unix

package hostfile

import (
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// A File is the descriptor of a host file that Open opened.
type File int

// Open opens the host file path for reading, without blocking (see the
// package documentation).
func Open(path string) (File, error) {
	const flags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK
	for {
		fd, err := unix.Open(path, flags, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return File(fd), nil
	}
}

// OpenOS opens the host file path as Open does and returns it as an
// *os.File in blocking mode: a descriptor os.NewFile finds in
// non-blocking mode would be offered to the runtime's poller, one more
// failing system call for a regular file.
func OpenOS(path string) (*os.File, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	for {
		_, err = unix.FcntlInt(uintptr(f), unix.F_SETFL, unix.O_RDONLY)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return os.NewFile(uintptr(f), path), nil
}

// Fd returns the descriptor.
func (f File) Fd() int { return int(f) }

// Read reads up to len(p) bytes with read(2); io.EOF at the end.
func (f File) Read(p []byte) (int, error) {
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

// ReadAt reads len(p) bytes at byte off with pread(2), as os.File's
// ReadAt does: fewer only with an error (io.EOF at the end).
func (f File) ReadAt(p []byte, off int64) (int, error) {
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

// Seek is lseek(2); whence may be SEEK_DATA (3) or SEEK_HOLE (4) too.
func (f File) Seek(off int64, whence int) (int64, error) {
	return unix.Seek(int(f), off, whence)
}

// Close closes the descriptor.
func (f File) Close() error { return unix.Close(int(f)) }

// Regular returns nil when the file opened is a regular file, else an
// error wrapping ErrNotRegular that names path. It costs an fstat(2):
// callers ask it only when what they read looks odd.
func (f File) Regular(path string) error {
	var st unix.Stat_t
	if err := unix.Fstat(int(f), &st); err != nil {
		return &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return notRegular(path)
	}
	return nil
}
