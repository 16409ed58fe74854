//go:build !linux

package ffs

import "testing"

// mkSpecialFiles is Linux-only: its device numbers are in Linux's
// encoding (fstree.Mkdev), which mknod reads otherwise elsewhere, so other
// systems skip the tests that need them.
func mkSpecialFiles(t *testing.T, dir string) {
	t.Helper()
	t.Skip("the special-file trees are made on Linux only")
}
