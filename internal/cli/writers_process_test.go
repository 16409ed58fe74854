//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ar"
	"github.com/fixturegen/fixturegen/imgkit/cd9660"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// The hidden command test-slow-write runs a real format writer into the
// middle of an image and holds it there: "test-slow-write TYPE OUT" writes
// OUT with msdos.WriteFile, ffs.WriteFile or cd9660.WriteFile from a tree
// whose one large file blocks its read once a temporary file exists (the
// image is then being written), or, for TYPE ar, edits the archive OUT
// with the member file "member" of the working folder, whose data blocks
// in the same way at Commit. When the read blocks it says "ready" on
// standard output and sleeps for a minute. It has the signal handling of
// makefs and ar.
var _ = func() bool {
	register(command{
		Name:   "test-slow-write",
		Usage:  "test-slow-write msdos|ffs|cd9660|ar out",
		hidden: true,
		Run:    runSlowWrite,
	})
	return true
}()

func runSlowWrite(e *env, args []string) error {
	if len(args) != 2 {
		return usagef("test-slow-write: want a type and a file")
	}
	defer e.removeTempsOnSignal("test-slow-write")()
	out := e.abs(args[1])
	hold := &holder{dirs: []string{filepath.Dir(out), os.TempDir()}, ready: e.Stdout}
	if args[0] == "ar" {
		a, err := ar.OpenArchive(out, &ar.EditOptions{Dir: e.Dir})
		if err != nil {
			return err
		}
		defer a.Close()
		if err := a.Replace("member"); err != nil {
			return err
		}
		es := a.Entries()
		es[len(es)-1].Data = &slowReaderAt{r: es[len(es)-1].Data, hold: hold}
		return a.Commit()
	}
	fsys := slowFS{fs: fstest.MapFS{
		"small.txt": {Data: []byte("small\n"), Mode: 0o644},
		"big.bin":   {Data: bytes.Repeat([]byte("big data "), 1<<19), Mode: 0o644},
	}, hold: hold}
	src := fstree.FS(fsys)
	switch args[0] {
	case "msdos":
		return msdos.WriteFile(out, src, nil)
	case "ffs":
		return ffs.WriteFile(out, src, nil)
	case "cd9660":
		return cd9660.WriteFile(out, src, nil)
	}
	return usagef("test-slow-write: unknown type %q", args[0])
}

// A holder stops a reader for a minute, once, when a temporary file of
// fixturegen's pattern exists in one of dirs, after saying "ready".
type holder struct {
	dirs  []string
	ready io.Writer
	done  bool
}

func (h *holder) maybeHold() {
	if h.done {
		return
	}
	for _, d := range h.dirs {
		names, _ := filepath.Glob(filepath.Join(d, tempfile.Prefix+"*"))
		if len(names) > 0 {
			h.done = true
			fmt.Fprintln(h.ready, "ready")
			time.Sleep(time.Minute)
			return
		}
	}
}

// slowFS is an fs.FS whose big.bin blocks its reads as holder says.
type slowFS struct {
	fs   fstest.MapFS
	hold *holder
}

func (s slowFS) Open(name string) (fs.File, error) {
	f, err := s.fs.Open(name)
	if err != nil || name != "big.bin" {
		return f, err
	}
	return &slowFile{File: f, hold: s.hold}, nil
}

// slowFile hides every method of its file but Read, Stat and Close, so
// that its data is read with Read.
type slowFile struct {
	fs.File
	hold *holder
}

func (f *slowFile) Read(p []byte) (int, error) {
	f.hold.maybeHold()
	return f.File.Read(p)
}

// slowReaderAt is a member's data that blocks its reads as holder says.
type slowReaderAt struct {
	r    io.ReaderAt
	hold *holder
}

func (s *slowReaderAt) ReadAt(p []byte, off int64) (int, error) {
	s.hold.maybeHold()
	return s.r.ReadAt(p, off)
}

// TestWritersSignalMidWrite stops makefs's three format writers and ar's
// Commit with SIGTERM in the middle of writing (to a regular file, and for
// msdos to a named pipe, whose image is built under TMPDIR): each exits
// with status 143 saying so in one line, and leaves nothing beside the
// output nor in TMPDIR.
func TestWritersSignalMidWrite(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, typ string
		fifo      bool
	}{
		{"msdos", "msdos", false},
		{"ffs", "ffs", false},
		{"cd9660", "cd9660", false},
		{"ar", "ar", false},
		{"msdos-fifo", "msdos", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, tmp := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "member"), bytes.Repeat([]byte("member\n"), 100000), 0o644); err != nil {
				t.Fatal(err)
			}
			if c.fifo {
				if err := syscall.Mkfifo(filepath.Join(dir, "out"), 0o644); err != nil {
					t.Fatal(err)
				}
				// A reader that reads nothing: the writer is let in, and
				// then waits on the full pipe.
				r, err := os.OpenFile(filepath.Join(dir, "out"), os.O_RDONLY|syscall.O_NONBLOCK, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
			}
			before := names(t, dir)
			var stderr bytes.Buffer
			cmd := fixturegenProcess(dir, tmp, "test-slow-write", c.typ, "out")
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("test-slow-write said %q, %v; stderr %q", line, err, stderr.String())
			}
			where := dir
			if c.fifo {
				where = tmp
			}
			if n := len(names(t, where)); n == 0 {
				t.Errorf("while writing, no temporary file in %s", where)
			}
			stopAndCheck(t, cmd, &stderr, "test-slow-write", map[string][]string{dir: before, tmp: nil})
		})
	}
}

// TestMakefsFifoNoReader runs makefs into a named pipe that nobody reads:
// it fails at once (it waited in open(2) for a reader for ever before)
// with exit status 1 and one line naming the pipe, and leaves neither its
// image in TMPDIR nor anything beside the pipe, for each type.
func TestMakefsFifoNoReader(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{"msdos", "ffs", "cd9660"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			dir, tmp := t.TempDir(), t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "src", "a.txt"), []byte("a\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd := fixturegenProcess(dir, tmp, "makefs", "-t", typ, "pipe", "src")
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			timer := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
			err := cmd.Wait()
			timer.Stop()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Errorf("exit: %v, want status 1 at once", err)
			}
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "fixturegen: makefs: ") || !strings.HasSuffix(last, "pipe: a named pipe that no process opened for reading") {
				t.Errorf("stderr %q, want a last line naming the pipe", stderr.String())
			}
			if n := names(t, tmp); len(n) != 0 {
				t.Errorf("TMPDIR holds %v", n)
			}
			if n := names(t, dir); !slices.Equal(n, []string{"pipe", "src"}) {
				t.Errorf("beside the pipe: %v", n)
			}
		})
	}
}

// stopAndCheck sends SIGTERM to cmd and checks that it exits with status
// 143, says "fixturegen: op: interrupted by terminated" alone on stderr,
// and leaves each folder of want holding exactly the names given.
func stopAndCheck(t *testing.T, cmd *exec.Cmd, stderr *bytes.Buffer, op string, want map[string][]string) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 143 {
		t.Errorf("exit: %v, want status 143", err)
	}
	if w := "fixturegen: " + op + ": interrupted by terminated\n"; stderr.String() != w {
		t.Errorf("stderr %q, want %q", stderr.String(), w)
	}
	for d, w := range want {
		if got := names(t, d); !slices.Equal(got, w) {
			t.Errorf("left in %s: %q, want %q", d, got, w)
		}
	}
}

// names returns the sorted names in dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, e := range ents {
		ns = append(ns, e.Name())
	}
	return ns
}
