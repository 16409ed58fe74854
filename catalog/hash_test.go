package catalog

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestBuildHashToggle builds one catalogue with and without Options.Hash in
// turn and checks which entries each build runs: a build whose state was
// written without Hash finds unchanged inputs up to date with Hash and
// records their contents, one written with Hash finds them up to date
// without it and keeps their contents, even when it rebuilds the entry
// for another input, new times with the same contents rebuild only without
// Hash,
// and new contents with the size and modification time set back rebuild
// with Hash, and without it only where the change time counts (Linux).
func TestBuildHashToggle(t *testing.T) {
	c := newCatalog(t, map[string]string{ManifestName: "a: concat a x\nb: concat b y z\n", "x": "x1\n", "y": "y1\n", "z": "z\n"})
	t.Parallel()
	mtime := time.Unix(1_700_000_000, 0)
	setTime := func(name string, tm time.Time) {
		t.Helper()
		if err := os.Chtimes(filepath.Join(c.Dir, name), tm, tm); err != nil {
			t.Fatal(err)
		}
	}
	touch := func(name string) func() {
		return func() { mtime = mtime.Add(time.Second); setTime(name, mtime) }
	}
	// rewrite gives name new contents of the same size and sets its
	// modification time back.
	rewrite := func(name, data string) func() {
		return func() {
			p := filepath.Join(c.Dir, name)
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			setTime(name, fi.ModTime())
		}
	}
	// Where the change time counts, a plain build sees y's rewrite
	// and the -hash build after it has nothing left to do.
	plainSees, hashSees := []string(nil), []string{"b"}
	if runtime.GOOS == "linux" {
		plainSees, hashSees = hashSees, plainSees
	}
	setTime("x", mtime)
	setTime("y", mtime)
	setTime("z", mtime)
	for i, step := range []struct {
		what   string
		change func()
		hash   bool
		built  []string
	}{
		{"first build", nil, false, []string{"a", "b"}},
		{"-hash after a plain build", nil, true, nil},
		{"plain after -hash", nil, false, nil},
		{"-hash, x touched after a plain build", touch("x"), true, nil},
		{"plain, y touched", touch("y"), false, []string{"b"}},
		{"-hash, b's other input touched after that plain rebuild", touch("z"), true, nil},
		{"-hash again", nil, true, nil},
		{"-hash, x touched", touch("x"), true, nil},
		{"plain after -hash saw x's new time", nil, false, nil},
		{"plain, x touched", touch("x"), false, []string{"a"}},
		{"-hash after a plain rebuild", nil, true, nil},
		{"-hash, x rewritten with its size and time", rewrite("x", "x2\n"), true, []string{"a"}},
		{"plain, y rewritten with its size and time", rewrite("y", "y2\n"), false, plainSees},
		{"-hash after that", nil, true, hashSees},
		{"plain, x's size changed", rewrite("x", "x3 longer\n"), false, []string{"a"}},
		{"-hash, y's size changed", rewrite("y", "y3 longer\n"), true, []string{"b"}},
		{"plain at the end", nil, false, nil},
		{"-hash at the end", nil, true, nil},
	} {
		if step.change != nil {
			step.change()
		}
		rec := &recorder{}
		res, err := c.Build(context.Background(), &Options{Runner: &fakeRunner{}, Reporter: rec, Hash: step.hash, Update: true, Jobs: 1})
		if err != nil {
			t.Fatalf("step %d, %s: %v", i+1, step.what, err)
		}
		var built []string
		for _, r := range res.Entries {
			if r.Status == Built {
				built = append(built, r.Entry.Name)
			}
		}
		if !slices.Equal(built, step.built) {
			t.Errorf("step %d, %s: built %q, want %q", i+1, step.what, built, step.built)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(c.Dir, "a")); string(b) != "x3 longer\n" {
		t.Errorf("a holds %q at the end", b)
	}
}
