package mkimg

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// schemeErrorCase is a command line and the sentinel its error wraps;
// mkimgWrites marks a line freebsd-mkimg makes a disk of anyway (with
// truncated fields, or in a way the package refuses on purpose).
type schemeErrorCase struct {
	line        string
	want        error
	mkimgWrites bool
}

// checkSchemeErrors checks that WriteFile refuses each case's command
// line, its files relative to dir, with one line wrapping the case's
// sentinel, leaving no file behind; and, where freebsd-mkimg is present,
// that it refuses the line too, unless the case says it does not.
func checkSchemeErrors(t *testing.T, dir string, cases []schemeErrorCase) {
	t.Helper()
	ref, _ := exec.LookPath("freebsd-mkimg")
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "disk.img")
		o, err := Parse(strings.Fields(c.line))
		if err == nil {
			err = WriteFile(out, matrixInDir(dir, o))
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want an error wrapping %v", shortName(c.line), err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is more than one line: %q", shortName(c.line), err)
		}
		if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
			t.Errorf("%s: left %d files behind", shortName(c.line), len(entries))
		}
		if ref != "" && !c.mkimgWrites {
			cmd := exec.Command(ref, append(strings.Fields(c.line), "-y", "-o", filepath.Join(t.TempDir(), "ref.img"))...)
			cmd.Dir = dir
			if msg, err := cmd.CombinedOutput(); err == nil {
				t.Errorf("%s: freebsd-mkimg accepts it:\n%s", shortName(c.line), msg)
			}
		}
	}
}

// inputsDir returns a new directory holding inputs' files.
func inputsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	inputs(t, dir)
	return dir
}
