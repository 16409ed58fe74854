//go:build unix

package ext

import (
	"io/fs"
	"syscall"
)

// hostNumbers returns the inode and device numbers of a file of the host
// as fi describes it.
func hostNumbers(fi fs.FileInfo) (ino, rdev uint64) {
	st := fi.Sys().(*syscall.Stat_t)
	return uint64(st.Ino), uint64(st.Rdev)
}
