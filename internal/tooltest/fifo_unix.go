//go:build unix

package tooltest

import (
	"testing"

	"golang.org/x/sys/unix"
)

// Mkfifo makes a named pipe at path, failing t when the system refuses.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	if err := unix.Mkfifo(path, 0o644); err != nil {
		t.Fatalf("mkfifo %s: %v", path, err)
	}
}
