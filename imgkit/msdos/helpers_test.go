package msdos

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// baseTime is the mtime test trees get: an odd second, to exercise the
// 2-second rounding.
var baseTime = time.Date(2021, 6, 15, 13, 45, 31, 0, time.UTC)

// srcFile describes one file of a test source tree; a name ending in "/"
// is a directory.
type srcFile struct {
	name  string
	size  int
	mode  os.FileMode
	mtime time.Time // zero: baseTime plus 3 s per position in the list
}

// makeSource creates the files under dir, with deterministic contents
// and times. Directories are created implicitly too.
func makeSource(t testing.TB, dir string, files []srcFile) {
	t.Helper()
	for i, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if strings.HasSuffix(f.name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := f.mode
		if mode == 0 {
			mode = 0o644
		}
		if err := os.WriteFile(p, content(f.name, f.size), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		mt := f.mtime
		if mt.IsZero() {
			mt = baseTime.Add(time.Duration(i) * 3 * time.Second)
		}
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	// Directory times last, deepest first, since creating files changes them.
	var dirs []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Chtimes(dirs[i], baseTime, baseTime)
	}
}

// content is the deterministic content of a test file.
func content(name string, size int) []byte {
	r := rand.New(rand.NewPCG(uint64(len(name)), uint64(size)))
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	copy(b, name)
	return b
}

// sampleFiles is a tree with long names, lossy names, nested directories,
// an empty file, a read-only file and files spanning many clusters.
func sampleFiles() []srcFile {
	files := []srcFile{
		{name: "README.TXT", size: 100},
		{name: "readme.md", size: 5000},
		{name: "A Long File Name.text", size: 70000},
		{name: "empty", size: 0},
		{name: "ro.bin", size: 3000, mode: 0o444},
		{name: "dir1/sub dir/deep/file.c", size: 1234},
		{name: "dir1/x.y.z", size: 1},
		{name: "emptydir/"},
		{name: "Ünïcödé ☃ 𝄞.txt", size: 10},
		{name: "+plus;semi=eq[1].txt", size: 20},
		{name: ".hidden", size: 30},
	}
	for i := 0; i < 12; i++ {
		files = append(files, srcFile{name: fmt.Sprintf("many/longfilename%02d.dat", i), size: i * 700})
	}
	return files
}

// buildTree makes a source tree in a temp dir and walks it.
func buildTree(t testing.TB, files []srcFile) (string, *fstree.Tree) {
	t.Helper()
	dir := t.TempDir()
	makeSource(t, dir, files)
	tr, err := fstree.WalkDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dir, tr
}

// writeImage writes tree tr with o to a temp image and returns its path.
func writeImage(t testing.TB, tr *fstree.Tree, o *Options) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "fat.img")
	if err := WriteFile(img, tr, o); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return img
}

// fsckClean runs fsck.fat -n on img and fails unless it exits 0 with
// nothing to fix.
func fsckClean(t testing.TB, img string) {
	t.Helper()
	fsck := tooltest.Need(t, "fsck.fat")
	out, err := exec.Command(fsck, "-n", "-v", img).CombinedOutput()
	if err != nil {
		t.Fatalf("fsck.fat -n %s: %v\n%s", img, err, out)
	}
	// FSI_Free_Count unknown (0xFFFFFFFF), as FreeBSD's makefs leaves it,
	// is legal (fatgen103); fsck.fat mentions it. A wrong count is a fault.
	checked := bytes.ReplaceAll(out, []byte("Free cluster summary uninitialized"), nil)
	for _, bad := range []string{"Fix?", "differ", "Free cluster summary", "Auto-rename", "marked as free", "bad name"} {
		if bytes.Contains(checked, []byte(bad)) {
			t.Fatalf("fsck.fat -n %s reports a problem (%q):\n%s", img, bad, out)
		}
	}
}
