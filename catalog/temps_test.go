package catalog

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
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
