//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package fstree

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// fillSys sets the metadata of n from fi.Sys() when it is a
// *syscall.Stat_t, and reports whether it was.
func fillSys(n *Node, fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return false
	}
	mode := uint32(st.Mode)
	n.Type = TypeOfUnixMode(mode)
	if n.Type == 0 {
		n.Type = typeFromFileMode(fi.Mode())
	}
	n.Mode = mode & 07777
	n.UID, n.GID = st.Uid, st.Gid
	n.dev, n.ino, n.hostNlink = uint64(st.Dev), uint64(st.Ino), uint64(st.Nlink)
	if n.Type == TypeChar || n.Type == TypeBlock {
		rdev := uint64(st.Rdev)
		n.Rdev = Mkdev(unix.Major(rdev), unix.Minor(rdev))
	}
	if !statTimes(n, st) {
		mt := fi.ModTime()
		n.Atime, n.Mtime, n.Ctime = mt, mt, mt
	}
	return true
}
