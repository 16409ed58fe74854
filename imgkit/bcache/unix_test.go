//go:build linux || darwin || freebsd || netbsd || dragonfly

package bcache

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestMmapWritesSurviveExit is the MAP_PRIVATE trap of the makefs mmap
// review: writes through a private mapping vanish when the process ends.
// A child process writes through the mapping and exits; the parent must find
// every byte in the file.
func TestMmapWritesSurviveExit(t *testing.T) {
	t.Parallel()
	t.Run("commit", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "img")
		if out, err := startChild(t, "commit", path).Output(); err != nil {
			t.Fatalf("child: %v %s", err, out)
		}
		checkPattern(t, path)
	})
	t.Run("exit-without-unmap", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "img")
		out, err := startChild(t, "exit", path).Output()
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		tmp := strings.TrimSpace(string(out))
		if filepath.Dir(tmp) != dir || !strings.HasPrefix(filepath.Base(tmp), ".fixturegen-tmp-img-") {
			t.Fatalf("temporary file %q is not beside %q", tmp, path)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("final path exists without Commit: %v", err)
		}
		checkPattern(t, tmp)
	})
}

// TestKilledMidBuild kills (SIGKILL) a child in the middle of a build: the
// final path must be unchanged (or still absent), with only the temporary
// file beside it.
func TestKilledMidBuild(t *testing.T) {
	t.Parallel()
	for _, old := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "img")
		if old {
			if err := os.WriteFile(path, []byte("good old image"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := startChild(t, "hang", path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || line != "ready\n" {
			cmd.Process.Kill()
			t.Fatalf("child said %q, %v", line, err)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		got, err := os.ReadFile(path)
		switch {
		case old && (err != nil || string(got) != "good old image"):
			t.Errorf("old image replaced: %q, %v", got, err)
		case !old && !errors.Is(err, os.ErrNotExist):
			t.Errorf("final path exists after the kill: %v", err)
		}
		var temps int
		for _, n := range listDir(t, dir) {
			if strings.HasPrefix(n, ".fixturegen-tmp-img-") {
				temps++
			} else if n != "img" {
				t.Errorf("unexpected file %q", n)
			}
		}
		if temps != 1 {
			t.Errorf("%d temporary files beside the image, want 1", temps)
		}
	}
}

// TestPermIgnoresUmask checks that the final mode is exactly Options.Perm.
func TestPermIgnoresUmask(t *testing.T) {
	// not parallel: it changes the process's umask.
	old := unix.Umask(0o077)
	defer unix.Umask(old)
	for _, m := range modes {
		for _, c := range []struct{ perm, want os.FileMode }{{0, 0o644}, {0o664, 0o664}, {0o755, 0o755}, {0o400, 0o400}} {
			path := filepath.Join(t.TempDir(), "img")
			im, err := Create(path, 512, &Options{Mode: m, Perm: c.perm})
			if err != nil {
				t.Fatal(err)
			}
			if err := im.Commit(); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != c.want {
				t.Errorf("%v: Perm %#o gave %#o, want %#o", m, c.perm, fi.Mode().Perm(), c.want)
			}
		}
	}
}

// TestFaultBecomesError truncates the temporary file under a live mapping and
// writes into it.
func TestFaultBecomesError(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "img")
	im := create(t, path, 1<<20, ModeMmap)
	b, err := im.Getblk(300000, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if err := im.Bwrite(b); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(im.tmp, 4096); err != nil {
		t.Fatal(err)
	}
	err = im.Guard(func() error {
		b.Data()[10] = 1
		return nil
	})
	var fe *FaultError
	if !errors.As(err, &fe) {
		t.Fatalf("Guard = %v, want a *FaultError", err)
	}
	if fe.Image != path || fe.Offset != 300010 {
		t.Errorf("fault at %s offset %#x, want %s offset %#x", fe.Image, fe.Offset, path, 300010)
	}
	if !strings.Contains(err.Error(), "writing "+path+" at offset 0x493e") {
		t.Errorf("error text: %v", err)
	}
	// The Image's own methods guard themselves.
	if _, err := im.Getblk(300000, 4096); !errors.As(err, &fe) || fe.Offset != 300000 {
		t.Errorf("Getblk zeroing the truncated part = %v", err)
	}
	im.opts.Bulk = BulkRead // read straight into the mapping
	if err := im.CopyFrom(600000, bytes.NewReader(make([]byte, 100)), 100); !errors.As(err, &fe) || fe.Offset != 600000 {
		t.Errorf("CopyFrom into the truncated part = %v", err)
	}
	// Still inside the file: no fault.
	if err := im.Guard(func() error { im.data[100] = 7; return nil }); err != nil {
		t.Errorf("write inside the file: %v", err)
	}
	// WriteAt is a pwrite, not a store into the mapping: it cannot fault,
	// and past the truncated end it writes (the file grows back).
	if _, err := im.WriteAt([]byte("x"), 500000); err != nil {
		t.Errorf("WriteAt past the truncated end = %v", err)
	}
	// Other panics pass through Guard.
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want boom", r)
			}
		}()
		im.Guard(func() error { panic("boom") })
	}()
	if err := im.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("final path after Abort: %v", err)
	}
}

