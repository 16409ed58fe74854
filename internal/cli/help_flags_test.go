package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/arcmd"
	"github.com/fixturegen/fixturegen/imgkit/makefs"
	"github.com/fixturegen/fixturegen/imgkit/mkimg"
)

// parserFlags returns the flags of a getopt(3) option string and long
// options, as the keys of a flagText table, with whether each letter
// takes an argument.
func parserFlags(short string, long []string) map[string]bool {
	flags := map[string]bool{}
	for i := 0; i < len(short); i++ {
		if short[i] != ':' {
			flags[short[i:i+1]] = i+1 < len(short) && short[i+1] == ':'
		}
	}
	for _, name := range long {
		flags[name] = false // not checked: the table writes "=" or " "
	}
	return flags
}

// TestHelpFlagsFromParsers checks that the help of makefs, mkimg and ar
// gives every flag their parsers read a line, and says no flag they do
// not read: each text table has the keys of the parser's lists, an
// argument name exactly for the letters that take one, and text for
// each; and the help prints a line starting with each flag, and at least
// three examples.
func TestHelpFlagsFromParsers(t *testing.T) {
	t.Parallel()
	arLetters := map[string]bool{}
	for _, c := range arcmd.Operations + arcmd.Modifiers {
		arLetters[string(c)] = strings.ContainsRune("abiN", c) // relpos, count
	}
	for _, name := range arcmd.LongOptions {
		arLetters[name] = false
	}
	for _, c := range []struct {
		cmd    string
		flags  map[string]bool
		texts  map[string]flagText
		prefix string // of a letter's line in the help
	}{
		{"makefs", parserFlags(makefs.OptString, makefs.LongOptions), makefsFlagTexts, "-"},
		{"mkimg", parserFlags(mkimg.OptString, mkimg.LongOptions()), mkimgFlagTexts(), "-"},
		{"ar", arLetters, arFlagTexts, ""},
	} {
		var stdout, stderr bytes.Buffer
		if code := runMain(&env{Stdout: &stdout, Stderr: &stderr}, []string{"help", c.cmd}); code != 0 {
			t.Fatalf("help %s: exit %d, stderr %q", c.cmd, code, stderr.String())
		}
		help := stdout.String()
		for name, takesArg := range c.flags {
			text, ok := c.texts[name]
			switch {
			case !ok || text.Text == "":
				t.Errorf("%s: the flag %s has no text in the help's table", c.cmd, name)
			case len(name) == 1 && takesArg != (text.Arg != ""):
				t.Errorf("%s: the flag %s takes an argument: %v; the help names one: %q", c.cmd, name, takesArg, text.Arg)
			}
			line := "^  " + c.prefix + regexp.QuoteMeta(name) + "( |$)"
			if len(name) > 1 {
				line = "^  --" + regexp.QuoteMeta(name) + "[ =]?"
			}
			if !regexp.MustCompile("(?m)" + line).MatchString(help) {
				t.Errorf("help %s has no line for the flag %s:\n%s", c.cmd, name, help)
			}
		}
		for name := range c.texts {
			if _, ok := c.flags[name]; !ok {
				t.Errorf("%s: the help's table says the flag %s, which the parser does not read", c.cmd, name)
			}
		}
		if n := strings.Count(help, "\n  fixturegen "+c.cmd+" "); n < 3 {
			t.Errorf("help %s shows %d examples, want 3 or more:\n%s", c.cmd, n, help)
		}
	}
}

// TestHelpExamplesRun runs the examples of makefs, mkimg and ar as their
// help shows them, in that order in one folder (mkimg's take makefs's
// images), which holds src, a.o, b.o and mbr.bin: each must succeed and
// write its output.
func TestHelpExamplesRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"src/hello.txt":     "hello\n",
		"src/sub/world.txt": "world\n",
		"a.o":               "object a\n",
		"b.o":               "object b\n",
		"mbr.bin":           strings.Repeat("\xeb", 446),
	})
	e := &env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Dir: dir, Getenv: func(string) string { return "" }}
	for _, x := range slices.Concat(makefsExamples, mkimgExamples, arExamples) {
		args := strings.Fields(x.Args)
		if strings.ContainsAny(x.Args, `'"\`) {
			t.Fatalf("example %q: quoted; this test splits at blanks", x.Args)
		}
		if err := run(e, args); err != nil {
			t.Errorf("example %q: %v", x.Args, err)
			continue
		}
		out := ""
		switch {
		case args[0] == "makefs":
			c, err := makefs.Parse(args[1:], dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			out = args[1+c.ImageArg]
		case args[0] == "mkimg":
			out = args[len(args)-1]
		case args[0] == "ar" && args[1] == "x":
			out = args[3]
		case args[0] == "ar":
			out = args[2]
		}
		if fi, err := os.Stat(filepath.Join(dir, out)); err != nil || fi.Size() == 0 {
			t.Errorf("example %q wrote no %s: %v", x.Args, out, err)
		}
	}
}
