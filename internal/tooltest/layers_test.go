package tooltest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// modulePath is this module's import path.
const modulePath = "github.com/fixturegen/fixturegen"

// layers ranks the module's folders from the bottom of the import graph
// up; the first prefix that a package's folder has gives its rank. A
// package's non-test files may import the module's packages of its own
// rank or below, never above: the helpers below the formats (temporary
// files, locks, pipes, numbers, getopt, the terminal line, the progress
// hook) import none of the formats, the formats none of the catalogue,
// and nothing under the CLI imports the CLI. The reference tools' builder
// (internal/references) serves the magefile and the tests; the test
// helpers (tooltest, benchtree, elfgen) are for tests and rank at the top.
var layers = []struct {
	prefix string
	rank   int
}{
	{"imgkit/internal/", 0},
	// The helpers that the catalogue and the CLI use too stay in
	// internal/, which Go lets the whole module import; imgkit/internal
	// holds those only imgkit uses.
	{"internal/filelock", 0}, {"internal/getopt", 0}, {"internal/progresshook", 0},
	{"internal/tempfile", 0}, {"internal/termline", 0},
	{"imgkit/", 1},
	{"catalog", 2},
	{"internal/cli", 3}, {"internal/references", 3},
	{"cmd/", 4}, {"fixturetest", 4}, {"magefixtures", 4}, {"magefiles", 4},
	{"internal/", 5},
}

// rankOf returns the rank of the module folder rel (slash-separated), or
// -1 for a folder no layer names.
func rankOf(rel string) int {
	for _, l := range layers {
		if rel == strings.TrimSuffix(l.prefix, "/") || strings.HasPrefix(rel, l.prefix) {
			return l.rank
		}
	}
	return -1
}

// TestImportLayers checks that no non-test file of the module imports a
// package of a higher layer than its own (layers), so that, for one, no
// import runs from the block cache up to the CLI.
func TestImportLayers(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return skipDir(root, path, d)
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		from := rankOf(rel)
		if from < 0 {
			if rel != "." {
				t.Errorf("%s: no layer names the folder; add it to layers", rel)
			}
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			dep, ok := strings.CutPrefix(p, modulePath+"/")
			if !ok {
				continue
			}
			if to := rankOf(dep); to > from {
				t.Errorf("%s (layer %d) imports %s (layer %d), a layer above it", filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator))), from, dep, to)
			}
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d files, expected the module's", checked)
	}
}
