//go:build unix

package msdos

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

func TestSkipWarnings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	makeSource(t, dir, []srcFile{{name: "file", size: 3}})
	os.Symlink("file", filepath.Join(dir, "link"))
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	os.Link(filepath.Join(dir, "file"), filepath.Join(dir, "hard"))
	tr, err := fstree.WalkDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	img := filepath.Join(t.TempDir(), "w.img")
	if err := WriteFile(img, tr, &Options{Warn: &warn}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"skipping symbolic link link", "skipping fifo fifo", "skipping hard link hard"} {
		if !strings.Contains(warn.String(), w) {
			t.Errorf("warnings %q lack %q", warn.String(), w)
		}
	}
	fsys := openImage(t, img)
	ents, _ := fsys.ReadDir(".")
	if len(ents) != 1 || ents[0].Name() != "file" {
		t.Errorf("root holds %v, want only file", ents)
	}
}
