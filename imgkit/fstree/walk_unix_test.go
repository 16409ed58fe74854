//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package fstree

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestWalkDirSpecialFiles(t *testing.T) {
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
