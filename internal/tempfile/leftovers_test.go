package tempfile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fixturegen/fixturegen/internal/filelock"
)

// TestRemoveLeftovers checks that the next write to a target removes the
// temporary files named for it that no live writer holds (a closed file,
// a directory) and keeps one a writer has open, and the files of other
// targets, and that its line counts and names what it removed.
func TestRemoveLeftovers(t *testing.T) {
	t.Parallel()
	if !filelock.Supported {
		t.Skip("no file locks on this system: nothing can be told stale")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "a.img")
	live, err := os.CreateTemp(dir, Pattern(target))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if ok, err := filelock.TryLock(live); !ok || err != nil {
		t.Fatalf("locking the live file: %v, %v", ok, err)
	}
	dead := filepath.Join(dir, ".fixturegen-tmp-a.img-raw-1")
	other := filepath.Join(dir, ".fixturegen-tmp-b.img-1")
	for _, p := range []string{dead, other} {
		if err := os.WriteFile(p, make([]byte, 2048), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	deadDir := filepath.Join(dir, ".fixturegen-tmp-a.img-2")
	if err := os.Mkdir(deadDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, want := Leftovers(target), []string{dead, deadDir, live.Name()}; !slices.Equal(got, sortedCopy(want)) {
		t.Errorf("Leftovers = %q, want %q", got, sortedCopy(want))
	}
	want := "removed 2 temporary files of a killed run (2.0 KiB): .fixturegen-tmp-a.img-2, .fixturegen-tmp-a.img-raw-1"
	if got := RemoveLeftovers(target); got != want {
		t.Errorf("RemoveLeftovers = %q, want %q", got, want)
	}
	for p, kept := range map[string]bool{live.Name(): true, other: true, dead: false, deadDir: false} {
		if _, err := os.Lstat(p); (err == nil) != kept {
			t.Errorf("%s: %v, want kept %v", filepath.Base(p), err, kept)
		}
	}
	if got := RemoveLeftovers(target); got != "" {
		t.Errorf("RemoveLeftovers again = %q, want nothing", got)
	}
}

// TestCreateLocks checks that a file Create made is held while it is
// open: another open of it cannot take its lock, so no other process's
// next write removes it.
func TestCreateLocks(t *testing.T) {
	t.Parallel()
	if !filelock.Supported {
		t.Skip("no file locks on this system")
	}
	dir := t.TempDir()
	f, err := Create(dir, "c.img")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { f.Close(); os.Remove(f.Name()); Forget(f.Name()) }()
	if r := RemoveStale([]string{f.Name()}); len(r.Paths) != 0 {
		t.Errorf("RemoveStale removed %q, a file Create made and is open", r.Paths)
	}
	if _, err := os.Stat(f.Name()); err != nil {
		t.Error(err)
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
