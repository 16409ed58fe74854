package bcache

import (
	"os"

	"golang.org/x/sys/unix"
)

// holesSupported says that dataRun can find holes here.
const holesSupported = true

// mayHaveHoles reports whether the host file at path takes fewer bytes on
// disk than its size, as a file with holes does (one stat(2)).
func mayHaveHoles(path string) bool {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return false
	}
	return st.Blocks*512 < st.Size
}

// dataRun returns the first run of data [lo, hi) of f at or after off,
// cut at end, with lseek(2)'s SEEK_DATA and SEEK_HOLE, which move f's
// offset: callers seek before reading. With no data before end it returns (end,
// end); when the system cannot tell, the whole of [off, end) is data.
func dataRun(f *os.File, off, end int64) (lo, hi int64) {
	rc, err := f.SyscallConn()
	if err != nil {
		return off, end
	}
	lo, hi = off, end
	rc.Control(func(fd uintptr) {
		d, err := unix.Seek(int(fd), off, unix.SEEK_DATA)
		switch {
		case err == unix.ENXIO:
			lo = end // no data from off to the end of the file
			return
		case err != nil:
			return
		case d >= end:
			lo = end
			return
		}
		h, err := unix.Seek(int(fd), d, unix.SEEK_HOLE)
		if err != nil {
			return
		}
		lo, hi = d, min(h, end)
	})
	return lo, max(lo, hi)
}
