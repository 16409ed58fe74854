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

// TestOpenFileIn checks that OpenFileIn opens a regular file inside its
// folder, also through a symbolic link that stays inside, refuses a named
// pipe at once as OpenFile does, and never opens a file outside the
// folder: by "..", an absolute name, or a symbolic link that leads out.
func TestOpenFileIn(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	dir := filepath.Join(top, "in")
	for _, name := range []string{"in", "in/sub"} {
		if err := os.Mkdir(filepath.Join(top, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"out", "in/sub/f"} {
		if err := os.WriteFile(filepath.Join(top, name), []byte("12345"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"in/inside": "sub/f", "in/outside": "../out"} {
		if err := os.Symlink(target, filepath.Join(top, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, name := range []string{"sub/f", "inside"} {
		f, size, err := OpenFileIn(root, name)
		if err != nil || size != 5 {
			t.Errorf("%s: %d bytes, %v", name, size, err)
			continue
		}
		f.Close()
	}
	for _, name := range []string{"../out", filepath.Join(top, "out"), "outside", "fifo"} {
		f, _, err := OpenFileIn(root, name)
		if err == nil {
			f.Close()
			t.Errorf("%s: opened", name)
		}
	}
}
