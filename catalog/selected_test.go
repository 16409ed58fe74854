package catalog

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestBuildSelectedReadsOutputs checks that an entry reading another
// entry's output has the same key whether a build selects both entries or
// only the reader: building all, then the reader alone, then all again
// rebuilds nothing, also after the reader alone was forced, while an
// output edited since its build still rebuilds the entry reading it.
func TestBuildSelectedReadsOutputs(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{
		ManifestName: "disk: concat disk part\npart: concat part src\n",
		"src":        "source\n",
	})
	build := func(force bool, names ...string) *Result {
		t.Helper()
		res, err := c.Build(context.Background(), &Options{Runner: &fakeRunner{}, Names: names, Force: force, Update: true, Jobs: 2})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	build(false)
	for _, step := range []struct {
		what  string
		force bool
		names []string
		built int
	}{
		{"the reader alone", false, []string{"disk"}, 0},
		{"all", false, nil, 0},
		{"the reader alone, forced", true, []string{"disk"}, 1},
		{"all after the reader alone", false, nil, 0},
		{"the reader alone again", false, []string{"disk"}, 0},
	} {
		if res := build(step.force, step.names...); res.Built != step.built {
			t.Errorf("%s: %d built, want %d", step.what, res.Built, step.built)
		}
	}
	// The output part, edited since its build, is not what its sum says:
	// the reader alone is rebuilt from it.
	if err := os.WriteFile(filepath.Join(c.Dir, "part"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := build(false, "disk"); res.Built != 1 {
		t.Errorf("an edited output read by the reader alone: %d built, want 1", res.Built)
	}
	if b, _ := os.ReadFile(filepath.Join(c.Dir, "disk")); string(b) != "edited\n" {
		t.Errorf("disk holds %q", b)
	}
}
