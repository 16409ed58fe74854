//go:build !unix

package tooltest

import "testing"

// Mkfifo skips t: this system has no named pipes.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	t.Skip("no named pipes on this system")
}
