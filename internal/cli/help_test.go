package cli

import (
	"bytes"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestHelpNamesISO9660 checks that "fixturegen help" names the four
// formats, ISO 9660 and its makefs type cd9660 among them, and that the
// help of makefs lists cd9660 among the types and that of ls, cat and diff
// ISO 9660 among the formats they read.
func TestHelpNamesISO9660(t *testing.T) {
	t.Parallel()
	help := func(args ...string) string { return helpText(t, args...) }
	usage := help()
	for _, want := range []string{"FAT", "FFS", "ISO 9660", "ar archives", "msdos", "ffs", "cd9660"} {
		if !strings.Contains(usage, want) {
			t.Errorf("fixturegen help does not name %q:\n%s", want, usage)
		}
	}
	// The types line lists every registered type, and a test running
	// beside this one registers a type of its own (splashfs), so only
	// the three of fixturegen are asked for, in order.
	h := help("makefs")
	_, types, _ := strings.Cut(h, "File system types: ")
	types, _, _ = strings.Cut(types, "\n")
	if !strings.HasPrefix(types, "cd9660, ffs, msdos") || !strings.Contains(h, "-t cd9660:") {
		t.Errorf("fixturegen help makefs does not list cd9660 among the types:\n%s", h)
	}
	for _, name := range []string{"ls", "cat", "diff"} {
		if h := help(name); !strings.Contains(h, "ISO 9660") {
			t.Errorf("fixturegen help %s does not name ISO 9660:\n%s", name, h)
		}
	}
}

// TestDocsNameISO9660 checks the package docs that list the formats
// fixturegen writes or reads (cmd/fixturegen, fixturetest, imgkit/inspect)
// and the help of every command: a paragraph that names FAT and FFS names
// ISO 9660 too.
func TestDocsNameISO9660(t *testing.T) {
	t.Parallel()
	texts := map[string]string{}
	for _, file := range []string{"../../cmd/fixturegen/main.go", "../../fixturetest/fixturetest.go", "../../imgkit/inspect/doc.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc == nil {
			t.Fatalf("%s has no package doc", file)
		}
		texts[file] = f.Doc.Text()
	}
	for _, c := range sortedCommands() {
		texts["fixturegen help "+c.Name] = c.Summary + "\n\n" + c.Help
	}
	for where, text := range texts {
		for _, para := range strings.Split(text, "\n\n") {
			if strings.Contains(para, "FAT") && strings.Contains(para, "FFS") && !strings.Contains(para, "ISO 9660") {
				t.Errorf("%s lists FAT and FFS but not ISO 9660:\n%s", where, para)
			}
		}
	}
}

// helpText returns what "fixturegen help ARGS" prints, failing the test
// unless it exits 0.
func helpText(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := runMain(&env{Stdout: &stdout, Stderr: &stderr}, append([]string{"help"}, args...)); code != 0 {
		t.Fatalf("fixturegen help %q: exit %d, stderr %q", args, code, stderr.String())
	}
	return stdout.String()
}
