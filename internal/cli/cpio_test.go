package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// cpioRun runs "fixturegen cpio args..." in-process in dir with stdin.
func cpioRun(dir, stdin string, args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	e := &env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Dir: dir, Getenv: func(string) string { return "" }}
	err = run(e, append([]string{"cpio"}, args...))
	return out.String(), errb.String(), err
}

// cpioTree makes a small tree with a hard-link pair, a symbolic link and
// an empty file, and returns its folder and find | sort's list of it.
func cpioTree(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "etc"), 0o755)
	os.WriteFile(filepath.Join(dir, "etc", "a"), []byte("abc"), 0o644)
	os.Link(filepath.Join(dir, "etc", "a"), filepath.Join(dir, "b"))
	os.WriteFile(filepath.Join(dir, "empty"), nil, 0o600)
	os.Symlink("./etc/a", filepath.Join(dir, "s"))
	return dir, ".\n./b\n./empty\n./etc\n./etc/a\n./s\n"
}

// TestCpioCommandGNU checks that "fixturegen cpio" gives GNU cpio's bytes
// for the same name list and options, on standard output and with -F, and
// that --tree gives those of find . | sort.
func TestCpioCommandGNU(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "cpio")
	dir, list := cpioTree(t)
	for _, args := range [][]string{
		{"-o", "-H", "newc", "--reproducible"},
		{"-o", "-H", "crc", "--reproducible", "-B"},
		{"-o", "-H", "odc", "--reproducible", "-R", "7:8"},
		{"-o", "--format=newc", "--reproducible", "--block-size=2", "-v"},
	} {
		cmd := exec.Command("cpio", args...)
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(list)
		var want, wantErr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &want, &wantErr
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		got, gotErr, err := cpioRun(dir, list, args...)
		if err != nil || got != want.String() || gotErr != wantErr.String() {
			t.Errorf("cpio %v: %d bytes, stderr %q, %v; GNU cpio %d bytes, stderr %q", args, len(got), gotErr, err, want.Len(), wantErr.String())
		}
		out := filepath.Join(t.TempDir(), "x.cpio")
		if _, _, err := cpioRun(dir, list, append(args, "-F", out)...); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(out); !bytes.Equal(b, want.Bytes()) {
			t.Errorf("cpio %v -F: not GNU cpio's bytes", args)
		}
		if _, _, err := cpioRun(t.TempDir(), "", append(args, "--tree", dir, "-F", out)...); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(out); !bytes.Equal(b, want.Bytes()) {
			t.Errorf("cpio %v --tree: not GNU cpio's bytes", args)
		}
	}
}

// TestCpioCommandReadBack lists and extracts an archive fixturegen wrote,
// and has GNU cpio and bsdtar list it.
func TestCpioCommandReadBack(t *testing.T) {
	t.Parallel()
	dir, list := cpioTree(t)
	arc := filepath.Join(t.TempDir(), "a.cpio")
	if _, _, err := cpioRun(dir, list, "-o", "-H", "crc", "--reproducible", "--quiet", "-F", arc); err != nil {
		t.Fatal(err)
	}
	names, _, err := cpioRun(dir, "", "-t", "-F", arc)
	if want := ".\nempty\netc\nb\netc/a\ns\n"; err != nil || names != want {
		t.Errorf("-t: %q, %v; want %q", names, err, want)
	}
	dst := t.TempDir()
	if _, _, err := cpioRun(dst, "", "-i", "-F", arc); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "b")); err != nil || string(b) != "abc" {
		t.Errorf("extracted b: %q, %v", b, err)
	}
	if l, err := os.Readlink(filepath.Join(dst, "s")); err != nil || l != "etc/a" {
		t.Errorf("extracted s -> %q, %v", l, err)
	}
	if tooltest.Need(t, "cpio") != "" {
		cmd := exec.Command("cpio", "-t", "--quiet", "--only-verify-crc", "-F", arc)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("cpio --only-verify-crc: %v: %s", err, out)
		}
		// GNU cpio -i makes the same files: contents, the hard link,
		// the symbolic link.
		gnu := t.TempDir()
		cmd = exec.Command("cpio", "-idm", "--quiet", "-F", arc)
		cmd.Dir = gnu
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("cpio -idm: %v: %s", err, out)
		}
		for _, f := range []string{"b", "etc/a", "empty"} {
			want, _ := os.ReadFile(filepath.Join(dir, f))
			if got, err := os.ReadFile(filepath.Join(gnu, f)); err != nil || !bytes.Equal(got, want) {
				t.Errorf("GNU cpio -i %s: %q, %v; want %q", f, got, err, want)
			}
		}
		if !os.SameFile(mustStat(t, filepath.Join(gnu, "b")), mustStat(t, filepath.Join(gnu, "etc", "a"))) {
			t.Errorf("GNU cpio -i: b and etc/a are not one file")
		}
		if l, err := os.Readlink(filepath.Join(gnu, "s")); err != nil || l != "etc/a" {
			t.Errorf("GNU cpio -i: s -> %q, %v", l, err)
		}
	}
	if tooltest.Need(t, "bsdtar") != "" {
		out, err := exec.Command("bsdtar", "-tf", arc).CombinedOutput()
		if err != nil || string(out) != names {
			t.Errorf("bsdtar -tf: %q, %v; want %q", out, err, names)
		}
	}
}

