package bcache

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestCreateOnTmpfs writes images under /dev/shm, an ordinary file system
// however its name reads: a new image is created there, and an existing
// larger file is replaced by exactly the image, in both modes (fails where
// the path's name makes it a device: the new image is refused with "no
// such file or directory" and the old file keeps its bytes after the
// image's end).
func TestCreateOnTmpfs(t *testing.T) {
	t.Parallel()
	dir := tooltest.Tmpfs(t)
	for _, m := range []Mode{ModeAuto, ModeMmap, ModeCopy} {
		path := filepath.Join(dir, "new-"+m.String()+".img")
		im := create(t, path, 163840, m)
		if _, err := im.WriteAt([]byte("new"), 512); err != nil {
			t.Fatal(err)
		}
		if err := im.Commit(); err != nil {
			t.Fatalf("%v: new image under %s: %v", m, dir, err)
		}
		checkImage(t, path, 163840, 512, "new")

		path = filepath.Join(dir, "old-"+m.String()+".img")
		write(t, path, strings.Repeat("\xa5", 5000000))
		im = create(t, path, 163840, m)
		if _, err := im.WriteAt([]byte("replaced"), 1024); err != nil {
			t.Fatal(err)
		}
		if err := im.Commit(); err != nil {
			t.Fatal(err)
		}
		checkImage(t, path, 163840, 1024, "replaced")
	}
	for _, name := range listDir(t, dir) {
		if strings.HasPrefix(name, ".") {
			t.Errorf("left %s in %s", name, dir)
		}
	}
}

// TestStreamToCharDevice writes an image to character devices, /dev/null
// and a null device made in a test folder (the kind decides, not the
// folder): nothing is made beside either, the device stays a device, and
// no truncation is tried.
func TestStreamToCharDevice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	made := filepath.Join(dir, "null")
	paths := []string{"/dev/null"}
	if err := unix.Mknod(made, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err == nil {
		paths = append(paths, made)
	} else {
		t.Logf("mknod: %v; /dev/null only", err)
	}
	devBefore := tempNames(t, "/dev")
	for _, path := range paths {
		im := create(t, path, 1<<20, ModeAuto)
		tmp := im.tmp
		if im.Mode() != ModeCopy || filepath.Dir(tmp) != filepath.Clean(os.TempDir()) {
			t.Errorf("%s: mode %v, temporary file %s; want copy mode in %s", path, im.Mode(), tmp, os.TempDir())
		}
		im.WriteAt([]byte("x"), 0)
		if err := im.Commit(); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%s is no longer a character device: %v", path, err)
		}
		if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: temporary file left: %v", path, err)
		}
	}
	if names := listDir(t, dir); len(names) != len(paths)-1 {
		t.Errorf("test folder holds %q, want the device alone", names)
	}
	if after := tempNames(t, "/dev"); after != devBefore {
		t.Errorf("/dev held temporary files %q, now %q", devBefore, after)
	}
}

// tempNames lists the temporary files of this package's pattern in dir.
func tempNames(t *testing.T, dir string) string {
	t.Helper()
	var names []string
	for _, n := range listDir(t, dir) {
		if strings.HasPrefix(n, ".fixturegen-tmp-") {
			names = append(names, n)
		}
	}
	return strings.Join(names, " ")
}

// TestStreamToFifoOnTmpfs writes an image to a named pipe under /dev/shm
// with a reader: the reader gets exactly the image, the pipe stays a pipe
// and nothing is left beside it.
func TestStreamToFifoOnTmpfs(t *testing.T) {
	t.Parallel()
	dir := tooltest.Tmpfs(t)
	path := filepath.Join(dir, "pipe")
	if err := unix.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := readFifo(path)
	im := create(t, path, 300000, ModeAuto)
	im.WriteAt([]byte("piped"), 200000)
	if err := im.Commit(); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 300000)
	copy(want[200000:], "piped")
	if got := <-done; !bytes.Equal(got, want) {
		t.Errorf("reader got %d bytes, not the %d of the image", len(got), len(want))
	}
	if names := listDir(t, dir); len(names) != 1 {
		t.Errorf("left %q beside the pipe", names)
	}
}

// TestCreateRefusesSocket refuses a socket as an output in one line naming
// it, before any temporary file is made.
func TestCreateRefusesSocket(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Skip("unix socket:", err)
	}
	defer l.Close()
	im, err := Create(path, 4096, nil)
	if im != nil {
		im.Abort()
	}
	if want := "create " + path + ": not a file, device or named pipe (a socket)"; err == nil || err.Error() != want || !errors.Is(err, ErrNotWritable) {
		t.Errorf("error %v, want %q", err, want)
	}
	if names := listDir(t, dir); len(names) != 1 {
		t.Errorf("left %q", names)
	}
}

// TestRewriteDeletedDescriptor writes an image to /proc/self/fd/N of a
// deleted file that holds more bytes than the image: there is no name to
// rename to, so the file is truncated and written in place and holds
// exactly the image (fails where the old bytes after the image's end
// survive).
func TestRewriteDeletedDescriptor(t *testing.T) {
	t.Parallel()
	f, err := os.CreateTemp(t.TempDir(), "deleted")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(bytes.Repeat([]byte{0x5a}, 50000)); err != nil {
		t.Fatal(err)
	}
	os.Remove(f.Name())
	path := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	tg, err := ResolveTarget(path)
	if err != nil || tg.Kind != TargetRewrite {
		t.Fatalf("ResolveTarget(%s) = %+v, %v; want TargetRewrite", path, tg, err)
	}
	im := create(t, path, 8192, ModeAuto)
	im.WriteAt([]byte("in place"), 100)
	if err := im.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 8192)
	copy(want[100:], "in place")
	if !bytes.Equal(got, want) {
		t.Errorf("the file holds %d bytes, not the %d-byte image", len(got), len(want))
	}
}

// TestCommitSteps checks the steps Options.Progress shows from Create to
// Commit: "writing" of the image's size, then, at Commit, "writing to
// NAME" counted to the image's size for an output written in place, or
// "renaming into place" for a file.
func TestCommitSteps(t *testing.T) {
	t.Parallel()
	const size = 3<<20 + 5
	for _, path := range []string{"/dev/null", filepath.Join(t.TempDir(), "img")} {
		var m progress.Meter
		im, err := Create(path, size, &Options{Progress: &m})
		if err != nil {
			t.Fatal(err)
		}
		if name, done, total := m.Load(); name != "writing" || done != 0 || total != size {
			t.Errorf("%s: after Create the meter shows %q, %d, %d", path, name, done, total)
		}
		im.WriteAt([]byte("x"), 0)
		if err := im.Commit(); err != nil {
			t.Fatal(err)
		}
		want := [3]any{"renaming into place", int64(0), int64(0)}
		if path == "/dev/null" {
			want = [3]any{"writing to /dev/null", int64(size), int64(size)}
		}
		if name, done, total := m.Load(); [3]any{name, done, total} != want {
			t.Errorf("%s: after Commit the meter shows %q, %d, %d; want %v", path, name, done, total, want)
		}
	}
}
