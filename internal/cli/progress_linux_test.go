package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/catalog"
	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/termline"
)

// progressTree makes a folder with a source tree (src) and a member file
// (m.o) for makefs and ar, and returns it.
func progressTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("progress"), 40000)
	for _, f := range []string{"src/f", "m.o"} {
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestOutputProgress checks the line standalone makefs, ar, ranlib and
// mkimg draw on a terminal: drawn (here at once: the delay is 0) as
// "makefs: out.img: 0 bytes written" before any step and erased at the
// end, with nothing else on the
// terminal; and nothing at all on standard error that is a pipe or a
// buffer. It runs alone: it sets outputProgressDelay.
func TestOutputProgress(t *testing.T) {
	// not parallel: it sets the package variable outputProgressDelay.
	old := outputProgressDelay
	outputProgressDelay = 0
	defer func() { outputProgressDelay = old }()
	dir := progressTree(t)
	master, slave, err := termline.OpenPTY()
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer master.Close()
	defer slave.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	var buf bytes.Buffer
	for _, c := range []struct {
		args []string
		line string
	}{
		{[]string{"makefs", "-t", "msdos", "-T", "0", "out.img", "src"}, "makefs: out.img: "},
		{[]string{"ar", "rc", "lib.a", "m.o"}, "ar: lib.a: "},
		{[]string{"ranlib", "lib.a"}, "ranlib: lib.a: "},
		{[]string{"mkimg", "-s", "gpt", "-p", "efi:=m.o", "-o", "disk.img"}, "mkimg: disk.img: "},
	} {
		for _, stderr := range []io.Writer{slave, pw, &buf} {
			e := &env{Stdout: io.Discard, Stderr: stderr, Dir: dir, Getenv: func(string) string { return "" }}
			if err := run(e, c.args); err != nil {
				t.Fatalf("%s: %v", c.args, err)
			}
		}
		out, err := termline.ReadPTY(master, slave)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out, "\r\x1b[K"+c.line+"0 bytes written") || !strings.HasSuffix(out, "\r\x1b[K") {
			t.Errorf("%s on a terminal: %q", c.args, out)
		}
	}
	pw.Close()
	piped, _ := io.ReadAll(pr)
	if len(piped) != 0 || buf.Len() != 0 {
		t.Errorf("not a terminal: %q on a pipe, %q in a buffer", piped, buf.String())
	}
}

// TestRunnerProgress checks that the catalogue runner hands
// Command.Progress to makefs and ar: the count of an archive is its size,
// that of an image at least its file data.
func TestRunnerProgress(t *testing.T) {
	t.Parallel()
	dir := progressTree(t)
	for _, c := range []struct {
		args []string
		out  string
	}{
		{[]string{"makefs", "-t", "ffs", "-T", "0", "out.img", "src"}, "out.img"},
		{[]string{"ar", "rc", "lib.a", "m.o"}, "lib.a"},
	} {
		var n progress.Meter
		var stderr bytes.Buffer
		err := Runner().Run(context.Background(), &catalog.Command{Dir: dir, Args: c.args, Stdout: io.Discard, Stderr: &stderr, Progress: &n, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		fi, err := os.Stat(filepath.Join(dir, c.out))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.args[0] == "ar" && n.Count() != fi.Size():
			t.Errorf("%s: Progress = %d, want the archive's %d bytes", c.args, n.Count(), fi.Size())
		case n.Count() < 320000:
			t.Errorf("%s: Progress = %d, less than the file's 320,000 bytes", c.args, n.Count())
		}
		if stderr.Len() != 0 {
			t.Errorf("%s: stderr %q", c.args, stderr.String())
		}
	}
}

// TestImageArg checks that the progress line names the image as the
// command line does, wherever it lies: the argument makefs.Parse says is
// the image (Command.ImageArg).
func TestImageArg(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := &env{Dir: filepath.Join(dir, "src")}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-t", "msdos", "-T", "0", "../z.img", "."}, "../z.img"},
		{[]string{"-s1m", filepath.Join(dir, "z.img"), "."}, filepath.Join(dir, "z.img")},
		{[]string{"--metadata=git", "-F", "spec", "other.img", "."}, "other.img"},
	} {
		cmd, err := parseMakefsArgs(e, c.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.args[cmd.ImageArg]; got != c.want {
			t.Errorf("%q: image argument %q, want %q", c.args, got, c.want)
		}
	}
}
