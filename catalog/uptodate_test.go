package catalog

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestUpToDateRule builds a catalogue, makes one change and builds it
// again, and checks which entries the second build runs: what the package
// doc's "Up to date" section says counts (the command line, each kind of
// input, the output itself, the generator) rebuilds exactly the entries it
// reaches, and what it says does not count (a comment or another entry's
// line in the manifest, an input's access time, Options.Hash toggled,
// Options.Jobs) rebuilds nothing. Entry b reads a's output, which counts by
// its sum: a rebuilt to the same bytes leaves b alone.
func TestUpToDateRule(t *testing.T) {
	// not parallel: the generator row replaces the package's generator
	// before the other rows start.
	const manifest = "a: concat a x\nb: concat b a\nc: write c hello\nd: tree d dir\ne: maybe e opt\nf: concat f link\n"
	old := time.Unix(946_684_800, 0) // 2000-01-01
	mtime := time.Unix(1_700_000_000, 0)
	editManifest := func(from, to string) func(*testing.T, string) {
		return func(t *testing.T, dir string) {
			t.Helper()
			p := filepath.Join(dir, ManifestName)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), from) {
				t.Fatalf("the manifest has no %q", from)
			}
			if err := os.WriteFile(p, []byte(strings.Replace(string(data), from, to, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write := func(name, data string) func(*testing.T, string) {
		return func(t *testing.T, dir string) {
			t.Helper()
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	all := []string{"a", "b", "c", "d", "e", "f"}
	for _, tc := range []struct {
		name         string
		change       func(t *testing.T, dir string)
		hash1, hash2 bool // Options.Hash of the first and the second build
		jobs2        int  // Options.Jobs of the second build (the first's is 1)
		generator    bool // the second build runs under another generator
		built        []string
		warns        []string // entries whose result warns that the output changed
	}{
		{name: "nothing changed"},
		{name: "an entry's command line, and the entry that reads its output", change: editManifest("concat a x\n", "concat a x x\n"), built: []string{"a", "b"}},
		{name: "another entry's line rebuilds only that entry", change: editManifest("write c hello\n", "write c hello there\n"), built: []string{"c"}},
		{name: "a comment line in the manifest", change: editManifest("c: write", "# a comment\n\nc: write")},
		{name: "the output rebuilt to the same bytes leaves its reader alone", change: editManifest("concat a x\n", "concat a y\n"), built: []string{"a"}},
		{name: "input file's contents", change: write("x", "x longer\n"), built: []string{"a", "b"}},
		{name: "input file's contents, with -hash", change: write("x", "x longer\n"), hash1: true, hash2: true, built: []string{"a", "b"}},
		{name: "input file's modification time", change: func(t *testing.T, dir string) {
			if err := os.Chtimes(filepath.Join(dir, "x"), old, mtime.Add(time.Second)); err != nil {
				t.Fatal(err)
			}
		}, built: []string{"a"}},
		{name: "input file's modification time, with -hash", change: func(t *testing.T, dir string) {
			if err := os.Chtimes(filepath.Join(dir, "x"), old, mtime.Add(time.Second)); err != nil {
				t.Fatal(err)
			}
		}, hash1: true, hash2: true},
		{name: "input file's mode", change: func(t *testing.T, dir string) {
			if runtime.GOOS == "windows" {
				t.Skip("no execute bit")
			}
			if err := os.Chmod(filepath.Join(dir, "x"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, built: []string{"a"}},
		{name: "input file's access time", change: func(t *testing.T, dir string) {
			// The first build read x after recording what it saw, and
			// this reads it again: its access time is new (set back
			// before the first build, so that relatime updates it).
			p := filepath.Join(dir, "x")
			if _, err := os.ReadFile(p); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if at, ok := accessTime(fi); !ok || !at.After(old) {
				t.Skipf("reading a file does not change its access time here (%v, %t)", at, ok)
			}
		}},
		{name: "a file added under an input directory", change: write("dir/g", "g\n"), built: []string{"d"}},
		{name: "a file under an input directory", change: write("dir/f", "f longer\n"), built: []string{"d"}},
		{name: "an absent optional input appears", change: write("opt", "here\n"), built: []string{"e"}},
		{name: "an input link retargeted", change: func(t *testing.T, dir string) {
			p := filepath.Join(dir, "link")
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("t2", p); err != nil {
				t.Fatal(err)
			}
		}, built: []string{"f"}},
		{name: "the output edited", change: write("c", "edited\n"), built: []string{"c"}, warns: []string{"c"}},
		{name: "the generator", generator: true, built: all},
		{name: "-hash turned on", hash2: true},
		{name: "-hash turned off", hash1: true},
		{name: "-j", jobs2: 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.generator {
				t.Parallel()
			}
			c := newCatalog(t, map[string]string{ManifestName: manifest, "x": "x\n", "y": "x\n", "dir/f": "f\n", "t1": "t\n", "t2": "t\n"})
			if err := os.Symlink("t1", filepath.Join(c.Dir, "link")); err != nil {
				t.Skipf("no symbolic links: %v", err)
			}
			if err := os.Chtimes(filepath.Join(c.Dir, "x"), old, mtime); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Build(context.Background(), &Options{Runner: &fakeRunner{}, Update: true, Hash: tc.hash1, Jobs: 1}); err != nil {
				t.Fatalf("first build: %v", err)
			}
			if tc.change != nil {
				tc.change(t, c.Dir)
			}
			if tc.generator {
				old := generator
				defer func() { generator = old }()
				generator = func() string { return "exe sha256:another" }
			}
			c2, err := Load(c.Dir)
			if err != nil {
				t.Fatal(err)
			}
			res, err := c2.Build(context.Background(), &Options{Runner: &fakeRunner{}, Update: true, Hash: tc.hash2, Jobs: max(tc.jobs2, 1)})
			if err != nil {
				t.Fatalf("second build: %v", err)
			}
			var built, warns []string
			for _, r := range res.Entries {
				if r.Status == Built {
					built = append(built, r.Entry.Name)
				}
				if slices.ContainsFunc(r.Errors, func(s string) bool { return strings.Contains(s, "not the file the last build wrote") }) {
					warns = append(warns, r.Entry.Name)
				}
			}
			slices.Sort(built)
			if !slices.Equal(built, tc.built) {
				t.Errorf("rebuilt %q, want %q", built, tc.built)
			}
			if !slices.Equal(warns, tc.warns) {
				t.Errorf("warned that the output changed for %q, want %q", warns, tc.warns)
			}
		})
	}
}
