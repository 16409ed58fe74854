package fstree

import "golang.org/x/sys/unix"

const canMknod = true

// mknod makes a device node with the host's device number for major,minor.
func mknod(path string, mode uint32, major, minor uint32) error {
	return unix.Mknod(path, mode, int(unix.Mkdev(major, minor)))
}
