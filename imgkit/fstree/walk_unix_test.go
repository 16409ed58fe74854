//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package fstree

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestWalkDirSpecialFiles(t *testing.T) {
	// not parallel: it changes the working directory to bind a socket by a short name.
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o640); err != nil {
		t.Fatal(err)
	}
	// Unix socket paths are limited to about 100 bytes: bind by a short
	// relative name from inside dir.
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", "sock")
	os.Chdir(wd)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	root := os.Geteuid() == 0 && canMknod
	if root {
		if err := mknod(filepath.Join(dir, "null"), unix.S_IFCHR|0o666, 1, 3); err != nil {
			t.Fatal(err)
		}
		if err := mknod(filepath.Join(dir, "disk"), unix.S_IFBLK|0o600, 8, 17); err != nil {
			t.Fatal(err)
		}
	}
	if root {
		if err := os.Chmod(filepath.Join(dir, "null"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := WalkDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := tr.Lookup("fifo"); n == nil || n.Type != TypeFIFO || n.Mode != 0o640 || n.Size != 0 {
		t.Errorf("fifo: %+v", n)
	}
	if n := tr.Lookup("sock"); n == nil || n.Type != TypeSocket {
		t.Errorf("socket: %+v", n)
	}
	if !root {
		t.Log("not root: device nodes not tested")
		return
	}
	if n := tr.Lookup("null"); n.Type != TypeChar || Major(n.Rdev) != 1 || Minor(n.Rdev) != 3 || n.Mode != 0o666 {
		t.Errorf("char device: type %v rdev %d,%d mode %o", n.Type, Major(n.Rdev), Minor(n.Rdev), n.Mode)
	}
	if n := tr.Lookup("disk"); n.Type != TypeBlock || Major(n.Rdev) != 8 || Minor(n.Rdev) != 17 {
		t.Errorf("block device: type %v rdev %d,%d", n.Type, Major(n.Rdev), Minor(n.Rdev))
	}
	// os.DirFS gives the same through FileInfo.Sys.
	f, err := FromFS(os.DirFS(dir), ".", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := f.Lookup("disk"); n.Type != TypeBlock || Major(n.Rdev) != 8 || Minor(n.Rdev) != 17 {
		t.Errorf("FromFS block device: type %v rdev %d,%d", n.Type, Major(n.Rdev), Minor(n.Rdev))
	}
}

// TestWalkDirWorkers checks that the tree WalkDir builds is the same with
// one goroutine and with several, run after run.
func TestWalkDirWorkers(t *testing.T) {
	// not parallel: it sets the package variable walkWorkers.
	dir := t.TempDir()
	for i := range 40 {
		for j := range i % 5 {
			mkfile(t, dir, fmt.Sprintf("d%02d/s%d/f%d", i, j, i*j), strings.Repeat("x", i*j))
		}
		mkfile(t, dir, fmt.Sprintf("d%02d/file", i), "f")
	}
	if err := os.Link(filepath.Join(dir, "d03/file"), filepath.Join(dir, "d39/hard")); err != nil {
		t.Fatal(err)
	}
	dump := func() string {
		tr, err := WalkDir(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		tr.Walk(func(p string, n *Node) error {
			hl := ""
			if n.HardLink != nil {
				hl = n.HardLink.Path()
			}
			fmt.Fprintf(&b, "%s %v %o %d %d %q %q\n", p, n.Type, n.Mode, n.Size, n.Nlink, hl, n.SourcePath)
			return nil
		})
		return b.String()
	}
	old := walkWorkers
	defer func() { walkWorkers = old }()
	walkWorkers = 1
	want := dump()
	for _, w := range []int{2, 4, 8} {
		walkWorkers = w
		for range 5 {
			if got := dump(); got != want {
				t.Fatalf("%d workers: tree differs from one worker's:\n%s\nwant:\n%s", w, got, want)
			}
		}
	}
}

// TestWalkDirFirstError checks that of several failing entries WalkDir
// reports the first in walk order, whatever the number of workers: three
// chains of directories deeper than MaxPath, under "a", "b" and "c".
func TestWalkDirFirstError(t *testing.T) {
	// not parallel: it sets the package variable walkWorkers.
	dir := t.TempDir()
	for _, top := range []string{"b", "a", "c"} {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		name := top
		for depth := 0; depth < 40; depth++ {
			if err := unix.Mkdirat(fd, name, 0o755); err != nil {
				t.Fatal(err)
			}
			nfd, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
			unix.Close(fd)
			if err != nil {
				t.Fatal(err)
			}
			fd, name = nfd, strings.Repeat(top, 200)
		}
		unix.Close(fd)
	}
	old := walkWorkers
	defer func() { walkWorkers = old }()
	for _, w := range []int{1, 4} {
		walkWorkers = w
		for range 5 {
			_, err := WalkDir(dir, nil)
			// The chains pass fstree.MaxPath before the host's PATH_MAX.
			if !errors.Is(err, ErrPathTooLong) || !strings.HasPrefix(err.Error(), ErrPathTooLong.Error()+": a/") {
				t.Fatalf("%d workers: error %v, want one under %s", w, err, filepath.Join(dir, "a"))
			}
		}
	}
}
