package bcache

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestResolveTargetFiles checks how ResolveTarget decides for new names,
// regular files, folders and symbolic links: links are followed one by
// one, relative to the folder that holds each (not cleaned by their
// letters), and a link to nothing leads to the name it points at.
func TestResolveTargetFiles(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	write(t, file, "old")
	mkdir(t, filepath.Join(dir, "a"))
	mkdir(t, filepath.Join(dir, "x", "y"))
	// a/lnk -> x/y, so a/lnk/../f is x/f to the system, and a/f by letters.
	symlink(t, "../x/y", filepath.Join(dir, "a", "lnk"))
	symlink(t, "../f", filepath.Join(dir, "x", "y", "up"))
	symlink(t, "file", filepath.Join(dir, "tofile"))
	symlink(t, "tofile", filepath.Join(dir, "twice"))
	symlink(t, "made", filepath.Join(dir, "dangling"))
	symlink(t, "loop", filepath.Join(dir, "loop"))
	symlink(t, "a", filepath.Join(dir, "todir"))

	for _, c := range []struct {
		path string
		kind TargetKind
		want string // Target.Path
	}{
		{filepath.Join(dir, "new"), TargetCreate, filepath.Join(dir, "new")},
		{file, TargetReplace, file},
		{filepath.Join(dir, "tofile"), TargetReplace, file},
		{filepath.Join(dir, "twice"), TargetReplace, file},
		{filepath.Join(dir, "dangling"), TargetCreate, filepath.Join(dir, "made")},
		{filepath.Join(dir, "a", "lnk", "up"), TargetCreate, filepath.Join(dir, "a", "lnk") + "/../f"},
	} {
		got, err := ResolveTarget(c.path)
		if err != nil {
			t.Errorf("ResolveTarget(%s): %v", c.path, err)
			continue
		}
		if got.Kind != c.kind || got.Path != c.want {
			t.Errorf("ResolveTarget(%s) = kind %d at %s, want kind %d at %s", c.path, got.Kind, got.Path, c.kind, c.want)
		}
		if !got.Regular() {
			t.Errorf("ResolveTarget(%s): not Regular", c.path)
		}
	}
	for _, c := range []struct {
		path, want string
		is         error
	}{
		{filepath.Join(dir, "a"), filepath.Join(dir, "a") + ": the image's path is a directory", ErrNotFile},
		{filepath.Join(dir, "todir"), filepath.Join(dir, "todir") + ": the image's path is a directory", ErrNotFile},
		{filepath.Join(dir, "loop"), "create " + filepath.Join(dir, "loop") + ": too many levels of symbolic links", nil},
	} {
		_, err := ResolveTarget(c.path)
		if err == nil || err.Error() != c.want || c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("ResolveTarget(%s): error %v, want %q", c.path, err, c.want)
		}
	}
}

// TestCreateThroughLinks writes images through symbolic links: a link to a
// regular file stays a link and its file gets exactly the image; a link to
// nothing gets its file made where it points, read from the folder the
// link is in even when that folder is a link (fails where the link itself
// is replaced by the image).
func TestCreateThroughLinks(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	for _, m := range []Mode{ModeMmap, ModeCopy} {
		dir := t.TempDir()
		old := bytes.Repeat([]byte{0xee}, 100000)
		write(t, filepath.Join(dir, "file"), string(old))
		symlink(t, "file", filepath.Join(dir, "tofile"))
		symlink(t, "made", filepath.Join(dir, "dangling"))
		mkdir(t, filepath.Join(dir, "a"))
		mkdir(t, filepath.Join(dir, "x", "y"))
		symlink(t, "../x/y", filepath.Join(dir, "a", "lnk"))
		symlink(t, "../f", filepath.Join(dir, "x", "y", "up"))
		for _, name := range []string{"tofile", "dangling", "a/lnk/up"} {
			path := filepath.Join(dir, name)
			im := create(t, path, 8192, m)
			if _, err := im.WriteAt([]byte("image"), 4096); err != nil {
				t.Fatal(err)
			}
			if err := im.Commit(); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("%v: %s is no longer a link: %v", m, name, err)
			}
			checkImage(t, path, 8192, 4096, "image")
		}
		if names := strings.Join(listDir(t, dir), " "); names != "a dangling file made tofile x" {
			t.Errorf("%v: folder holds %s", m, names)
		}
		if names := strings.Join(listDir(t, filepath.Join(dir, "x")), " "); names != "f y" {
			t.Errorf("%v: folder x holds %s, want the file a/lnk/up leads to, f", m, names)
		}
	}
}

// checkImage checks that the file at path is exactly an image of size
// bytes, zero but for s at off.
func checkImage(t *testing.T, path string, size, off int64, s string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, size)
	copy(want[off:], s)
	if !bytes.Equal(got, want) {
		t.Errorf("%s: %d bytes, not the %d-byte image (first difference at byte %d)", path, len(got), size, firstDiff(got, want))
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
