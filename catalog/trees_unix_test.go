//go:build unix

package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildSourceTreesThroughLinks checks the input folders that hold an
// output or the catalogue folder only once symbolic links are resolved:
// a link to such a folder, a folder reached through a linked parent
// (resolved by its parent's path, not its own), also one that does not
// exist before the run makes it for its output, and a link to the
// catalogue folder each fail their entry, while a folder beside an
// output, reached through the same links, and a folder above the output
// of no entry do not.
func TestBuildSourceTreesThroughLinks(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{
		ManifestName: "out/b.img: write out/b.img x\n" +
			"a.img: tree a.img lnk\n" + // lnk -> out, which holds b.img
			"c.img: tree c.img lnk/in\n" + // out/in holds no output
			"deep/holder/e.img: write deep/holder/e.img y\n" +
			"d.img: tree d.img via/holder\n" + // via -> deep: deep/holder holds e.img
			"f.img: tree f.img self\n" + // self -> .
			"g.img: tree g.img via/other\n" + // deep/other holds nothing
			"new/sub/h.img: write new/sub/h.img z\n" +
			"i.img: tree i.img to/new/sub\n" + // to -> ., and new/sub, made by the run, holds h.img
			"deep/old/m.img: write deep/old/m.img w\n" +
			"k.img: tree k.img via/old\n", // via -> deep: deep/old, which exists, holds m.img
		"out/in/x":     "x\n",
		"deep/other/y": "y\n",
		"deep/old/y":   "y\n",
	})
	for link, target := range map[string]string{"lnk": "out", "via": "deep", "self": ".", "to": "."} {
		if err := os.Symlink(target, filepath.Join(c.Dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.Build(context.Background(), &Options{Runner: &fakeRunner{}})
	var me *ManifestError
	if !errors.As(err, &me) {
		t.Fatalf("Build: %v, want a ManifestError", err)
	}
	want := []string{
		"manifest:2: a.img: the input folder lnk holds out/b.img, the output of manifest:1",
		"manifest:5: d.img: the input folder via/holder holds deep/holder/e.img, the output of manifest:4",
		"manifest:6: f.img: the input folder self holds the catalogue's own files",
		"manifest:9: i.img: the input folder to/new/sub holds new/sub/h.img, the output of manifest:8",
		"manifest:11: k.img: the input folder via/old holds deep/old/m.img, the output of manifest:10",
	}
	if len(me.Problems) != len(want) {
		t.Errorf("problems:\n%s\nwant %d", strings.Join(me.Problems, "\n"), len(want))
	}
	for i, w := range want {
		if i < len(me.Problems) && !strings.HasPrefix(me.Problems[i], w) {
			t.Errorf("problem %d: %q, want it to start %q", i, me.Problems[i], w)
		}
	}
}
