package mkimg

import (
	"bytes"
	"errors"
	"io"
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

// readCase is a change to a disk a read hook then reads (mutate changes
// its argument, a copy, or returns another disk), and whether the hook
// must find no table on it (ErrNoTable) or refuse a corrupt one (any
// other error).
type readCase struct {
	mutate  func(disk []byte) []byte
	noTable bool
}

// checkReadRefuses writes the disk of one command line, its files in
// dir, and checks that read refuses each case's change to it as the case
// says.
func checkReadRefuses(t *testing.T, read func(io.ReaderAt, int64) (*Table, error), dir, line string, cases map[string]readCase) {
	t.Helper()
	good := mustBuild(t, parseIn(t, dir, strings.Fields(line)))
	for name, c := range cases {
		d := c.mutate(bytes.Clone(good))
		tab, err := read(bytes.NewReader(d), int64(len(d)))
		if err == nil || errors.Is(err, ErrNoTable) != c.noTable {
			t.Errorf("%s: got %+v, %v; want an error (ErrNoTable: %v)", name, tab, err, c.noTable)
		}
	}
}

// zeroed returns a disk of zeros of the same size.
func zeroed(d []byte) []byte { return make([]byte, len(d)) }

// truncated returns a mutate that keeps a disk's first n bytes.
func truncated(n int) func([]byte) []byte { return func(d []byte) []byte { return d[:n] } }

// setting returns a mutate that makes the changes set makes to a disk.
func setting(set func(d []byte)) func([]byte) []byte {
	return func(d []byte) []byte { set(d); return d }
}
