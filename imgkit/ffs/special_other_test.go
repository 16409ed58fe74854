//go:build !unix

package ffs

import "testing"

// mkSpecialFiles is unix-only: other systems cannot make fifos or device
// nodes, so the trees there hold files, directories and links only.
func mkSpecialFiles(t *testing.T, dir string) {
	t.Helper()
	t.Skip("fifos and device nodes need a unix system")
}
