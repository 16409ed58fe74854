package cli

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestOutputsOnTmpfs runs makefs (every type) and ar with outputs under
// /dev/shm, an ordinary tmpfs: a new output is made, and an existing
// larger regular file is replaced by exactly the new output's bytes, with
// nothing left beside it (fails where the name /dev/ makes the path a
// device: "no such file or directory", and a 5,000,000-byte file keeping
// its tail).
func TestOutputsOnTmpfs(t *testing.T) {
	t.Parallel()
	shm := tooltest.Tmpfs(t)
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "f"), []byte("hi\n"), 0o644)
	old := bytes.Repeat([]byte{0xa5}, 5000000)
	for _, c := range []struct {
		name string
		args func(out string) []string
	}{
		{"msdos", func(out string) []string { return []string{"makefs", "-t", "msdos", "-T", "0", out, "src"} }},
		{"ffs", func(out string) []string { return []string{"makefs", "-t", "ffs", "-T", "0", out, "src"} }},
		{"cd9660", func(out string) []string { return []string{"makefs", "-t", "cd9660", "-T", "0", out, "src"} }},
		{"ar", func(out string) []string { return []string{"ar", "rcs", out, "src/f"} }},
	} {
		fresh := filepath.Join(shm, c.name+".new")
		if out, err := arRun(t, dir, nil, c.args(fresh)...); err != nil {
			t.Errorf("%s to a new file under %s: %v %s", c.name, shm, err, out)
			continue
		}
		want, err := os.ReadFile(fresh)
		if err != nil {
			t.Fatal(err)
		}
		big := filepath.Join(shm, c.name+".old")
		if err := os.WriteFile(big, old, 0o644); err != nil {
			t.Fatal(err)
		}
		if c.name == "ar" {
			// ar edits an existing archive: one with a 5,000,000-byte
			// member, which is deleted.
			os.WriteFile(filepath.Join(dir, "src", "g"), old, 0o644)
			os.Remove(big)
			if out, err := arRun(t, dir, nil, "ar", "rc", big, "src/f", "src/g"); err != nil {
				t.Fatalf("ar rc: %v %s", err, out)
			}
			if out, err := arRun(t, dir, nil, "ar", "d", big, "g"); err != nil {
				t.Fatalf("ar d: %v %s", err, out)
			}
			if out, err := arRun(t, dir, nil, "ar", "t", big); err != nil || out != "f\n" {
				t.Errorf("ar t after ar d: %q, %v; want f alone", out, err)
			}
		} else if out, err := arRun(t, dir, nil, c.args(big)...); err != nil {
			t.Fatalf("%s over a larger file: %v %s", c.name, err, out)
		}
		if got, _ := os.ReadFile(big); !bytes.Equal(got, want) {
			t.Errorf("%s: the replaced file holds %d bytes, want exactly the %d of the output", c.name, len(got), len(want))
		}
	}
	for _, n := range names(t, shm) {
		if strings.HasPrefix(n, ".") {
			t.Errorf("left %s in %s", n, shm)
		}
	}
}

// TestOutputKindErrors runs makefs and ar on outputs that are no file: a
// folder and a socket are refused in one line naming them, and nothing is
// made.
func TestOutputKindErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "f"), []byte("hi\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "folder"), 0o755)
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Skip("unix socket:", err)
	}
	defer l.Close()
	abs := func(p string) string { return filepath.Join(dir, p) }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"makefs", "-t", "msdos", "folder", "src"}, "fixturegen: makefs: " + abs("folder") + ": the image's path is a directory\n"},
		{[]string{"makefs", "-t", "ffs", "sock", "src"}, "fixturegen: makefs: create " + abs("sock") + ": not a file, device or named pipe (a socket)\n"},
		{[]string{"ar", "rcs", "folder", "src/f"}, "fixturegen: ar: folder: not a regular file (a directory)\n"},
		{[]string{"ar", "rcs", "sock", "src/f"}, "fixturegen: ar: create sock: not a file, device or named pipe (a socket)\n"},
	} {
		var stdout, stderr bytes.Buffer
		e := &env{Stdout: &stdout, Stderr: &stderr, Dir: dir, Getenv: func(string) string { return "" }}
		if code := runMain(e, c.args); code != 1 || stderr.String() != c.want {
			t.Errorf("fixturegen %q: exit %d, stderr %q; want exit 1, %q", c.args, code, stderr.String(), c.want)
		}
	}
	if got := strings.Join(names(t, dir), " "); got != "folder sock src" {
		t.Errorf("the folder holds %s", got)
	}
}
