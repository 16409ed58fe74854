//go:build unix

package hostfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestOpenFifo checks that Open and OpenOS of a named pipe without a
// writer return at once (without O_NONBLOCK the open waits for a writer
// for ever), that its reads end at once, and that Regular refuses it.
func TestOpenFifo(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := Open(p)
		if err != nil {
			done <- err
			return
		}
		defer f.Close()
		if n, err := f.Read(make([]byte, 10)); n != 0 || err != io.EOF {
			done <- errors.New("a read of a pipe without a writer did not end")
			return
		}
		if err := f.Regular(p); !errors.Is(err, ErrNotRegular) {
			done <- errors.New("Regular took a pipe for a regular file")
			return
		}
		g, err := OpenOS(p)
		if err == nil {
			g.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("opening a named pipe without a writer hangs")
	}
}

// TestOpenRegular checks the reads of a regular file through Open's
// descriptor (Read, ReadAt, Seek with SEEK_HOLE), Regular's answer for it
// and for a folder, and that OpenOS hands over a descriptor in blocking
// mode, which os.NewFile does not offer to the runtime's poller.
func TestOpenRegular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Regular(p); err != nil {
		t.Errorf("Regular of a regular file: %v", err)
	}
	buf := make([]byte, 4)
	if n, err := f.ReadAt(buf, 3); n != 4 || err != nil || string(buf) != "3456" {
		t.Errorf("ReadAt(4 bytes at 3) = %d, %v, %q", n, err, buf[:n])
	}
	if n, err := f.ReadAt(buf, 8); n != 2 || err != io.EOF {
		t.Errorf("ReadAt past the end = %d, %v, want 2, io.EOF", n, err)
	}
	if off, err := f.Seek(0, 4); off != 10 || err != nil { // SEEK_HOLE
		t.Errorf("SEEK_HOLE = %d, %v, want 10 (the end)", off, err)
	}
	if _, err := f.Seek(2, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(f); err != nil || string(b) != "23456789" {
		t.Errorf("Read from byte 2 = %q, %v", b, err)
	}

	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Regular(dir); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Regular of a folder: %v, want ErrNotRegular", err)
	}

	g, err := OpenOS(p)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	// not g.Fd(), which would put the descriptor in blocking mode
	rc, err := g.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fl int
	if cerr := rc.Control(func(fd uintptr) { fl, err = unix.FcntlInt(fd, unix.F_GETFL, 0) }); cerr != nil {
		t.Fatal(cerr)
	}
	if err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Errorf("OpenOS's descriptor: flags %#x, %v, want blocking", fl, err)
	}
	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open of a missing file: %v, want os.ErrNotExist", err)
	}
}