// TestSparse writes a few blocks into a 1 GiB image and checks that the file
// stays mostly holes: Getblk of never-touched ranges must not write zeros.
func TestSparse(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "img")
	im := create(t, path, 1<<30, ModeMmap)
	for i, off := range []int64{0, 1 << 20, 100 << 20, 512<<20 + 512, 1<<30 - 65536} {
		b, err := im.Getblk(off, 65536)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			copy(b.Data(), "data")
		}
		if err := im.Bwrite(b); err != nil {
			t.Fatal(err)
		}
	}
	// Read a large untouched range, and grow a buffer over untouched bytes.
	b, err := im.Bread(200<<20, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	im.Brelse(b)
	b, err = im.Getblk(300<<20, 512)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Grow(65536); err != nil {
		t.Fatal(err)
	}
	im.Bwrite(b)
	if err := im.Commit(); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	if st.Size != 1<<30 {
		t.Errorf("size %d", st.Size)
	}
	if used := st.Blocks * 512; used > 1<<20 {
		t.Errorf("1 GiB image with 3 small writes uses %d bytes on disk", used)
	}
	t.Logf("disk usage %d bytes", st.Blocks*512)
}

// TestStreamToFifo writes an image to a fifo: it is built in os.TempDir in
// copy mode and streamed at Commit; the fifo stays a fifo.
func TestStreamToFifo(t *testing.T) {
	// not parallel: t.Setenv (EnvMode).
	for _, m := range []Mode{ModeAuto, ModeMmap} {
		path := filepath.Join(t.TempDir(), "fifo")
		if err := unix.Mkfifo(path, 0o600); err != nil {
			t.Skip("mkfifo:", err)
		}
		t.Setenv(EnvMode, "")
		done := readFifo(path)
		im := create(t, path, 64<<10, m)
		want := ModeCopy
		if m == ModeMmap {
			want = ModeMmap
		}
		if im.Mode() != want {
			t.Errorf("mode %v for a fifo, want %v", im.Mode(), want)
		}
		if filepath.Dir(im.tmp) != filepath.Clean(os.TempDir()) {
			t.Errorf("temporary file %s not in %s", im.tmp, os.TempDir())
		}
		tmp := im.tmp
		im.WriteAt([]byte("through the pipe"), 1000)
		if err := im.Commit(); err != nil {
			t.Fatal(err)
		}
		got := <-done
		if len(got) != 64<<10 || string(got[1000:1016]) != "through the pipe" {
			t.Errorf("fifo reader got %d bytes", len(got))
		}
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("fifo replaced: %v", err)
		}
		if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("temporary file left: %v", err)
		}
	}
}

// TestStreamToDevNull writes an image to /dev/null: streamed, never renamed.
func TestStreamToDevNull(t *testing.T) {
	t.Parallel()
	im := create(t, "/dev/null", 8192, ModeAuto)
	if !im.stream || filepath.Dir(im.tmp) != filepath.Clean(os.TempDir()) {
		t.Fatalf("/dev/null not streamed (temporary file %s)", im.tmp)
	}
	im.WriteAt([]byte("x"), 0)
	if err := im.Commit(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a character device: %v %v", fi.Mode(), err)
	}
}

// readFifo opens the named pipe path for reading and sends, from a
// goroutine, everything read from it once its writer is done, or nil
// when it cannot be opened.
func readFifo(path string) <-chan []byte {
	done := make(chan []byte, 1)
	// Opened now, without waiting for a writer, so that a Create after
	// it finds a reader (it refuses a pipe nobody reads); until the
	// writer comes, and between its writes, a read ends at once.
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		done <- nil
		return done
	}
	go func() {
		defer f.Close()
		var b bytes.Buffer
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			var buf [1 << 16]byte
			n, err := f.Read(buf[:])
			b.Write(buf[:n])
			if err == io.EOF && b.Len() > 0 {
				break
			}
			if err != nil {
				time.Sleep(time.Millisecond)
			}
		}
		done <- b.Bytes()
	}()
	return done
}
