package catalog

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestBuildRemovesLeftovers checks that a build removes the temporary
// files that a killed run left in the catalogue folder and beside the
// outputs, says so in one line with their count and size, and leaves
// every other file alone, also one that looks like an older writer's
// temporary file.
func TestBuildRemovesLeftovers(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{
		ManifestName: "a: write a x\nsub/b: write sub/b y\n",
		"sub/.keep":  "", "keep.txt": "", "other/" + tmpPrefix + "c-1": "",
	})
	if _, err := c.Build(context.Background(), &Options{Runner: &fakeRunner{}}); err != nil {
		t.Fatal(err)
	}
	left := map[string]int{
		tmpPrefix + "a-0123456789ab":          1 << 20,
		tmpPrefix + "a-0123456789ab-42":       1 << 20,
		"sub/" + tmpPrefix + "b-0123456789ab": 0,
		tmpPrefix + SumName + "-7":            100,
		".a.tmp-1":                            1,
	}
	for f, n := range left {
		if err := os.WriteFile(filepath.Join(c.Dir, filepath.FromSlash(f)), make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rec := &recorder{}
	if _, err := c.Build(context.Background(), &Options{Runner: &fakeRunner{}, Reporter: rec}); err != nil {
		t.Fatal(err)
	}
	want := []string{"build: removed 4 temporary files of a killed build (2.0 MiB): " +
		tmpPrefix + "a-0123456789ab, " + tmpPrefix + "a-0123456789ab-42, " + tmpPrefix + SumName + "-7 and 1 more"}
	if !reflect.DeepEqual(rec.msgs, want) {
		t.Errorf("messages %q, want %q", rec.msgs, want)
	}
	wantFiles := []string{".a.tmp-1", LockName, StateName, "a", SumName, "keep.txt", ManifestName,
		"other", "other/" + tmpPrefix + "c-1", "sub", "sub/.keep", "sub/b"}
	if got := listFiles(t, c.Dir); !reflect.DeepEqual(got, wantFiles) {
		t.Errorf("after the build: %q, want %q", got, wantFiles)
	}
	rec = &recorder{}
	if _, err := c.Build(context.Background(), &Options{Runner: &fakeRunner{}, Reporter: rec}); err != nil {
		t.Fatal(err)
	}
	for _, m := range rec.msgs {
		if strings.Contains(m, "removed") {
			t.Errorf("a build after a clean one says %q", m)
		}
	}
}

// TestBuildTreesHoldingOutputs checks that an input folder holding the
// catalogue folder or an output fails its entry with one line naming the
// manifest line and the folder, as written or through a symbolic link,
// while an output named as an input is a dependency and a folder beside
// the outputs is fine.
func TestBuildTreesHoldingOutputs(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{
		ManifestName: "a: concat a in/x\n" + // fine
			"out/b: concat out/b a\n" + // a named as an input
			"c: concat c out\n" + // out holds out/b
			"d: concat d link\n" + // link leads to the catalogue folder
			"e: concat e ../" + "\n", // the folder above the catalogue
		"in/x": "x\n", "out/.keep": "",
	})
	if err := os.Symlink(".", filepath.Join(c.Dir, "link")); err != nil {
		t.Fatal(err)
	}
	_, err := c.Build(context.Background(), &Options{Runner: &fakeRunner{}})
	var me *ManifestError
	if !errors.As(err, &me) {
		t.Fatalf("Build: %v, want a *ManifestError", err)
	}
	want := []string{
		"manifest:3: c: the input folder out holds out/b, the output of manifest:2: name that output as an input, or move it out of the folder",
		"manifest:4: d: the input folder link holds the catalogue's own files (manifest, fixtures.sum, .fixturegen-state, .fixturegen-tmp-*), which change with every build: give a folder of inputs",
		"manifest:5: e: the input folder .. holds the catalogue's own files (manifest, fixtures.sum, .fixturegen-state, .fixturegen-tmp-*), which change with every build: give a folder of inputs",
	}
	if !slices.Equal(me.Problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(me.Problems, "\n"), strings.Join(want, "\n"))
	}
	// Nothing ran: not even the entries that were fine, nor the one
	// whose output a folder holds.
	for _, n := range []string{"a", "out/b", "c"} {
		if _, err := os.Lstat(filepath.Join(c.Dir, filepath.FromSlash(n))); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want it not written", n, err)
		}
	}
}
