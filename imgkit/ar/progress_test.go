package ar

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// TestCommitProgress checks that EditOptions.Progress counts what Commit
// writes: every byte of the new archive, which it writes once.
func TestCommitProgress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big"), bytes.Repeat([]byte("member"), 50000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "odd"), []byte("odd"), 0o644); err != nil {
		t.Fatal(err)
	}
	var n progress.Meter
	a, err := OpenArchive("lib.a", &EditOptions{Dir: dir, Progress: &n})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Replace("big", "odd"); err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "lib.a"))
	if err != nil {
		t.Fatal(err)
	}
	if n.Count() != fi.Size() {
		t.Errorf("Progress = %d, want the archive's %d bytes", n.Count(), fi.Size())
	}
}
