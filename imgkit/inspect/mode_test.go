package inspect

import (
	"io/fs"
	"testing"
)

// TestModeString checks the letters of every file type and of setuid,
// setgid and sticky with and without execute, as GNU ls -l and bsdtar tv
// print them (Go's fs.FileMode.String gives "Lrwxrwxrwx", "Dcrw-rw-rw-"
// and "urwxr-xr-x" for three of these).
func TestModeString(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode fs.FileMode
		want string
	}{
		{0o644, "-rw-r--r--"},
		{0, "----------"},
		{0o777, "-rwxrwxrwx"},
		{fs.ModeDir | 0o755, "drwxr-xr-x"},
		{fs.ModeSymlink | 0o777, "lrwxrwxrwx"},
		{fs.ModeDevice | fs.ModeCharDevice | 0o666, "crw-rw-rw-"},
		{fs.ModeDevice | 0o660, "brw-rw----"},
		{fs.ModeNamedPipe | 0o644, "prw-r--r--"},
		{fs.ModeSocket | 0o755, "srwxr-xr-x"},
		{fs.ModeIrregular | 0o644, "?rw-r--r--"},
		{fs.ModeSetuid | 0o755, "-rwsr-xr-x"},
		{fs.ModeSetuid | 0o644, "-rwSr--r--"},
		{fs.ModeSetgid | 0o750, "-rwxr-s---"},
		{fs.ModeSetgid | 0o640, "-rw-r-S---"},
		{fs.ModeDir | fs.ModeSticky | 0o777, "drwxrwxrwt"},
		{fs.ModeDir | fs.ModeSticky | 0o770, "drwxrwx--T"},
		{fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky | 0o777, "-rwsrwsrwt"},
		{fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky, "---S--S--T"},
	} {
		if got := ModeString(c.mode); got != c.want {
			t.Errorf("ModeString(%v) = %q, want %q", c.mode, got, c.want)
		}
	}
	if got := PermString(0o4751); got != "rwsr-x--x" {
		t.Errorf("PermString(04751) = %q, want rwsr-x--x", got)
	}
}
