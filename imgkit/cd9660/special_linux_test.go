package cd9660

import (
	"io/fs"
	"syscall"
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