// TestCpioCommandErrors checks the one-line errors: a lying header, a
// missing name (nothing left at the target), -H bin, no -H.
func TestCpioCommandErrors(t *testing.T) {
	t.Parallel()
	dir, list := cpioTree(t)
	arc := filepath.Join(dir, "a.cpio")
	if _, _, err := cpioRun(dir, list, "-o", "-H", "newc", "--reproducible", "--quiet", "-F", arc); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(arc)
	copy(b[112+54:], "7FFFFFFF") // the second entry's c_filesize
	os.WriteFile(arc, b, 0o644)
	_, _, err := cpioRun(dir, "", "-t", "-F", arc)
	if err == nil || !strings.Contains(err.Error(), "c_filesize 2147483647") || !strings.Contains(err.Error(), "at byte 0xa6") ||
		strings.Contains(err.Error(), "\n") {
		t.Errorf("lying c_filesize: %v", err)
	}
	out := filepath.Join(t.TempDir(), "x.cpio")
	if _, _, err := cpioRun(dir, "./nothere\n", "-o", "-H", "newc", "-F", out); err == nil || !strings.Contains(err.Error(), "nothere") {
		t.Errorf("missing name: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
	for _, args := range [][]string{{"-o", "-H", "bin"}, {"-o"}, {"-o", "-H", "newc", "--tree", dir}} {
		_, _, err := cpioRun(dir, "", args...)
		if _, ok := err.(*usageError); !ok {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// TestPlanCpio checks the catalogue's plan of a cpio line: the tree is the
// input, -F's word the output, and lines without --tree or --timestamp are
// refused.
func TestPlanCpio(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "root"), 0o755)
	p, err := Runner().Plan(dir, strings.Fields("cpio -o -H newc --reproducible --timestamp=0 --tree root -F out.cpio"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Output != 9 || len(p.Inputs) == 0 || p.Inputs[0].Path != "root" || p.Times {
		t.Errorf("plan %+v", p)
	}
	for _, line := range []string{"cpio -o -H newc --reproducible --tree root -F out.cpio", "cpio -o -H newc --reproducible -F out.cpio"} {
		if _, err := Runner().Plan(dir, strings.Fields(line)); err == nil {
			t.Errorf("%s: planned", line)
		}
	}
}

// TestCpioListLong checks that "fixturegen cpio -tv" lists an archive as
// GNU cpio -tv does: owners by name, a device's numbers for its size, the
// time of day for a recent file and the year for an old one.
func TestCpioListLong(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "cpio")
	dir, list := cpioTree(t)
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chtimes(filepath.Join(dir, "empty"), old, old)
	if tooltest.Mknod(t, filepath.Join(dir, "tty"), true, 0o620, 4, 1) { // root only
		list += "./tty\n"
	}
	archive, _, err := cpioRun(dir, list, "-o", "-H", "newc")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("cpio", "-tv", "--quiet")
	cmd.Stdin = strings.NewReader(archive)
	want, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := cpioRun(dir, archive, "-tv")
	if err != nil || got != string(want) {
		t.Errorf("fixturegen cpio -tv (%v):\n%s\nGNU cpio -tv:\n%s", err, got, want)
	}
}

// mustStat returns the FileInfo of p, whose identity (device and inode)
// os.SameFile compares.
func mustStat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}
