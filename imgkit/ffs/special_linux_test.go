//go:build linux

package ffs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// mkSpecialFiles adds a fifo to dir/c and, when running as root, a
// character and a block device.
func mkSpecialFiles(t *testing.T, dir string) {
	t.Helper()
	if err := syscall.Mkfifo(filepath.Join(dir, "c/fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		return
	}
	if err := syscall.Mknod(filepath.Join(dir, "c/tty"), syscall.S_IFCHR|0o620, int(fstree.Mkdev(4, 1))); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(filepath.Join(dir, "c/disk"), syscall.S_IFBLK|0o660, int(fstree.Mkdev(8, 3))); err != nil {
		t.Fatal(err)
	}
}
