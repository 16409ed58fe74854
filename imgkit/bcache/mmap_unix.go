//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package bcache

import (
	"os"

	"golang.org/x/sys/unix"
)

// mmapSupported reports whether this system has the mmap mode.
const mmapSupported = true

// mmapFile maps the first size bytes of f read-write and MAP_SHARED: with
// MAP_PRIVATE the writes would be copy-on-write and lost when the process
// ends.
func mmapFile(f *os.File, size int64) ([]byte, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var data []byte
	var merr error
	err = rc.Control(func(fd uintptr) {
		data, merr = unix.Mmap(int(fd), 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	})
	if err != nil {
		return nil, err
	}
	return data, merr
}

// munmap removes a mapping made by mmapFile.
func munmap(data []byte) error { return unix.Munmap(data) }

// msync schedules (or, with wait, completes) the write-back of the mapping.
func msync(data []byte, wait bool) error {
	flags := unix.MS_ASYNC
	if wait {
		flags = unix.MS_SYNC
	}
	return unix.Msync(data, flags)
}
