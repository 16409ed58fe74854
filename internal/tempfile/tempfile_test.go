package tempfile

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestNames checks that every temporary name follows the one pattern, a
// temporary name given as a target keeps a single prefix, and Is tells
// them from other names.
func TestNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ target, want string }{
		{"out/a.img", ".fixturegen-tmp-a.img-*"},
		{"verify", ".fixturegen-tmp-verify-*"},
		{"out/.fixturegen-tmp-a.img-0123456789ab", ".fixturegen-tmp-a.img-0123456789ab-*"},
	} {
		if got := Pattern(c.target); got != c.want {
			t.Errorf("Pattern(%q) = %q, want %q", c.target, got, c.want)
		}
	}
	n := Name("out/a.img")
	if !regexp.MustCompile(`^out/\.fixturegen-tmp-a\.img-[0-9a-f]{12}$`).MatchString(filepath.ToSlash(n)) || n == Name("out/a.img") {
		t.Errorf("Name = %q, want a fresh .fixturegen-tmp-a.img-HEX beside out/a.img", n)
	}
	for p, want := range map[string]bool{n: true, "out/a.img": false, ".a.img.tmp-1": false, "..fixturegen-tmp-x": false} {
		if Is(p) != want {
			t.Errorf("Is(%q) = %v", p, !want)
		}
	}
}

// TestRemoveTracked checks that RemoveTracked removes the files Create made
// and not yet forgot, and only those.
func TestRemoveTracked(t *testing.T) {
	// Not parallel: the tracked set is the process's.
	dir := t.TempDir()
	kept, err := Create(dir, "kept")
	if err != nil {
		t.Fatal(err)
	}
	kept.Close()
	Forget(kept.Name())
	gone, err := Create(dir, "gone")
	if err != nil {
		t.Fatal(err)
	}
	gone.Close()
	RemoveTracked()
	if _, err := os.Stat(gone.Name()); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want removed", gone.Name(), err)
	}
	if _, err := os.Stat(kept.Name()); err != nil {
		t.Errorf("forgotten file: %v", err)
	}
}

// TestStop checks that Stop removes the tracked files and that nothing is
// made or kept after it: Create fails with ErrStopped and makes no file,
// Track removes its path (fails where a Create racing with the signal
// handler leaves its file).
func TestStop(t *testing.T) {
	// Not parallel: Stop is the process's, and the test undoes it at the
	// end, before the parallel tests resume.
	defer func() {
		live.Lock()
		live.stopped = false
		live.Unlock()
	}()
	dir := t.TempDir()
	before, err := Create(dir, "before")
	if err != nil {
		t.Fatal(err)
	}
	before.Close()
	Stop()
	if _, err := os.Stat(before.Name()); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want removed", before.Name(), err)
	}
	if f, err := Create(dir, "after"); !errors.Is(err, ErrStopped) {
		t.Errorf("Create after Stop: %v, %v; want ErrStopped", f, err)
	}
	tracked := filepath.Join(dir, "tracked")
	if err := os.WriteFile(tracked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	Track(tracked)
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("left after Stop: %v", names)
	}
}
