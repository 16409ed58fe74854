//go:build !linux

package tooltest

import (
	"os"
	"testing"
)

// Mknod makes no device node here (see the Linux version) and reports
// false.
func Mknod(t testing.TB, path string, char bool, perm os.FileMode, major, minor uint32) bool {
	return false
}
