package ar

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// edit opens the archive name in dir, applies do and commits it.
func edit(t *testing.T, dir, name string, do func(a *Archive) error) error {
	t.Helper()
	a, err := OpenArchive(name, &EditOptions{Dir: dir})
	if err != nil {
		return err
	}
	defer a.Close()
	if err := do(a); err != nil {
		return err
	}
	return a.Commit()
}

// checkArchive checks that the file at path holds exactly an archive of
// the members names, in order, each holding its name and a newline.
func checkArchive(t *testing.T, path string, names ...string) {
	t.Helper()
	rc, err := OpenReader(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer rc.Close()
	var got []string
	for _, m := range rc.Members() {
		got = append(got, m.Name)
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Fatalf("%s holds %q, want %q", path, got, names)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ms := rc.Members()
	last := ms[len(ms)-1]
	if end := last.DataOffset + last.Size + last.Size%2; fi.Size() != end {
		t.Errorf("%s is %d bytes, its archive %d: bytes of the old file are left after it", path, fi.Size(), end)
	}
}

// TestCommitOnTmpfs edits archives under /dev/shm, an ordinary tmpfs: a
// new archive is made there, and deleting a member leaves exactly the
// smaller archive (fails where the name /dev/ makes the path a device: the
// new archive is refused, and the smaller one is written over the old
// without truncating it).
func TestCommitOnTmpfs(t *testing.T) {
	t.Parallel()
	dir := tooltest.Tmpfs(t)
	big := bytes.Repeat([]byte("x"), 300000)
	if err := os.WriteFile(filepath.Join(dir, "big"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "small"), []byte("small\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := edit(t, dir, "lib.a", func(a *Archive) error { return a.Replace("small", "big") }); err != nil {
		t.Fatalf("new archive under %s: %v", dir, err)
	}
	checkArchive(t, filepath.Join(dir, "lib.a"), "small", "big")
	if err := edit(t, dir, "lib.a", func(a *Archive) error { a.Delete("big"); return nil }); err != nil {
		t.Fatal(err)
	}
	checkArchive(t, filepath.Join(dir, "lib.a"), "small")
}

// TestCommitThroughLinks edits archives through symbolic links: a link to
// an archive stays a link and its file holds exactly the edited archive
// with its permission kept; a link to nothing gets its archive made where
// it points (fails where the link itself is replaced).
func TestCommitThroughLinks(t *testing.T) {
	t.Parallel()
	dir := newArchive(t, &EditOptions{}, "one", "two")
	if err := os.Chmod(filepath.Join(dir, "lib.a"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"lib.a", "link.a"}, {"made.a", "dangling.a"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := edit(t, dir, "link.a", func(a *Archive) error { a.Delete("two"); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := edit(t, dir, "dangling.a", func(a *Archive) error { return a.Replace("two") }); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		link, file string
		perm       fs.FileMode
		members    []string
	}{
		{"link.a", "lib.a", 0o600, []string{"one"}},
		{"dangling.a", "made.a", 0o644, []string{"two"}},
	} {
		if fi, err := os.Lstat(filepath.Join(dir, c.link)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v", c.link, err)
		}
		checkArchive(t, filepath.Join(dir, c.file), c.members...)
		if fi, err := os.Stat(filepath.Join(dir, c.file)); err != nil || fi.Mode().Perm() != c.perm {
			t.Errorf("%s: mode %v, want %v", c.file, fi.Mode(), c.perm)
		}
	}
}

// TestOpenArchiveRefusesSpecialFiles opens a character device, a named
// pipe without a writer and a folder as archives to edit: each is refused
// at once in one line naming it and what it is, and nothing is made.
func TestOpenArchiveRefusesSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := unix.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{
		{"/dev/null", "ar: /dev/null: not a regular file (a character device)"},
		{"pipe", "ar: pipe: not a regular file (a named pipe)"},
		{"folder", "ar: folder: not a regular file (a directory)"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := OpenArchive(c[0], &EditOptions{Dir: dir})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || err.Error() != c[1] {
				t.Errorf("OpenArchive(%s): %v, want %q", c[0], err, c[1])
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("OpenArchive(%s) hangs", c[0])
		}
	}
	if names, _ := os.ReadDir(dir); len(names) != 2 {
		t.Errorf("folder holds %v", names)
	}
}
