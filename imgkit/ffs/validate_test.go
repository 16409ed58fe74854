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
// sleuthkit, one process of each tool per image: fls -r lists every path
// with its inode number and type, ils -a gives every inode's mode, link
// count, owner and size, and tsk_recover -a extracts every file (and
// symlink target), whose tree must be the source's.
func TestSleuthkit(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"fls", "ils", "tsk_recover"} {
		tooltest.Need(t, tool)
	}
	src := t.TempDir()
	writeTree(t, src, true)
	tree, err := fstree.WalkDir(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Unix(1600000000, 0).UTC()
	for _, v := range []int{1, 2} {
		for _, bs := range []int{4096, 8192, 32768} {
			t.Run(fmt.Sprintf("v%d-b%d", v, bs), func(t *testing.T) {
				t.Parallel()
				img := build(t, src, &Options{Version: v, BSize: bs, FSize: bs / 8, Size: 16 << 20, Timestamp: ts}, bcache.ModeAuto)
				path := filepath.Join(t.TempDir(), "x.img")
				if err := os.WriteFile(path, img, 0o644); err != nil {
					t.Fatal(err)
				}
				f, err := NewReader(bytes.NewReader(img), int64(len(img)))
				if err != nil {
					t.Fatal(err)
				}
				listed, inodes := flsListing(t, path), ilsInodes(t, path)
				paths := 0
				tree.Walk(func(p string, n *fstree.Node) error {
					if p != "." {
						checkSleuthkitEntry(t, f, p, n, listed[p], inodes)
						paths++
					}
					return nil
				})
				if len(listed) != paths {
					t.Errorf("fls -r lists %d paths, the tree has %d", len(listed), paths)
				}
				checkRecovered(t, path, src, tree)
			})
		}
	}
}

// flsEntry is a line of fls -r -p: the name's type and the inode's (the
// letters before and after the slash) and the inode number.
type flsEntry struct{ types, ino string }

// flsListing runs fls -r -p on the image and returns its entries by path,
// leaving out sleuthkit's virtual $OrphanFiles directory.
func flsListing(t *testing.T, img string) map[string]flsEntry {
	t.Helper()
	out, err := exec.Command("fls", "-r", "-p", img).Output()
	if err != nil {
		t.Fatalf("fls: %v", err)
	}
	listed := map[string]flsEntry{}
	for _, line := range strings.Split(string(out), "\n") {
		head, name, ok := strings.Cut(line, "\t")
		fields := strings.Fields(head)
		if !ok || len(fields) < 2 || name == "$OrphanFiles" {
			continue
		}
		listed[name] = flsEntry{fields[0], strings.TrimSuffix(fields[len(fields)-1], ":")}
	}
	return listed
}

// ilsInode is what ils prints of an inode.
type ilsInode struct{ mode, nlink, uid, gid, size string }

// ilsInodes runs ils -a on the image and returns the allocated inodes by
// number. Its columns are named on its third line (st_ino|st_alloc|...).
func ilsInodes(t *testing.T, img string) map[string]ilsInode {
	t.Helper()
	out, err := exec.Command("ils", "-a", img).Output()
	if err != nil {
		t.Fatalf("ils: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 3 || lines[2] != "st_ino|st_alloc|st_uid|st_gid|st_mtime|st_atime|st_ctime|st_crtime|st_mode|st_nlink|st_size" {
		t.Fatalf("ils: unexpected output\n%.600s", out)
	}
	inodes := map[string]ilsInode{}
	for _, line := range lines[3:] {
		c := strings.Split(line, "|")
		if len(c) != 11 {
			t.Fatalf("ils: line %q", line)
		}
		inodes[c[0]] = ilsInode{mode: c[8], nlink: c[9], uid: c[2], gid: c[3], size: c[10]}
	}
	return inodes
}

// checkSleuthkitEntry checks what fls and ils say of path p against the
// source node n and the inode the reader finds.
func checkSleuthkitEntry(t *testing.T, f *FS, p string, n *fstree.Node, e flsEntry, inodes map[string]ilsInode) {
	t.Helper()
	in, err := f.Inode(p)
	if err != nil {
		t.Fatal(err)
	}
	letter := istatMode(n)[:1]
	if e.ino != fmt.Sprint(in.Ino) || e.types != letter+"/"+letter {
		t.Errorf("fls: %s is %q inode %q, want %s/%s inode %d", p, e.types, e.ino, letter, letter, in.Ino)
	}
	got, ok := inodes[e.ino]
	want := ilsInode{mode: fmt.Sprintf("%o", n.Mode&0o7777), nlink: fmt.Sprint(n.Nlink), uid: fmt.Sprint(n.UID), gid: fmt.Sprint(n.GID), size: got.size}
	if n.Type == fstree.TypeFile || n.Type == fstree.TypeSymlink {
		want.size = fmt.Sprint(n.Size)
	}
	if !ok || got != want {
		t.Errorf("ils: %s (inode %s) is %+v, want %+v", p, e.ino, got, want)
	}
}

// checkRecovered extracts the image with tsk_recover -a and checks that it
// gives back every non-empty regular file of the source with its contents
// and nothing else but the symlinks, as files of their targets' length
// (sleuthkit reads a target kept in the inode as zeros; it skips empty
// files, whose size ils has checked).
func checkRecovered(t *testing.T, img, src string, tree *fstree.Tree) {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("tsk_recover", "-a", img, dir).CombinedOutput(); err != nil {
		t.Fatalf("tsk_recover: %v\n%s", err, out)
	}
	want := map[string]*fstree.Node{}
	tree.Walk(func(p string, n *fstree.Node) error {
		if n.Type == fstree.TypeFile && n.Size > 0 || n.Type == fstree.TypeSymlink {
			want[p] = n
		}
		return nil
	})
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		n, ok := want[rel]
		delete(want, rel)
		got, err := os.ReadFile(p)
		switch {
		case !ok || err != nil:
			t.Errorf("tsk_recover: %s: not a file or symlink of the source, or unreadable (%v)", rel, err)
		case n.Type == fstree.TypeSymlink:
			if len(got) != len(n.Link) {
				t.Errorf("tsk_recover: symlink %s: %d bytes, want %d", rel, len(got), len(n.Link))
			}
		default:
			if source, err := os.ReadFile(filepath.Join(src, rel)); err != nil || !bytes.Equal(got, source) {
				t.Errorf("tsk_recover: %s: contents differ from the source's (%v)", rel, err)
			}
		}
		return nil
	})
	for p := range want {
		t.Errorf("tsk_recover did not recover %s", p)
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
