//go:build unix

package nbopen

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestLateOtherEnd checks that a pipe whose other end opens a moment after
// the command (as a job started beside it does) is read or written as a
// stream, and that one nobody opens is refused once Grace is over.
func TestLateOtherEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in, out, none := filepath.Join(dir, "in"), filepath.Join(dir, "out"), filepath.Join(dir, "none")
	for _, p := range []string{in, out, none} {
		if err := unix.Mkfifo(p, 0o600); err != nil {
			t.Skip("no named pipes here:", err)
		}
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		if f, err := os.OpenFile(in, os.O_WRONLY, 0); err == nil {
			f.WriteString("late")
			f.Close()
		}
	}()
	r, err := Read(in)
	if err != nil {
		t.Fatalf("Read with a writer 200 ms late: %v", err)
	}
	b, err := io.ReadAll(r)
	r.Close()
	if err != nil || string(b) != "late" {
		t.Errorf("read %q, %v", b, err)
	}

	got := make(chan string, 1)
	go func() {
		time.Sleep(200 * time.Millisecond)
		f, err := os.Open(out)
		if err == nil {
			b, _ := io.ReadAll(f)
			f.Close()
			got <- string(b)
		}
	}()
	w, err := Write(out)
	if err != nil {
		t.Fatalf("Write with a reader 200 ms late: %v", err)
	}
	w.WriteString("to the reader")
	w.Close()
	if s := <-got; s != "to the reader" {
		t.Errorf("the reader got %q", s)
	}

	start := time.Now()
	if _, err := Read(none); !errors.Is(err, ErrNoWriter) {
		t.Errorf("Read of a pipe nobody writes: %v, want ErrNoWriter", err)
	}
	if _, err := Write(none); !errors.Is(err, ErrNoReader) {
		t.Errorf("Write of a pipe nobody reads: %v, want ErrNoReader", err)
	}
	if d := time.Since(start); d > 4*Grace+time.Second {
		t.Errorf("refusing took %v, Grace is %v", d, Grace)
	}
}
