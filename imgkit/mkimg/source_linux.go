package mkimg

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// dataRun returns the first run of data of f at or after off, up to end:
// [lo, hi), with lo == end when only a hole is left (SEEK_DATA and
// SEEK_HOLE). When the system cannot tell, it is all of [off, end).
func dataRun(f *os.File, off, end int64) (lo, hi int64) {
	lo, err := f.Seek(off, unix.SEEK_DATA)
	switch {
	case errors.Is(err, unix.ENXIO) || (err == nil && lo >= end): // os.File.Seek wraps the errno
		return end, end
	case err != nil:
		return off, end
	}
	hi, err = f.Seek(lo, unix.SEEK_HOLE)
	if err != nil || hi > end {
		hi = end
	}
	return lo, hi
}
