package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGetopt(t *testing.T) {
	t.Parallel()
	opts, rest, err := getopt("x", []string{"-xZ", "-s10m", "-t", "msdos", "--", "-img", "dir"}, "s:t:xZ")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range opts {
		got = append(got, string(o.Name)+"="+o.Arg)
	}
	if g, w := strings.Join(got, " "), "x= Z= s=10m t=msdos"; g != w {
		t.Errorf("opts = %q, want %q", g, w)
	}
	if g, w := strings.Join(rest, " "), "-img dir"; g != w {
		t.Errorf("rest = %q, want %q", g, w)
	}
	_, rest, _ = getopt("x", []string{"-x", "img", "-Z"}, "xZ")
	if len(rest) != 2 {
		t.Errorf("getopt did not stop at the first operand: rest = %q", rest)
	}
	_, rest, _ = getopt("x", []string{"-", "dir"}, "x")
	if len(rest) != 2 {
		t.Errorf(`getopt took "-" for an option: rest = %q`, rest)
	}
}

func TestRunMain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{nil, 2, "", "usage: fixturegen <command>"},
		{[]string{"help"}, 0, "Commands:", ""},
		{[]string{"-h"}, 0, "Commands:", ""},
		{[]string{"help", "makefs"}, 0, "usage: fixturegen makefs", ""},
		{[]string{"makefs", "-h"}, 0, "usage: fixturegen makefs", ""},
		{[]string{"help", "nosuch"}, 2, "", "fixturegen: help: unknown command \"nosuch\""},
		{[]string{"version"}, 0, "fixturegen ", ""},
		{[]string{"version", "x"}, 2, "", "fixturegen: version: takes no arguments\nusage: fixturegen version\n"},
		{[]string{"nosuch"}, 2, "", "fixturegen: unknown command \"nosuch\"\n"},
		{[]string{"makefs", "-t", "nosuchfs", "i", "src"}, 2, "", "fixturegen: makefs: unknown file system type \"nosuchfs\" (types: cd9660, ffs, msdos)\n"},
		{[]string{"makefs", "-s", "1z", "i", "src"}, 2, "", "fixturegen: makefs: -s 1z: invalid size"},
		{[]string{"makefs", "--metadata=bogus", "i", "src"}, 2, "", "fixturegen: makefs: --metadata=bogus: want --metadata=git"},
		{[]string{"makefs", "--bogus", "i", "src"}, 2, "", "fixturegen: makefs: unknown option --bogus"},
	} {
		var stdout, stderr bytes.Buffer
		e := &env{Stdout: &stdout, Stderr: &stderr, Dir: dir, Getenv: func(string) string { return "" }}
		code := runMain(e, tc.args)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("fixturegen %q: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
				tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
		if tc.code == 1 && strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("fixturegen %q: error is not one line: %q", tc.args, stderr.String())
		}
	}
}

func TestPanicBecomesError(t *testing.T) {
	// not parallel: it adds to the command table, a plain map.
	register(command{Name: "test-panic", Run: func(*env, []string) error { panic("boom") }})
	defer delete(commands, "test-panic")
	var stderr bytes.Buffer
	if code := runMain(&env{Stderr: &stderr}, []string{"test-panic"}); code != 1 || stderr.String() != "fixturegen: test-panic: internal error: boom\n" {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// TestMakefsUsageErrors checks that the library's usage errors become the
// command's, with the same message, and its other errors stay as they are.
func TestMakefsUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	e := &env{Dir: dir}
	for _, tc := range []struct {
		args  []string
		want  string
		usage bool
	}{
		{[]string{"-s", "10q", "i", "src"}, "makefs: -s 10q: invalid size", true},
		{[]string{"-q", "i", "src"}, "makefs: unknown option -q", true},
		{[]string{"i", "nosuch"}, `makefs: cannot stat "nosuch": no such file or directory`, false},
	} {
		_, err := parseMakefsArgs(e, tc.args)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("makefs %q: error %v, want %q", tc.args, err, tc.want)
			continue
		}
		if _, isUsage := err.(*usageError); isUsage != tc.usage {
			t.Errorf("makefs %q: usage error = %v, want %v", tc.args, isUsage, tc.usage)
		}
	}
}

// TestPlanMakefsHelp checks that a catalogue cannot plan "makefs -o help":
// it prints and builds nothing, so there is no output to plan.
func TestPlanMakefsHelp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	_, err := runner{}.Plan(dir, []string{"makefs", "-t", "msdos", "-o", "help", "x.img", "src"})
	if err == nil || !strings.Contains(err.Error(), "-o help prints the type's options and builds no image") {
		t.Errorf("plan of makefs -o help: %v", err)
	}
	if p, err := (runner{}).Plan(dir, []string{"makefs", "-t", "msdos", "-T", "0", "x.img", "src"}); err != nil || p.Output != 5 {
		t.Errorf("plan of makefs -t msdos -T 0 x.img src: %+v, %v; want the output at 5", p, err)
	}
}

