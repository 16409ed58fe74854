//go:build unix

package catalog

import (
	"io/fs"
	"syscall"
)

// allocated returns the bytes the file fi describes occupies on disk.
func allocated(fi fs.FileInfo) (int64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int64(st.Blocks) * 512, true
}
