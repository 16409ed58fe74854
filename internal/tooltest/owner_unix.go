//go:build unix

package tooltest

import (
	"io/fs"
	"syscall"
)

// Owner returns the owner and group of a host file's information, and
// whether the system gives them.
func Owner(fi fs.FileInfo) (uid, gid uint32, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return st.Uid, st.Gid, true
}
