package tooltest

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// Tmpfs returns a new folder on a tmpfs, removed after the test: under
// /dev/shm when that is a tmpfs (an ordinary file system whose name starts
// /dev/, as outputs there must be told apart from devices by what they
// are), else a tmpfs mounted for the test, which needs root. Without
// either the test ends as Missing says.
func Tmpfs(t testing.TB) string {
	t.Helper()
	var st unix.Statfs_t
	if unix.Statfs("/dev/shm", &st) == nil && st.Type == unix.TMPFS_MAGIC {
		if dir, err := os.MkdirTemp("/dev/shm", "fixturegen-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=64m"); err != nil {
		Missing(t, "no tmpfs at /dev/shm, and mounting one failed: "+err.Error())
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}
