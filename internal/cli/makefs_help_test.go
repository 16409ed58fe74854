package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/makefs"
	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
	"github.com/fixturegen/fixturegen/internal/typereg"
)

// registerTestMakefsType registers a makefs type for one test and removes
// it when the test ends. Tests that call it must not run in parallel: the
// registry is a plain map.
func registerTestMakefsType(t *testing.T, mt makefs.Type) {
	t.Helper()
	makefs.Register(mt)
	t.Cleanup(func() { typereg.Unregister(mt.Name) })
}

// optionHelpIntro is the line above every list of -o options.
const optionHelpIntro = "Options for -o, one per line: key, one-letter alias (- for none),\n" +
	"default, and what the option sets.\n"

// testOptionTypes registers two types for the help tests: test-described,
// whose Help lists options with and without a letter and a default, and
// test-undescribed, whose Help is nil. Running either is a test failure:
// asking for help must not build anything.
func testOptionTypes(t *testing.T) {
	t.Helper()
	fail := func(c *makefs.Command, _ io.Writer) error {
		t.Errorf("makefs -t %s ran; -o help should only print", c.Type)
		return errors.New("ran")
	}
	registerTestMakefsType(t, makefs.Type{
		Name:  "test-described",
		Write: fail,
		Help: func() []fsopt.Option {
			return []fsopt.Option{
				{Key: "sectors_per_cluster", Letter: "c", Field: "SectorsPerCluster", Default: "from the size", Usage: "sectors per cluster, a power of 2"},
				{Key: "label", Field: "Label", Usage: "volume label"},
				{Key: "x", Letter: "X", Field: "X", Default: "0", Usage: "a short one"},
			}
		},
	})
	registerTestMakefsType(t, makefs.Type{Name: "test-undescribed", Write: fail})
}

// The lists as writeOptionHelp prints them: columns aligned two blanks
// apart, "-" for a missing letter or default, no trailing blanks.
const (
	describedHelp = `-t test-described:
  sectors_per_cluster  c  from the size  sectors per cluster, a power of 2
  label                -  -              volume label
  x                    X  0              a short one
`
	undescribedHelp = `-t test-undescribed:
  no -o options described
`
)

func TestHelpMakefsListsOptions(t *testing.T) {
	// not parallel: it registers makefs types (a plain map).
	testOptionTypes(t)
	var stdout, stderr bytes.Buffer
	e := &env{Stdout: &stdout, Stderr: &stderr}
	if code := runMain(e, []string{"help", "makefs"}); code != 0 || stderr.Len() != 0 {
		t.Fatalf("help makefs: exit %d, stderr %q", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"\nFile system types: ",
		"test-described, test-undescribed",
		"\n" + optionHelpIntro + "\n",
		"\n\n" + describedHelp,
		"\n\n" + undescribedHelp,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("help makefs does not contain\n%s\nin:\n%s", want, out)
		}
	}
	// Every registered type has its block, in name order.
	last := -1
	for _, name := range []string{"ffs", "msdos", "test-described", "test-undescribed"} {
		i := strings.Index(out, "\n-t "+name+":\n")
		if i < 0 {
			t.Errorf("help makefs lists no -o options for -t %s", name)
			continue
		}
		if i < last {
			t.Errorf("help makefs: -t %s is out of name order", name)
		}
		last = i
	}
}

func TestMakefsOptionHelp(t *testing.T) {
	// not parallel: it registers makefs types (a plain map).
	testOptionTypes(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-t", "test-described", "-o", "help"}, describedHelp},
		{[]string{"-o", "help", "-t", "test-described"}, describedHelp},
		{[]string{"-t", "test-described", "-o", "label=x,help,c=2"}, describedHelp},
		{[]string{"-t", "test-described", "-o", "label=x", "-o", "help", "-s", "1m"}, describedHelp},
		{[]string{"-t", "test-described", "-o", "help", "img", "no-such-dir"}, describedHelp},
		{[]string{"-t", "test-undescribed", "-o", "help"}, undescribedHelp},
	} {
		var stdout, stderr bytes.Buffer
		e := &env{Stdout: &stdout, Stderr: &stderr, Dir: dir}
		code := runMain(e, append([]string{"makefs"}, tc.args...))
		if want := optionHelpIntro + "\n" + tc.want; code != 0 || stdout.String() != want || stderr.Len() != 0 {
			t.Errorf("makefs %q: exit %d, stdout\n%s\nstderr %q; want exit 0, stdout\n%s", tc.args, code, stdout.String(), stderr.String(), want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "img")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("makefs -o help left an image: %v", err)
	}
}

func TestMakefsOptionHelpErrors(t *testing.T) {
	// not parallel: it registers makefs types (a plain map).
	testOptionTypes(t)
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	ran := false
	registerTestMakefsType(t, makefs.Type{Name: "test-runs", Write: func(*makefs.Command, io.Writer) error { ran = true; return nil }})
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		// An unknown type is the usage error makefs gives for it anyway.
		{[]string{"-t", "nosuchfs", "-o", "help"}, 2, "fixturegen: makefs: unknown file system type \"nosuchfs\" (types: cd9660, ffs, msdos, "},
		// A command line getopt rejects is reported as without help.
		{[]string{"-q", "-o", "help"}, 2, "fixturegen: makefs: unknown option -q\n"},
		{[]string{"-o"}, 2, "fixturegen: makefs: option -o requires an argument\n"},
	} {
		var stdout, stderr bytes.Buffer
		e := &env{Stdout: &stdout, Stderr: &stderr, Dir: dir}
		code := runMain(e, append([]string{"makefs"}, tc.args...))
		if code != tc.code || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), tc.stderr) {
			t.Errorf("makefs %q: exit %d, stdout %q, stderr %q; want exit %d, stderr %q", tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stderr)
		}
	}
	// Only a bare "help" item asks for help: help=1 and helpful are options
	// for the type to judge, and the image is built.
	for _, o := range []string{"help=1", "helpful", "xhelp"} {
		ran = false
		var stdout, stderr bytes.Buffer
		e := &env{Stdout: &stdout, Stderr: &stderr, Dir: dir}
		if code := runMain(e, []string{"makefs", "-t", "test-runs", "-o", o, "img", "src"}); code != 0 || !ran || stdout.Len() != 0 {
			t.Errorf("makefs -o %s: exit %d, ran %v, stdout %q, stderr %q; want the type to run", o, code, ran, stdout.String(), stderr.String())
		}
	}
}
