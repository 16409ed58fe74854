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

// runWithin runs the command args in dir in-process and returns its
// error, failing the test when it does not return within 10 s.
func runWithin(t *testing.T, dir string, args ...string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		var out bytes.Buffer
		e := &env{Stdout: &out, Stderr: &out, Dir: dir, Getenv: func(string) string { return "" }}
		done <- run(e, args)
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%q hangs on a named pipe", args)
		return nil
	}
}

// TestWriteCommandsRefuseFifo runs the commands that write an image on
// a named pipe with nobody at its other end, as an input (a partition, boot
// code, an mtree spec, an ar member) or as the output: each fails at once
// with one line naming the file and leaves nothing beside it (without the
// non-blocking opens, every one of them hangs).
func TestWriteCommandsRefuseFifo(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mkimg", "-s", "gpt", "-p", "freebsd:=pipe", "-o", "out.img"}, "pipe: a named pipe that no process opened for writing"},
		{[]string{"mkimg", "-s", "gpt", "-b", "pipe", "-p", "freebsd::64k", "-o", "out.img"}, "pipe: a named pipe that no process opened for writing"},
		{[]string{"mkimg", "-s", "gpt", "-p", "freebsd::64k", "-o", "pipe"}, "pipe: a named pipe that no process opened for reading"},
		{[]string{"mkimg", "-s", "gpt", "-f", "vmdk", "-p", "freebsd::64k", "-o", "pipe"}, "pipe: a named pipe that no process opened for reading"},
		{[]string{"makefs", "-t", "msdos", "-s", "1m", "pipe", "src"}, "pipe: a named pipe that no process opened for reading"},
		{[]string{"makefs", "-t", "msdos", "-s", "1m", "-F", "pipe", "out.img", "src"}, "pipe: a named pipe that no process opened for writing"},
		{[]string{"ar", "rc", "out.a", "pipe"}, "ar: pipe: not a regular file"},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
				t.Fatal(err)
			}
			err := runWithin(t, dir, c.args...)
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) || bytes.Contains([]byte(err.Error()), []byte("\n")) {
				t.Errorf("%q: error %v, want one line with %q", c.args, err, c.want)
			}
			if left, _ := os.ReadDir(dir); len(left) != 2 {
				t.Errorf("%q left %v", c.args, left)
			}
		})
	}
}

// TestFifoWithOtherEnd runs mkimg on named pipes that have a process at
// their other end: a partition read from a pipe being written is read as
// a stream, and a disk written to a pipe being read reaches the reader;
// both give the bytes of the same disk made from files.
func TestFifoWithOtherEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	part := bytes.Repeat([]byte("fifo data\n"), 10000)
	if err := os.WriteFile(filepath.Join(dir, "part"), part, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"in", "out"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := runWithin(t, dir, "mkimg", "-s", "gpt", "-p", "freebsd:=part", "-o", "want.img"); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, "want.img"))
	if err != nil {
		t.Fatal(err)
	}

	// O_RDWR opens a FIFO without waiting for a reader: the writer is
	// there before mkimg looks.
	w, err := os.OpenFile(filepath.Join(dir, "in"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.Write(part); w.Close() }()
	if err := runWithin(t, dir, "mkimg", "-s", "gpt", "-p", "freebsd:=in", "-o", "got.img"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "got.img")); !bytes.Equal(got, want) {
		t.Errorf("the disk of a partition read from a FIFO differs from the one read from a file")
	}

	r, err := os.OpenFile(filepath.Join(dir, "out"), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	read := make(chan []byte, 1)
	go func() {
		// A FIFO read before its writer comes, or between, ends at
		// once: read again until the disk is there or the time is up.
		var b bytes.Buffer
		for deadline := time.Now().Add(10 * time.Second); b.Len() < len(want) && time.Now().Before(deadline); {
			var buf [1 << 16]byte
			n, err := r.Read(buf[:])
			b.Write(buf[:n])
			if err != nil {
				time.Sleep(time.Millisecond)
			}
		}
		read <- b.Bytes()
	}()
	if err := runWithin(t, dir, "mkimg", "-s", "gpt", "-p", "freebsd:=part", "-o", "out"); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-read:
		if !bytes.Equal(got, want) {
			t.Errorf("the disk written to a FIFO (%d bytes) differs from the one written to a file (%d bytes)", len(got), len(want))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reader of the FIFO got no end")
	}
}
