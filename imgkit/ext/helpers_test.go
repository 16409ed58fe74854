package ext

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// refMke2fs is the reference mke2fs that tests run, with its
// configuration beside it.
const refMke2fs = "mke2fs-1.47.4"

// refDebugfs is the reference debugfs that tests run.
const refDebugfs = "debugfs-1.47.4"

// debugfs runs the reference debugfs on img with the commands cmds (one
// a line, through -f), writing with w, and returns its output.
func debugfs(t *testing.T, img string, w bool, cmds ...string) string {
	t.Helper()
	bin := tooltest.Need(t, refDebugfs)
	script := filepath.Join(t.TempDir(), "cmds")
	if err := os.WriteFile(script, []byte(strings.Join(cmds, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-f", script, img}
	if w {
		args = append([]string{"-w"}, args...)
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("debugfs %s: %v\n%s", strings.Join(cmds, "; "), err, out)
	}
	return string(out)
}

// testEpoch is the SOURCE_DATE_EPOCH of the images tests make.
const testEpoch = 1700000000

// manyEntries is how many files the tree's large directory holds.
const manyEntries = 3000

// mkTree makes the source tree the reader tests read back: small, empty,
// large and sparse files, 255-byte and UTF-8 names, symbolic links of
// 59, 60 and 61 bytes, hard links, a directory of manyEntries files, a
// FIFO and, as root, devices.
func mkTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "src")
	write := func(name string, data []byte, mode os.FileMode) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	big := make([]byte, 200_000)
	for i := range big {
		big[i] = byte(i*7 + i>>9)
	}
	write("a.txt", []byte("hello\n"), 0o644)
	write("empty", nil, 0o600)
	write("big.bin", big, 0o644)
	write("tiny", []byte("inline me"), 0o640)
	write("ro", []byte("read only"), 0o444)
	write("x.sh", []byte("#!/bin/sh\n"), 0o755)
	write(strings.Repeat("n", 255), []byte("long name"), 0o644)
	write("Ünïcødé 𝄞.txt", []byte("utf-8"), 0o644)
	write("dir/sub/deep.txt", []byte("deep"), 0o644)
	write("dir/hard1", []byte("linked twice"), 0o644)
	if err := os.Link(filepath.Join(dir, "dir/hard1"), filepath.Join(dir, "hard2")); err != nil {
		t.Fatal(err)
	}
	sp, err := os.Create(filepath.Join(dir, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{0, 3 << 20} {
		if _, err := sp.WriteAt(bytes.Repeat([]byte{0xab}, 5000), off); err != nil {
			t.Fatal(err)
		}
	}
	if err := sp.Truncate(5 << 20); err != nil {
		t.Fatal(err)
	}
	sp.Close()
	for _, n := range []int{59, 60, 61} {
		target := strings.Repeat("t", n-4) + "/end"
		if err := os.Symlink(target, filepath.Join(dir, fmt.Sprintf("l%d", n))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("dir/sub", filepath.Join(dir, "tosub")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "many"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range manyEntries {
		if err := os.WriteFile(filepath.Join(dir, "many", fmt.Sprintf("entry-%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tooltest.Mkfifo(t, filepath.Join(dir, "fifo"))
	tooltest.Mknod(t, filepath.Join(dir, "tty"), true, 0o620, 4, 1)
	tooltest.Mknod(t, filepath.Join(dir, "disk"), false, 0o660, 259, 300)
	return dir
}

// mke2fs makes an image of src with the mke2fs named tool (the reference
// with its configuration, or the system's) and the arguments args, and
// returns its path.
func mke2fs(t *testing.T, tool, src, size string, args ...string) string {
	t.Helper()
	return mke2fsAt(t, filepath.Join(t.TempDir(), "ext.img"), tool, src, size, args...)
}

// mke2fsAt is mke2fs making the image at img.
func mke2fsAt(t *testing.T, img, tool, src, size string, args ...string) string {
	t.Helper()
	bin := tooltest.Need(t, tool)
	all := append([]string{"-q", "-F", "-U", "6b33f6a2-4bd5-4fb1-9ba5-2c4f3a0d1e77", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"}, args...)
	if src != "" {
		all = append(all, "-d", src)
	}
	all = append(all, img, size)
	cmd := exec.Command(bin, all...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("SOURCE_DATE_EPOCH=%d", testEpoch), "E2FSPROGS_FAKE_TIME=")
	if tool == refMke2fs {
		cmd.Env = append(cmd.Env, "MKE2FS_CONFIG="+filepath.Join(filepath.Dir(bin), "mke2fs-1.47.4.conf"))
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", tool, strings.Join(all, " "), err, out)
	}
	return img
}

// openImage opens the image file at path with OpenReader.
func openImage(t *testing.T, path string) *ReadCloser {
	t.Helper()
	rc, err := OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close() })
	return rc
}

// checkAgainstTree compares every path of the source tree src with the
// image: type and permission bits, sizes, contents, link targets, device
// numbers and hard links; and that the image holds nothing else but
// lost+found. With ref, times must be clamped to testEpoch as 1.47.1 and
// later clamp them; with holeLost, a file may end at its last data block,
// as mke2fs 1.47.4 -O inline_data writes a file that ends in a hole.
func checkAgainstTree(t *testing.T, f *FS, src string, ref, holeLost bool) {
	t.Helper()
	inoOf := map[uint64]uint32{} // source inode → image inode
	seen := map[string]bool{".": true}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		seen[rel] = true
		want, err := os.Lstat(p)
		if err != nil {
			return err
		}
		got, err := f.Lstat(rel)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		if got.Mode() != want.Mode() {
			t.Errorf("%s: mode %v, want %v", rel, got.Mode(), want.Mode())
		}
		in := got.Sys().(*Inode)
		hostIno, hostRdev := hostNumbers(want)
		if prev, ok := inoOf[hostIno]; ok && prev != in.Ino {
			t.Errorf("%s: inode %d, want %d (a hard link)", rel, in.Ino, prev)
		}
		inoOf[hostIno] = in.Ino
		if ref && in.Mtime.Unix() != min(want.ModTime().Unix(), testEpoch) {
			t.Errorf("%s: mtime %v, want %v clamped to %d", rel, in.Mtime, want.ModTime(), testEpoch)
		}
		switch {
		case want.Mode().IsRegular():
			wb, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if holeLost && got.Size() < want.Size() && !bytes.ContainsFunc(wb[got.Size():], func(r rune) bool { return r != 0 }) {
				wb = wb[:got.Size()]
			}
			if got.Size() != int64(len(wb)) {
				t.Errorf("%s: size %d, want %d", rel, got.Size(), want.Size())
			}
			gb, err := f.ReadFile(rel)
			if err != nil {
				t.Errorf("%s: %v", rel, err)
			} else if !bytes.Equal(gb, wb) {
				t.Errorf("%s: contents differ", rel)
			}
		case want.Mode()&fs.ModeSymlink != 0:
			wt, _ := os.Readlink(p)
			gt, err := f.ReadLink(rel)
			if err != nil || gt != wt {
				t.Errorf("%s: link target %q, %v, want %q", rel, gt, err, wt)
			}
		case want.Mode()&fs.ModeDevice != 0:
			if maj, mnr := fstree.Major(hostRdev), fstree.Minor(hostRdev); in.Major != maj || in.Minor != mnr {
				t.Errorf("%s: device %d,%d, want %d,%d", rel, in.Major, in.Minor, maj, mnr)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = fs.WalkDir(f, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n++
		if !seen[p] && p != "lost+found" {
			t.Errorf("image holds %s, which the source does not", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < len(seen) {
		t.Errorf("walked %d paths, want at least the source's %d", n, len(seen))
	}
}

// buildInPlace returns the image of src that Write builds in place, into
// a section of a memory disk (the path a disk's partition takes).
func buildInPlace(t *testing.T, src fstree.Source, o *Options) []byte {
	t.Helper()
	disk, err := bcache.CreateMemory(o.Size, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(disk.Section(0, o.Size), src, o); err != nil {
		t.Fatal(err)
	}
	if err := disk.Commit(); err != nil {
		t.Fatal(err)
	}
	return disk.Bytes()
}
