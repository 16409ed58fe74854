package vdisk

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// NextData returns the first run [lo, hi) of the disk at or after off
// that may hold data: the next data extent (SEEK_DATA, SEEK_HOLE) of the
// file holding each part of the disk (its temporary file, or a linked
// partition's file), or everything from off for a disk in memory or a
// file system that cannot tell. lo is the disk's size when only holes
// follow off.
func (d *Disk) NextData(off int64) (lo, hi int64) {
	if d.file == nil {
		return off, d.size
	}
	for off < d.size {
		f, fileOff, end := d.segmentAt(off)
		if lo, hi, ok := fileData(f, fileOff, end-off); ok {
			return off + lo, off + hi
		}
		off = end
	}
	return d.size, d.size
}

// fileData returns the first data extent of f within the n bytes from
// start, relative to start, or false when they are all holes. A file
// system that cannot tell has data everywhere.
func fileData(f *os.File, start, n int64) (lo, hi int64, ok bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, n, true
	}
	lo, hi, ok = 0, n, true
	rc.Control(func(fd uintptr) {
		d, err := unix.Seek(int(fd), start, unix.SEEK_DATA)
		switch {
		case errors.Is(err, unix.ENXIO) || err == nil && d >= start+n:
			ok = false
			return
		case err != nil:
			return
		}
		h, err := unix.Seek(int(fd), d, unix.SEEK_HOLE)
		if err != nil {
			h = start + n
		}
		lo, hi = d-start, min(h, start+n)-start
	})
	return lo, hi, ok
}