// TestPlanMetadata checks the catalogue's rules for what a checkout does
// not keep: makefs lines plan with --metadata=git, need -T (or an -o
// timestamp) unless they write --metadata=host, and ar's U modifier is an
// error; the output's index is that of the line as the manifest writes it.
func TestPlanMetadata(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "a.o"), []byte("a"), 0o644)
	for _, tc := range []struct {
		args   []string
		output int
		err    string
	}{
		{[]string{"makefs", "-t", "ffs", "x.img", "src"}, 0, "makefs without -T takes its times from the checkout, which git sets at checkout; give -T (for instance -T 0) or --metadata=host"},
		{[]string{"makefs", "--metadata=git", "x.img", "src"}, 0, "makefs without -T takes its times from the checkout"},
		{[]string{"makefs", "--metadata=host", "x.img", "src"}, 2, ""},
		{[]string{"makefs", "-T", "0", "--metadata=host", "x.img", "src"}, 4, ""},
		{[]string{"makefs", "-t", "msdos", "-o", "timestamp=0", "x.img", "src"}, 5, ""},
		{[]string{"makefs", "--metadata=bogus", "-T", "0", "x.img", "src"}, 0, "makefs: --metadata=bogus: want --metadata=git"},
		{[]string{"ar", "rcs", "x.a", "src/a.o"}, 2, ""},
		{[]string{"ar", "rcsU", "x.a", "src/a.o"}, 0, "ar with the U modifier stores the members' owners, modes and times"},
	} {
		p, err := runner{}.Plan(dir, tc.args)
		switch {
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("plan of %q: %+v, %v; want the error %q", tc.args, p, err, tc.err)
		case tc.err == "" && (err != nil || p.Output != tc.output):
			t.Errorf("plan of %q: %+v, %v; want the output at %d", tc.args, p, err, tc.output)
		}
	}
	if a, n := catalogArgs([]string{"makefs", "-T", "0", "x.img", "src"}); n != 1 || strings.Join(a, " ") != "makefs --metadata=git -T 0 x.img src" {
		t.Errorf("catalogArgs of a makefs line: %q, %d", a, n)
	}
	if a, n := catalogArgs([]string{"ar", "rcs", "x.a"}); n != 0 || len(a) != 3 {
		t.Errorf("catalogArgs of an ar line: %q, %d", a, n)
	}
}

// TestBuildCheckoutMetadataErrors checks that build names the manifest
// line of a makefs entry without -T and of an ar entry with U, and builds
// the entry that opts into the host's metadata.
func TestBuildCheckoutMetadataErrors(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod": "module m\n",
		"fixtures/manifest": "# entries that would hold what a checkout does not keep\n" +
			"a.img: makefs -t msdos -s 1440k a.img src\n" +
			"b.a: ar rcsU b.a src/x\n" +
			"c.img: makefs -t msdos -s 1440k --metadata=host c.img src\n" +
			"d.img: makefs -t msdos -s 1440k -T stamp d.img src\n" +
			"e.iso: makefs -t cd9660 -o compat=debian -T 0 e.iso src\n" +
			"f.iso: makefs -t cd9660 -o compat=debian -T 0 --metadata=host f.iso src\n",
		"fixtures/src/x": "x\n",
		"fixtures/stamp": "",
	})
	code, _, stderr := buildRunner(t)(root, "build", "-update", "-q")
	for _, want := range []string{
		"fixturegen: build: manifest:2: a.img: makefs without -T takes its times from the checkout, which git sets at checkout; give -T (for instance -T 0) or --metadata=host\n",
		"fixturegen: build: manifest:3: b.a: ar with the U modifier stores the members' owners, modes and times",
		"fixturegen: build: manifest:5: d.img: -T stamp: makefs takes the time of this file, which git sets at checkout; give -T a number (for instance -T 0) or --metadata=host\n",
		"fixturegen: build: manifest:6: e.iso: -o compat=debian keeps the files' own times whatever -T says, as Debian's makefs does, and git sets them at checkout; give --metadata=host\n",
	} {
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("build: exit %d, stderr\n%s\nwant exit 1 and %q", code, stderr, want)
		}
	}
	for _, name := range []string{"c.img", "f.iso"} {
		if _, err := os.Stat(filepath.Join(root, "fixtures", name)); err != nil || strings.Contains(stderr, name) {
			t.Errorf("the --metadata=host entry %s was not built: %v\n%s", name, err, stderr)
		}
	}
}
