package fstree

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// statTimes sets the times of n from st. Linux's stat has no birth time;
// lstatNode gets it from statx(2).
func statTimes(n *Node, st *syscall.Stat_t) bool {
	n.Atime = timespec(int64(st.Atim.Sec), int64(st.Atim.Nsec))
	n.Mtime = timespec(int64(st.Mtim.Sec), int64(st.Mtim.Nsec))
	n.Ctime = timespec(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	return true
}

// lstatNode sets the metadata of n from the host file p, not following a
// symbolic link. On Linux it uses statx(2), which also reports the birth
// time where the file system records one.
func lstatNode(p string, n *Node) error { return lstatNodeAt(nil, p, p, n) }

// lstatNodeAt is lstatNode of the entry name of the open folder dir (the
// host file p): statx relative to the folder's descriptor, which spares
// the kernel a lookup of every component of p (on the midsize tree 2.7
// us a call against 3.4 us, BENCHMARKS.md). A nil dir is p's lstatNode,
// and so is a p past the kernel's PATH_MAX, so that the kernel refuses
// it (ENAMETOOLONG) as it refuses every later use of p.
func lstatNodeAt(dir *os.File, name, p string, n *Node) error {
	var stx unix.Statx_t
	const mask = unix.STATX_BASIC_STATS | unix.STATX_BTIME
	fd := unix.AT_FDCWD
	if dir != nil && len(p) < unix.PathMax {
		fd = int(dir.Fd())
	} else {
		name = p
	}
	err := unix.Statx(fd, name, unix.AT_SYMLINK_NOFOLLOW, mask, &stx)
	if err == unix.ENOSYS || err == unix.EPERM {
		// No statx (old kernel, or a seccomp filter): plain lstat.
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		fillInfo(n, fi)
		return nil
	}
	if err != nil {
		return &os.PathError{Op: "statx", Path: p, Err: err}
	}
	mode := uint32(stx.Mode)
	n.Type = TypeOfUnixMode(mode)
	if n.Type == 0 {
		return &os.PathError{Op: "statx", Path: p, Err: errUnknownType(mode)}
	}
	n.Mode = mode & 07777
	n.UID, n.GID = stx.Uid, stx.Gid
	n.Size = int64(stx.Size)
	n.dev = unix.Mkdev(stx.Dev_major, stx.Dev_minor)
	n.ino, n.hostNlink = stx.Ino, uint64(stx.Nlink)
	if n.Type == TypeChar || n.Type == TypeBlock {
		n.Rdev = Mkdev(stx.Rdev_major, stx.Rdev_minor)
	}
	n.Atime = timespec(stx.Atime.Sec, int64(stx.Atime.Nsec))
	n.Mtime = timespec(stx.Mtime.Sec, int64(stx.Mtime.Nsec))
	n.Ctime = timespec(stx.Ctime.Sec, int64(stx.Ctime.Nsec))
	if stx.Mask&unix.STATX_BTIME != 0 {
		n.Birthtime = timespec(stx.Btime.Sec, int64(stx.Btime.Nsec))
	}
	return nil
}
