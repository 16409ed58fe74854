package mkimg

import (
	"errors"
	"io"

	"golang.org/x/sys/unix"
)

// dataRun returns the first run [lo, hi) of the disk at or after off
// that may hold data: the next data extent of its temporary file
// (SEEK_DATA, SEEK_HOLE), or everything from off for a disk in memory or
// a file system that cannot tell. lo is the disk's size when only holes
// follow off.
func (d *rawDisk) dataRun(off int64) (lo, hi int64) {
	if d.file == nil {
		return off, d.size
	}
	lo, err := d.file.Seek(off, unix.SEEK_DATA)
	switch {
	case errors.Is(err, unix.ENXIO) || err == nil && lo >= d.size:
		return d.size, d.size
	case err != nil:
		return off, d.size
	}
	hi, err = d.file.Seek(lo, unix.SEEK_HOLE)
	if err != nil || hi > d.size {
		hi = d.size
	}
	d.file.Seek(0, io.SeekStart)
	return lo, hi
}
