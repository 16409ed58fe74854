package cli

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/makefs"
	"github.com/fixturegen/fixturegen/imgkit/mkimg"
)

// TestHelpListsRegistries checks that the lists of types, schemes and
// formats in the help come from the registries: every registered makefs
// type (with its description) in "fixturegen help" and in the types line
// of "help makefs", every mkimg scheme in both and in mkimg's summary,
// and every mkimg output format under -f. It registers nothing; a type
// that a test running beside it registers or removes meanwhile is not
// asked for.
func TestHelpListsRegistries(t *testing.T) {
	t.Parallel()
	help := func(args ...string) string { return helpText(t, args...) }
	before := makefs.Types()
	usage, makefsHelp, mkimgHelp := help(), help("makefs"), help("mkimg")
	types := slices.DeleteFunc(before, func(n string) bool { return !slices.Contains(makefs.Types(), n) })
	if len(types) < 3 {
		t.Fatalf("makefs.Types() = %q, want fixturegen's three and more", types)
	}

	// "fixturegen help": the lines naming makefs's types and mkimg's
	// schemes, wrapped.
	_, made, _ := strings.Cut(usage, "makefs -t ")
	made, _, _ = strings.Cut(made, "\n  archives")
	made = strings.Join(strings.Fields(made), " ")
	for _, name := range types {
		want := name
		if mt, _ := makefs.Lookup(name); mt.Description != "" {
			want += " (" + mt.Description + ")"
		}
		if !strings.Contains(made, want) {
			t.Errorf("fixturegen help does not name the makefs type %q:\n%s", want, usage)
		}
	}
	for _, s := range mkimg.Schemes() {
		if !regexp.MustCompile(`mkimg -s .*\b` + s + `\b`).MatchString(made) {
			t.Errorf("fixturegen help does not name the mkimg scheme %s:\n%s", s, usage)
		}
	}

	_, line, _ := strings.Cut(makefsHelp, "\nFile system types: ")
	line, _, _ = strings.Cut(line, "\n")
	for _, name := range types {
		if !slices.Contains(strings.Split(strings.TrimSuffix(line, "."), ", "), name) || !strings.Contains(makefsHelp, "\n-t "+name+":\n") {
			t.Errorf("help makefs does not list the type %s:\n%s", name, makefsHelp)
		}
	}

	// help mkimg: the summary, the schemes' paragraphs and the lines
	// under -f.
	summary := strings.Split(mkimgHelp, "\n")[2]
	_, f, _ := strings.Cut(mkimgHelp, "\n  -f format")
	f, _, _ = strings.Cut(f, "\n  -H")
	f = strings.Join(strings.Fields(f), " ") + " "
	for _, s := range mkimg.Schemes() {
		if !strings.Contains(summary, strings.ToUpper(s)) || !strings.Contains(mkimgHelp, "\n  "+s+" ") {
			t.Errorf("help mkimg does not name the scheme %s:\n%s", s, mkimgHelp)
		}
	}
	for _, name := range mkimg.Formats() {
		if !strings.Contains(f, " "+name+" "+mkimg.FormatDescription(name)+" ") {
			t.Errorf("help mkimg does not list the format %s under -f:%s", name, f)
		}
	}
}
