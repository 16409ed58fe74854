//go:build unix

package cpio

import (
	"io/fs"
	"syscall"
)

// hostStat returns what GNU cpio takes from struct stat.
func hostStat(fi fs.FileInfo) (hostStatT, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return hostStatT{}, false
	}
	return hostStatT{
		mode: uint32(st.Mode), nlink: uint32(st.Nlink), uid: st.Uid, gid: st.Gid,
		rdev: uint64(st.Rdev), dev: uint64(st.Dev), ino: uint64(st.Ino),
	}, true
}
