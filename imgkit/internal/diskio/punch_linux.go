package diskio

import (
	"os"

	"golang.org/x/sys/unix"
)

// PunchHole gives back the space of the n bytes at off of f, one of the
// caller's own temporary files, whose bytes there have been copied where
// they go and are read no more (FALLOC_FL_PUNCH_HOLE: they read as zeros
// after, and the file keeps its size). A file system that cannot punch
// keeps them: the space is then given back when the file is closed.
func PunchHole(f *os.File, off, n int64) {
	if n <= 0 {
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		for unix.Fallocate(int(fd), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n) == unix.EINTR {
		}
	})
}
