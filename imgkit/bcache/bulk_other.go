//go:build !linux

package bcache

import (
	"errors"
	"os"
)

// copyFileRangeSupported reports whether copyFileRange can work here.
const copyFileRangeSupported = false

// defaultBulkMmap and defaultBulkCopy are the CopyFrom paths BulkAuto stands
// for in each mode.
const (
	defaultBulkMmap = BulkMapSource
	defaultBulkCopy = BulkMapSource
)

func copyFileRange(*os.File, int64, *os.File, int64, func(int64)) (int64, error) {
	return 0, errors.New("copy_file_range not supported on this system")
}

// preallocate does nothing here: it has been measured on Linux only.
func preallocate(*os.File, int64, int64) {}

// pwritev writes bufs one after the other at off of f, a write each.
func pwritev(f *os.File, bufs [][]byte, off int64) (int64, error) {
	var done int64
	for _, b := range bufs {
		k, err := f.WriteAt(b, off+done)
		done += int64(k)
		if err != nil {
			return done, err
		}
	}
	return done, nil
}
