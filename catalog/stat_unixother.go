//go:build unix && !linux

package catalog

import (
	"io/fs"
	"syscall"
)

// hostInfo returns the owner, link count and identity of the file fi
// describes, when the system says them.
func hostInfo(fi fs.FileInfo) (h hostStat, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return hostStat{}, false
	}
	return hostStat{uid: st.Uid, gid: st.Gid, nlink: uint64(st.Nlink), dev: uint64(st.Dev), ino: uint64(st.Ino), rdev: uint64(st.Rdev)}, true
}
