//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadCommandsRefuseFifo runs the commands that read an image on a
// named pipe without a writer: each must fail at once with one line naming
// the file (fails without the non-blocking open: ls, cat and diff hang).
func TestReadCommandsRefuseFifo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ls", "pipe"}, "ls: pipe: not a regular file (a named pipe)"},
		{[]string{"cat", "pipe", "x"}, "cat: pipe: not a regular file (a named pipe)"},
		{[]string{"diff", "pipe", "empty"}, "diff: pipe: not a regular file (a named pipe)"},
		{[]string{"diff", "empty", "pipe"}, "diff: pipe: not a regular file (a named pipe)"},
		{[]string{"ar", "t", "pipe"}, "pipe: not a regular file (a named pipe)"},
	} {
		done := make(chan error, 1)
		var out bytes.Buffer
		go func() {
			e := &env{Stdout: &out, Stderr: &out, Dir: dir, Getenv: func(string) string { return "" }}
			done <- run(e, c.args)
		}()
		select {
		case err := <-done:
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) || bytes.Contains([]byte(err.Error()), []byte("\n")) {
				t.Errorf("%q: error %v, want one line with %q", c.args, err, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q hangs on a named pipe", c.args)
		}
	}
}
