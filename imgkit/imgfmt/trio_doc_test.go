package imgfmt_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// trioDoc is the pattern every format's WriteFile, Write and Build doc
// comments follow, so that a user reading one knows the others: the
// sentences each must start with and hold, after which a format adds what
// is its own.
var trioDoc = map[string][]*regexp.Regexp{
	"WriteFile": {
		regexp.MustCompile(`^WriteFile makes the [^.]+ image of src with opts \(nil is the zero Options\), as [^.]+ does, and writes it to the file path through the block cache \(Options\.Cache\)\. `),
		regexp.MustCompile(`The image appears at path only when complete: on any error the temporary file is removed and path is left as it was\.`),
	},
	"Write": {
		regexp.MustCompile(`^Write makes the image WriteFile makes and writes it to dst, every byte of it from offset 0, and returns its size \(0 on any error\)\. `),
		regexp.MustCompile(`A dst that is a bcache\.InPlaceCreator \(a bcache\.Section, or a partition mkimg writes\) gets the image built in place instead: the same bytes, but what the image leaves zero is not written \(it stays a hole of a disk file\) and memory does not grow with the image\.`),
	},
	"Build": {
		regexp.MustCompile(`^Build makes the image WriteFile makes, in memory, and returns it\.`),
	},
}

// TestTrioDocs checks the doc comments of WriteFile, Write and Build in
// every package under imgkit that writes a source tree with them
// (WriteFile(path, src, opts)) against trioDoc, and that Write takes the
// same parameter names in each.
func TestTrioDocs(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob(filepath.Join("..", "*"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		fset := token.NewFileSet()
		names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		var files []*ast.File
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		if len(files) == 0 {
			continue
		}
		{
			p, err := doc.NewFromFiles(fset, files, "./"+filepath.Base(dir))
			if err != nil {
				t.Fatal(err)
			}
			funcs := map[string]*doc.Func{}
			for _, f := range p.Funcs {
				funcs[f.Name] = f
			}
			if funcs["WriteFile"] == nil || funcs["Write"] == nil || funcs["Build"] == nil ||
				params(funcs["WriteFile"].Decl) != "path src opts" {
				continue // not a format written from a source tree (mkimg's disks)
			}
			checked++
			for name, res := range trioDoc {
				text := strings.Join(strings.Fields(funcs[name].Doc), " ")
				for _, re := range res {
					if !re.MatchString(text) {
						t.Errorf("%s.%s: doc %q does not match %q", p.Name, name, text, re)
					}
				}
			}
			if got := params(funcs["Write"].Decl); got != "dst src opts" {
				t.Errorf("%s.Write takes %s, want dst src opts", p.Name, got)
			}
		}
	}
	if checked < 3 {
		t.Errorf("checked %d formats, want msdos, ffs and cd9660 at least", checked)
	}
}

// params returns the parameter names of a function, space-separated.
func params(d *ast.FuncDecl) string {
	var names []string
	for _, f := range d.Type.Params.List {
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
	}
	return strings.Join(names, " ")
}
