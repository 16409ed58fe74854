//go:build !linux

package bcache

import (
	"errors"
	"os"
)

// copyFileRangeSupported reports whether copyFileRange can work here.
const copyFileRangeSupported = false

// defaultBulk is the CopyFrom path BulkAuto stands for.
const defaultBulk = BulkRead

func copyFileRange(*os.File, int64, *os.File, int64) (int64, error) {
	return 0, errors.New("copy_file_range not supported on this system")
}
