package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/makefs"
	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
)

// registerTestTypes registers the makefs types of the tests that run this
// test binary as fixturegen with FIXTUREGEN_TEST_TYPES=1 (testTypes), so
// that the registry of the test binary itself stays as a program's is:
// test-described, whose Help lists options with and without a letter and
// a default, test-undescribed, whose Help is nil (writing either fails:
// asking for help must not build anything), test-runs, which writes
// "ran" to its image, and splashfs (catalog_typeinputs_test.go).
func registerTestTypes() {
	fail := func(c *makefs.Command, _ io.Writer) error {
		return errors.New("makefs -t " + c.Type + " ran; -o help should only print")
	}
	makefs.Register(makefs.Type{
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
	makefs.Register(makefs.Type{Name: "test-undescribed", Write: fail})
	makefs.Register(makefs.Type{Name: "test-runs", Write: func(c *makefs.Command, _ io.Writer) error {
		return os.WriteFile(c.Image, []byte("ran\n"), 0o644)
	}})
	registerSplashFS()
}

// testTypes runs this test binary as fixturegen with args in dir, with
// the makefs types of registerTestTypes, and returns its exit status and
// output.
func testTypes(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FIXTUREGEN_TEST_PROCESS=1", "FIXTUREGEN_TEST_TYPES=1", "TMPDIR="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running %q: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// optionHelpIntro is the line above every list of -o options.
const optionHelpIntro = "Options for -o, one per line: key, one-letter alias (- for none),\n" +
	"default, and what the option sets.\n"

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
	t.Parallel()
	code, out, stderr := testTypes(t, t.TempDir(), "help", "makefs")
	if code != 0 || stderr != "" {
		t.Fatalf("help makefs: exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"\nFile system types: ",
		"splashfs, test-described, test-runs, test-undescribed",
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
	t.Parallel()
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
		code, stdout, stderr := testTypes(t, dir, append([]string{"makefs"}, tc.args...)...)
		if want := optionHelpIntro + "\n" + tc.want; code != 0 || stdout != want || stderr != "" {
			t.Errorf("makefs %q: exit %d, stdout\n%s\nstderr %q; want exit 0, stdout\n%s", tc.args, code, stdout, stderr, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "img")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("makefs -o help left an image: %v", err)
	}
}

func TestMakefsOptionHelpErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
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
		code, stdout, stderr := testTypes(t, dir, append([]string{"makefs"}, tc.args...)...)
		if code != tc.code || stdout != "" || !strings.HasPrefix(stderr, tc.stderr) {
			t.Errorf("makefs %q: exit %d, stdout %q, stderr %q; want exit %d, stderr %q", tc.args, code, stdout, stderr, tc.code, tc.stderr)
		}
	}
	// Only a bare "help" item asks for help: help=1 and helpful are options
	// for the type to judge, and the image is built.
	for _, o := range []string{"help=1", "helpful", "xhelp"} {
		os.Remove(filepath.Join(dir, "img"))
		code, stdout, stderr := testTypes(t, dir, "makefs", "-t", "test-runs", "-o", o, "img", "src")
		if b, _ := os.ReadFile(filepath.Join(dir, "img")); code != 0 || string(b) != "ran\n" || stdout != "" {
			t.Errorf("makefs -o %s: exit %d, image %q, stdout %q, stderr %q; want the type to run", o, code, b, stdout, stderr)
		}
	}
}
