package ffs

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestSleuthkit checks images of both versions at three block sizes with
// sleuthkit: fls -r lists every path with its inode number, icat gives
// back every file, istat shows the size and link count.
func TestSleuthkit(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "fls")
	tooltest.Need(t, "icat")
	tooltest.Need(t, "istat")
	src := t.TempDir()
	writeTree(t, src, true)
	ts := time.Unix(1600000000, 0).UTC()
	for _, v := range []int{1, 2} {
		for _, bs := range []int{4096, 8192, 32768} {
			t.Run(fmt.Sprintf("v%d-b%d", v, bs), func(t *testing.T) {
				img := build(t, src, &Options{Version: v, BSize: bs, FSize: bs / 8, Size: 16 << 20, Timestamp: ts}, bcache.ModeAuto)
				path := filepath.Join(t.TempDir(), "x.img")
				os.WriteFile(path, img, 0o644)
				f, err := Open(bytes.NewReader(img), int64(len(img)))
				if err != nil {
					t.Fatal(err)
				}
				out, err := exec.Command("fls", "-r", "-p", path).Output()
				if err != nil {
					t.Fatalf("fls: %v", err)
				}
				listed := map[string]string{}
				for _, line := range strings.Split(string(out), "\n") {
					if i := strings.IndexByte(line, '\t'); i > 0 {
						fields := strings.Fields(line[:i])
						listed[line[i+1:]] = strings.TrimSuffix(fields[len(fields)-1], ":")
					}
				}
				tree, _ := fstree.WalkDir(src, nil)
				tree.Walk(func(p string, n *fstree.Node) error {
					if p == "." {
						return nil
					}
					in, err := f.Inode(p)
					if err != nil {
						t.Fatal(err)
					}
					if listed[p] != fmt.Sprint(in.Ino) {
						t.Errorf("fls: %s has inode %q, want %d", p, listed[p], in.Ino)
					}
					ist, err := exec.Command("istat", path, fmt.Sprint(in.Ino)).Output()
					if err != nil {
						t.Fatalf("istat %s: %v", p, err)
					}
					if !strings.Contains(string(ist), fmt.Sprintf("num of links: %d\n", n.Nlink)) ||
						!strings.Contains(string(ist), fmt.Sprintf("uid / gid: %d / %d\n", n.UID, n.GID)) ||
						!strings.Contains(string(ist), fmt.Sprintf("mode: %s\n", istatMode(n))) ||
						(n.Type == fstree.TypeFile && !strings.Contains(string(ist), fmt.Sprintf("size: %d\n", n.Size))) {
						t.Errorf("istat %s:\n%s", p, ist)
					}
					if n.Type == fstree.TypeFile {
						got, err := exec.Command("icat", path, fmt.Sprint(in.Ino)).Output()
						want, _ := os.ReadFile(filepath.Join(src, p))
						if err != nil || !bytes.Equal(got, want) {
							t.Errorf("icat %s: contents differ (%v)", p, err)
						}
					}
					return nil
				})
			})
		}
	}
}

// istatMode is the mode as istat prints it: the type letter of the
// directory entry, then ls(1)'s mode string.
func istatMode(n *fstree.Node) string {
	t := map[fstree.Type]string{fstree.TypeFile: "r", fstree.TypeDir: "d", fstree.TypeSymlink: "l", fstree.TypeFIFO: "p",
		fstree.TypeSocket: "h", fstree.TypeChar: "c", fstree.TypeBlock: "b"}[n.Type]
	m := []byte(t + "rwxrwxrwx")
	for i := 0; i < 9; i++ {
		if n.Mode&(1<<(8-i)) == 0 {
			m[1+i] = '-'
		}
	}
	for _, s := range []struct {
		bit uint32
		i   int
		c   byte
	}{{0o4000, 3, 's'}, {0o2000, 6, 's'}, {0o1000, 9, 't'}} {
		if n.Mode&s.bit != 0 {
			if m[s.i] == '-' {
				m[s.i] = s.c - 'a' + 'A'
			} else {
				m[s.i] = s.c
			}
		}
	}
	return string(m)
}

// TestSleuthkitSmallUFS1 records why sleuthkit cannot open UFS1 images
// smaller than 263680 bytes: its ffs_open reads a UFS2 superblock at
// 65536 and, not finding one, at 262144, and gives up when that read comes
// back short, before it tries the UFS1 superblock at 8192. The same bytes
// followed by zeros up to 262144+1536 open; so the image is right and the
// limit is sleuthkit's (4.11.1, tsk/fs/ffs.c).
func TestSleuthkitSmallUFS1(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "fsstat")
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "f"), []byte("hello"), 0o644)
	ts := time.Unix(1600000000, 0).UTC()
	img := build(t, src, &Options{Version: 1, BSize: 4096, FSize: 512, Timestamp: ts}, bcache.ModeAuto)
	if len(img) >= 263680 {
		t.Fatalf("image of %d bytes is not small", len(img))
	}
	path := filepath.Join(t.TempDir(), "small.img")
	os.WriteFile(path, img, 0o644)
	out, err := exec.Command("fsstat", path).CombinedOutput()
	t.Logf("fsstat on %d bytes: %v: %.60s", len(img), err, out)
	padded := append(bytes.Clone(img), make([]byte, 263680-len(img))...)
	os.WriteFile(path, padded, 0o644)
	out, err = exec.Command("fsstat", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "File System Type: UFS 1") {
		t.Fatalf("fsstat on the image padded to %d bytes: %v\n%s", len(padded), err, out)
	}
}

// TestReproducible builds the same tree, created in another order and
// under another umask, in both cache modes and time zones: the bytes
// must not change.
func TestReproducible(t *testing.T) {
	// not parallel: it changes the umask and calls t.Setenv (TZ).
	ts := time.Unix(1600000000, 0).UTC()
	a, b := t.TempDir(), t.TempDir()
	writeTree(t, a, false)
	old := umask(0o077)
	writeTree(t, b, false)
	umask(old)
	// Same permissions, different creation history.
	filepath.Walk(a, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode()&os.ModeSymlink == 0 {
			os.Chmod(filepath.Join(b, strings.TrimPrefix(p, a)), fi.Mode().Perm()|fi.Mode()&os.ModeSetuid)
		}
		return nil
	})
	for _, v := range []int{1, 2} {
		o := &Options{Version: v, Timestamp: ts}
		ref := build(t, a, o, bcache.ModeMmap)
		t.Setenv("TZ", "Asia/Kolkata")
		for _, img := range [][]byte{build(t, a, o, bcache.ModeCopy), build(t, b, o, bcache.ModeMmap), build(t, b, o, bcache.ModeCopy)} {
			if !bytes.Equal(ref, img) {
				t.Fatalf("version %d: images differ", v)
			}
		}
	}
}
