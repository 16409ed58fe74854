//go:build unix

package imgfmt

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenFileFifo checks that OpenFile refuses a named pipe without a
// writer at once (fails without O_NONBLOCK: the open blocks for ever), and
// a directory, and opens a regular file.
func TestOpenFileFifo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, _, err := OpenFile(fifo)
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		var pe *fs.PathError
		if !errors.Is(err, ErrNotRegular) || !errors.As(err, &pe) || pe.Path != fifo || err.Error() != "open "+fifo+": not a regular file (a named pipe)" {
			t.Errorf("fifo: error %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OpenFile blocks on a named pipe")
	}
	if _, _, err := OpenFile(dir); !errors.Is(err, ErrNotRegular) {
		t.Errorf("directory: error %v", err)
	}
	reg := filepath.Join(dir, "img")
	if err := os.WriteFile(reg, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, size, err := OpenFile(reg)
	if err != nil || size != 5 {
		t.Fatalf("regular file: size %d, error %v", size, err)
	}
	f.Close()
}
