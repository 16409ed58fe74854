//go:build unix

package ar

import (
	"io/fs"
	"syscall"
)

// fileOwner returns the uid, gid and st_mode of a file, as GNU ar U stores
// them.
func fileOwner(fi fs.FileInfo) (uid, gid int, mode int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), int(st.Gid), int64(st.Mode)
	}
	return 0, 0, 0o100000 | int64(fi.Mode().Perm())
}
