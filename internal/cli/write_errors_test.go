package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteErrorsNameTarget checks that makefs (every type) and ar, when
// their output cannot be created (a missing folder, a folder that is a
// regular file), print one line naming the user's path, with no temporary
// name and no package prefix, and leave nothing behind.
func TestWriteErrorsNameTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "f"), []byte("hi\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	abs := func(p string) string { return filepath.Join(dir, p) }
	var cases []struct {
		args []string
		want string
	}
	add := func(want string, args ...string) {
		cases = append(cases, struct {
			args []string
			want string
		}{args, want})
	}
	for _, typ := range []string{"msdos", "ffs", "cd9660"} {
		add("fixturegen: makefs: create /nonexistent-folder/x.img: no such file or directory\n", "makefs", "-t", typ, "-T", "0", "/nonexistent-folder/x.img", "src")
		add("fixturegen: makefs: create "+abs("missing/x.img")+": no such file or directory\n", "makefs", "-t", typ, "-T", "0", "missing/x.img", "src")
		add("fixturegen: makefs: create "+abs("file/x.img")+": not a directory\n", "makefs", "-t", typ, "-T", "0", "file/x.img", "src")
	}
	add("fixturegen: ar: create missing/x.a: no such file or directory\n", "ar", "rc", "missing/x.a", "src/f")
	add("fixturegen: ar: create /nonexistent-folder/x.a: no such file or directory\n", "ar", "rc", "/nonexistent-folder/x.a", "src/f")
	add("fixturegen: ar: file/x.a: not a directory\n", "ar", "rc", "file/x.a", "src/f")
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		e := &env{Stdout: &stdout, Stderr: &stderr, Dir: dir, Getenv: func(string) string { return "" }}
		if code := runMain(e, c.args); code != 1 || stderr.String() != c.want {
			t.Errorf("fixturegen %q: exit %d, stderr %q; want exit 1, %q", c.args, code, stderr.String(), c.want)
		}
		if s := stderr.String(); strings.Contains(s, "bcache") || strings.Contains(s, ".fixturegen-tmp") || strings.Contains(s, ".tmp-") {
			t.Errorf("fixturegen %q: %q names a temporary file or a package", c.args, s)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("the folder holds %d files, want src and file", len(ents))
	}
}

// TestMakefsWarnsImageInSource checks that standalone makefs warns, in one
// line naming both paths, when its image lies inside a source folder (the
// first or an extra one), and not otherwise; the image never holds its own
// temporary file.
func TestMakefsWarnsImageInSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{"src/sub", "other"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
		os.WriteFile(filepath.Join(dir, d, "f"), []byte("hi\n"), 0o644)
	}
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		e := &env{Stdout: &stdout, Stderr: &stderr, Dir: dir, Getenv: func(string) string { return "" }}
		code := runMain(e, args)
		return code, stdout.String(), stderr.String()
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"makefs", "-t", "msdos", "-T", "0", "src/sub/x.img", "src"}, "fixturegen: makefs: warning: the image src/sub/x.img lies inside its source folder src: an image left there by an earlier run is packed into the new one\n"},
		{[]string{"makefs", "-t", "ffs", "-T", "0", "other/y.img", "src", "other"}, "fixturegen: makefs: warning: the image other/y.img lies inside its source folder other: an image left there by an earlier run is packed into the new one\n"},
		{[]string{"makefs", "-t", "cd9660", "-T", "0", "z.iso", "src"}, ""},
	} {
		for i := 0; i < 2; i++ {
			if code, _, stderr := run(c.args...); code != 0 || stderr != c.want {
				t.Errorf("fixturegen %q: exit %d, stderr %q; want exit 0, %q", c.args, code, stderr, c.want)
			}
		}
	}
	code, stdout, stderr := run("ls", "src/sub/x.img")
	if code != 0 || !strings.Contains(stdout, "sub/x.img") || strings.Contains(stdout, "tmp") {
		t.Errorf("the second image holds\n%s%s; want the first one, and no temporary file", stdout, stderr)
	}
}
