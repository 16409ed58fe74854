package arcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run parses and runs one ar command line in dir with the environment
// vars, and returns what it printed to stdout and stderr.
func run(t *testing.T, dir string, vars map[string]string, line string) (stdout, stderr string, err error) {
	t.Helper()
	c, err := Parse(strings.Fields(line), dir, func(k string) string { return vars[k] })
	if err != nil {
		t.Fatalf("Parse(%s): %v", line, err)
	}
	var o, e bytes.Buffer
	err = c.Run(&o, &e)
	return o.String(), e.String(), err
}

// TestRun checks what Run prints for the operations that print: the
// "creating" line, v's lines, the listings of t, tv and tO, and p with
// and without v.
func TestRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"one.txt", "two.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ line, stdout, stderr string }{
		{"r lib.a one.txt", "", "ar: creating lib.a\n"},
		{"rv lib.a two.txt", "a - two.txt\n", ""},
		{"t lib.a", "one.txt\ntwo.txt\n", ""},
		{"tO lib.a two.txt", "two.txt 0x88\n", ""}, // magic 8, header 60, one.txt 8, header 60
		{"tv lib.a one.txt", "rw-r--r-- 0/0      8 Jan  1 00:00 1970 one.txt\n", ""},
		{"p lib.a", "one.txt\ntwo.txt\n", ""},
		{"pv lib.a two.txt", "\n<two.txt>\n\ntwo.txt\n", ""},
		{"dv lib.a one.txt", "d - one.txt\n", ""},
		{"t lib.a", "two.txt\n", ""},
	} {
		stdout, stderr, err := run(t, dir, nil, tc.line)
		if err != nil || stdout != tc.stdout || stderr != tc.stderr {
			t.Errorf("ar %s: stdout %q, stderr %q, %v; want %q, %q", tc.line, stdout, stderr, err, tc.stdout, tc.stderr)
		}
	}
}

// TestRunErrors checks the errors Run gives in the command's words, and
// that a Command of ParseRanlib says them as ranlib.
func TestRunErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line string
		vars map[string]string
		want string
	}{
		{"t nosuch.a", nil, "ar: nosuch.a: no such file or directory"},
		{"rc lib.a missing.o", nil, "ar: missing.o: no such file or directory"},
		{"rc lib.a one.txt", map[string]string{"FIXTUREGEN_AR_SYM64_THRESHOLD": "x"}, "ar: FIXTUREGEN_AR_SYM64_THRESHOLD=x: not a positive number"},
		{"--format=bsd rcT lib.a one.txt", nil, "ar: lib.a: only the gnu format has a thin mode (T, --thin with --format=bsd)"},
	} {
		if _, _, err := run(t, dir, tc.vars, tc.line); err == nil || err.Error() != tc.want {
			t.Errorf("ar %s: error %v, want %q", tc.line, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "lib.a")); err == nil {
		t.Errorf("lib.a written by a failing command")
	}
	cmds, err := ParseRanlib([]string{"nosuch.a"}, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmds[0].Run(nil, nil); err == nil || err.Error() != "ranlib: nosuch.a: no such file or directory" {
		t.Errorf("ranlib nosuch.a: error %v", err)
	}
}
