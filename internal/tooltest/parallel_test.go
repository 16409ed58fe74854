package tooltest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// notParallel is the phrase that excuses a test from calling t.Parallel
// (in any case, anywhere in a comment line); the reason follows it on the
// same line.
const notParallel = "not parallel: "

// TestEveryTestParallel keeps the suite parallel: every Test function of
// the module (the bench module aside, on every GOOS) calls t.Parallel in
// its own body, or carries a "not parallel: reason" comment in its doc
// comment or its body saying what process state it changes (t.Setenv,
// t.Chdir, the umask, a package variable, os.Stdout).
func TestEveryTestParallel(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	fset := token.NewFileSet()
	var checked int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return skipDir(root, path, d)
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, name := range serialTests(fset, f) {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s: %s neither calls t.Parallel nor says %q", rel, name, "// not parallel: reason")
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked %d test files under %s, expected the module's", checked, root)
	}
}

// moduleRoot is the directory of the go.mod above the working directory.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = up
	}
}

// skipDir skips testdata, hidden directories and nested modules (bench).
func skipDir(root, path string, d fs.DirEntry) error {
	if path == root {
		return nil
	}
	name := d.Name()
	if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return filepath.SkipDir
	}
	if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
		return filepath.SkipDir
	}
	return nil
}

// serialTests lists the Test functions of f that neither call Parallel on
// their *testing.T in their own body nor carry the notParallel comment.
func serialTests(fset *token.FileSet, f *ast.File) []string {
	var names []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Body == nil || !isTestName(fn.Name.Name) {
			continue
		}
		param := testingTParam(fn.Type)
		if param == "" {
			continue
		}
		if !callsParallel(fn.Body, param) && !excused(f, fn) {
			names = append(names, fn.Name.Name)
		}
	}
	return names
}

// isTestName reports whether name is a name go test runs as a test.
func isTestName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	if !ok || name == "TestMain" {
		return false
	}
	return rest == "" || !('a' <= rest[0] && rest[0] <= 'z')
}

// testingTParam is the name of the function's one *testing.T parameter,
// or "" when it has another signature.
func testingTParam(ft *ast.FuncType) string {
	if len(ft.Params.List) != 1 || len(ft.Params.List[0].Names) != 1 {
		return ""
	}
	star, ok := ft.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return ""
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "T" {
		return ""
	}
	return ft.Params.List[0].Names[0].Name
}

// callsParallel reports whether body, outside its function literals,
// calls param.Parallel().
func callsParallel(body *ast.BlockStmt, param string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Parallel" {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == param {
				found = true
			}
		}
		return !found
	})
	return found
}

// excused reports whether fn's doc comment or a comment inside its body
// starts with notParallel and gives a reason.
func excused(f *ast.File, fn *ast.FuncDecl) bool {
	start, end := fn.Pos(), fn.End()
	if fn.Doc != nil {
		start = fn.Doc.Pos()
	}
	for _, g := range f.Comments {
		if g.Pos() < start || g.End() > end {
			continue
		}
		for _, c := range g.List {
			_, reason, ok := strings.Cut(strings.ToLower(c.Text), notParallel)
			if ok && strings.TrimSpace(reason) != "" {
				return true
			}
		}
	}
	return false
}
