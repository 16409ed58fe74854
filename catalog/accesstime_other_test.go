//go:build !linux

package catalog

import (
	"io/fs"
	"time"
)

// accessTime returns fi's access time, and whether the host gives it: here
// it does not.
func accessTime(fi fs.FileInfo) (time.Time, bool) { return time.Time{}, false }
