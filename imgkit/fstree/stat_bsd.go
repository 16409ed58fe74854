//go:build darwin || freebsd

package fstree

import "syscall"

// statTimes sets the times of n from st, including the birth time, which
// these systems report (a negative or zero birth time means none).
func statTimes(n *Node, st *syscall.Stat_t) bool {
	n.Atime = timespec(int64(st.Atimespec.Sec), int64(st.Atimespec.Nsec))
	n.Mtime = timespec(int64(st.Mtimespec.Sec), int64(st.Mtimespec.Nsec))
	n.Ctime = timespec(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
	if b := st.Birthtimespec; b.Sec > 0 || (b.Sec == 0 && b.Nsec > 0) {
		n.Birthtime = timespec(int64(b.Sec), int64(b.Nsec))
	}
	return true
}
