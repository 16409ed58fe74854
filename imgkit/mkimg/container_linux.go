package mkimg

import (
	"errors"

	"golang.org/x/sys/unix"
)

// nextData returns where the raw disk's file has data at or after off
// (lseek(2) SEEK_DATA), or its size when only a hole follows, so that
// hasData skips the holes of a sparse disk without reading them. A disk
// in memory, or a file system without SEEK_DATA, gives off.
func (d *rawDisk) nextData(off int64) int64 {
	if d.file == nil {
		return off
	}
	at, err := unix.Seek(int(d.file.Fd()), off, unix.SEEK_DATA)
	switch {
	case errors.Is(err, unix.ENXIO):
		return d.size
	case err != nil || at < off:
		return off
	}
	return at
}
