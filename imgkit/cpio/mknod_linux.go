package cpio

import (
	"os"
	"path"

	"golang.org/x/sys/unix"
)

// mknod makes the FIFO or device node of entry en at rel under root, in
// the folder opened through root (so that no symbolic link leads it out),
// with mknodat(2) on the last name, which it does not follow. It reports
// false, to skip the entry, for a socket, and for a device when the
// process may not make one (it is not root).
func mknod(root *os.Root, rel string, en Entry) (bool, error) {
	var dev uint64
	switch en.Mode & ModeType {
	case ModeFIFO:
	case ModeChar, ModeBlock:
		if os.Geteuid() != 0 {
			return false, nil
		}
		dev = unix.Mkdev(en.RdevMajor, en.RdevMinor)
	default:
		return false, nil
	}
	dir, err := root.Open(path.Dir(rel))
	if err != nil {
		return true, err
	}
	defer dir.Close()
	name := path.Base(rel)
	unix.Unlinkat(int(dir.Fd()), name, 0)
	if err := unix.Mknodat(int(dir.Fd()), name, en.Mode&(ModeType|0o7777), int(dev)); err != nil {
		return true, &os.PathError{Op: "mknod", Path: rel, Err: err}
	}
	return true, root.Chmod(rel, os.FileMode(en.Mode&0o777)) // as given, not as the umask left it
}
