package fstree

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWalkHostPathLimit checks that a file whose host path is past the
// kernel's PATH_MAX, in a folder whose own path is not, is refused with
// the short ErrPathTooLong error as it was when entries were examined by
// their whole path, not walked and left to fail at its open with a
// 4 KiB path in the message.
func TestWalkHostPathLimit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// folders of 200-byte names, made relative to each other's
	// descriptor, until the next name would reach PATH_MAX
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("d", 200)
	dirLen := len(root)
	for dirLen+1+len(name) < unix.PathMax-100 {
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd, dirLen = next, dirLen+1+len(name)
	}
	// the file's host path is past PATH_MAX, its folder's is not
	file := strings.Repeat("f", unix.PathMax-dirLen)
	ffd, err := unix.Openat(fd, file, unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
	unix.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(ffd)
	defer removeDeep(t, root)
	_, err = WalkDir(root, nil)
	if !errors.Is(err, ErrPathTooLong) || len(err.Error()) > 300 {
		t.Errorf("WalkDir: %v, want a short ErrPathTooLong", err)
	}
}

// removeDeep removes a tree past PATH_MAX, which t.TempDir's removal (by
// whole paths) cannot: each folder's entries are removed relative to it.
func removeDeep(t *testing.T, root string) {
	t.Helper()
	var rm func(fd int)
	rm = func(fd int) {
		f := os.NewFile(uintptr(fd), "")
		defer f.Close()
		names, _ := f.Readdirnames(-1)
		for _, n := range names {
			if sub, err := unix.Openat(fd, n, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
				rm(sub)
				unix.Unlinkat(fd, n, unix.AT_REMOVEDIR)
				continue
			}
			unix.Unlinkat(fd, n, 0)
		}
	}
	fd, err := unix.Open(filepath.Clean(root), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	rm(fd)
}
