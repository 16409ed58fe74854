package tooltest

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// Mknod makes the device node path, a character device when char is set
// and a block device otherwise, with the permission bits perm and the
// device number major:minor, and reports whether it did: only root may
// make one, and only here on Linux does the test suite try (other
// systems' mknod takes the number in another type). Any other failure
// fails the test.
func Mknod(t testing.TB, path string, char bool, perm os.FileMode, major, minor uint32) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	mode := uint32(perm.Perm()) | unix.S_IFBLK
	if char {
		mode = uint32(perm.Perm()) | unix.S_IFCHR
	}
	if err := unix.Mknod(path, mode, int(unix.Mkdev(major, minor))); err != nil {
		t.Fatalf("mknod %s: %v", path, err)
	}
	return true
}
