//go:build unix

package nbopen

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Read opens name for reading. A named pipe is opened without waiting and
// refused (ErrNoWriter) when no process opens it for writing within Grace;
// one with a writer is read as a stream, from a reader that blocks as a
// pipe does. Any other file is opened as os.Open opens it.
func Read(name string) (io.ReadCloser, error) {
	fd, err := openFd(name, unix.O_RDONLY)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return blocking(fd, name)
	}
	// A read of an empty pipe says EAGAIN while a writer has it open and
	// end of file when none has; a byte read is the stream's first. A
	// writer that comes within Grace is waited for.
	var b [1]byte
	deadline := time.Now().Add(Grace)
	var n int
	for {
		n, err = readNoIntr(fd, b[:])
		if n != 0 || err != nil || !time.Now().Before(deadline) {
			break
		}
		time.Sleep(pollInterval)
	}
	switch {
	case errors.Is(err, unix.EAGAIN):
		return blocking(fd, name)
	case err != nil:
		unix.Close(fd)
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	case n == 0:
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNoWriter}
	}
	f, err := blocking(fd, name)
	if err != nil {
		return nil, err
	}
	return &prefixed{first: b[:1], f: f.(*os.File)}, nil
}

// Write opens the named pipe name for writing without waiting, and
// refuses it (ErrNoReader) when no process opens it for reading within
// Grace; the file returned blocks as a pipe does.
func Write(name string) (*os.File, error) {
	deadline := time.Now().Add(Grace)
	fd, err := openFd(name, unix.O_WRONLY)
	for errors.Is(err, unix.ENXIO) && time.Now().Before(deadline) {
		time.Sleep(pollInterval)
		fd, err = openFd(name, unix.O_WRONLY)
	}
	if errors.Is(err, unix.ENXIO) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNoReader}
	}
	if err != nil {
		return nil, err
	}
	f, err := blocking(fd, name)
	if err != nil {
		return nil, err
	}
	return f.(*os.File), nil
}

// openFd opens name with mode and O_NONBLOCK.
func openFd(name string, mode int) (int, error) {
	for {
		fd, err := unix.Open(name, mode|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: name, Err: syscall.Errno(err.(unix.Errno))}
		}
		return fd, nil
	}
}

// blocking clears O_NONBLOCK on fd and returns it as an *os.File.
func blocking(fd int, name string) (io.ReadCloser, error) {
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

func readNoIntr(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Read(fd, b)
		if err != unix.EINTR {
			return n, err
		}
	}
}

// prefixed is a pipe whose first bytes were read already.
type prefixed struct {
	first []byte
	f     *os.File
}

func (p *prefixed) Read(b []byte) (int, error) {
	if len(p.first) > 0 {
		n := copy(b, p.first)
		p.first = p.first[n:]
		return n, nil
	}
	return p.f.Read(b)
}

func (p *prefixed) Close() error { return p.f.Close() }
