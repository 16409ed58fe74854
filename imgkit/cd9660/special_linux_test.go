package cd9660

import (
	"io/fs"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// canMknod reports whether the tests can make device files here (as root;
// the device numbers below are in Linux's encoding).
const canMknod = true

// mknod makes the special file path: kind 'c' a character device, 'b' a
// block device, 'p' a fifo, with permission bits perm and device number
// dev in Linux's encoding.
func mknod(path string, kind byte, perm uint32, dev int) error {
	mode := map[byte]uint32{'c': syscall.S_IFCHR, 'b': syscall.S_IFBLK, 'p': syscall.S_IFIFO}[kind]
	return syscall.Mknod(path, mode|perm, dev)
}

// mkfifo makes the fifo path.
func mkfifo(path string, perm uint32) error { return syscall.Mkfifo(path, perm) }

// statRdev returns the device number of a host file, when fi has one.
func statRdev(fi fs.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Rdev, true
}

// lchtimes sets the access and modification times of path itself, not of
// what a symbolic link points to.
func lchtimes(path string, atime, mtime time.Time) error {
	ts := []unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	return unix.UtimesNanoAt(unix.AT_FDCWD, path, ts, unix.AT_SYMLINK_NOFOLLOW)
}
