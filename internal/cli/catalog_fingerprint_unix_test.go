//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// sameTimes gives each path one time and one change time
// (tooltest.SameTimes).
func sameTimes(t *testing.T, paths ...string) {
	t.Helper()
	tooltest.SameTimes(t, time.Unix(1_700_000_000, 0), paths...)
}

// TestBuildFingerprintKinds builds a makefs catalogue and changes, keeping
// every size, mode and time: the -F spec, a symbolic link, retargeted to
// a twin spec; the source folder, a link, retargeted to a twin folder; an
// output, edited in place. Each change rebuilds its entry, the output's
// with a note saying why, and verify, before that build, fails naming the
// edited output.
func TestBuildFingerprintKinds(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod": "module m\n",
		"fixtures/manifest": "spec.img: makefs -t msdos -s 1440k -T 0 -F spec.mtree spec.img src\n" +
			"dir.img: makefs -t msdos -s 1440k -T 0 dir.img tree\n",
		"fixtures/specs/one.mtree": "#mtree\n./a.txt type=file mode=0600\n",
		"fixtures/specs/two.mtree": "#mtree\n./a.txt type=file mode=0640\n",
		"fixtures/src/a.txt":       "a\n",
		"fixtures/trees/one/f":     "one\n",
		"fixtures/trees/two/f":     "two\n",
	})
	fx := filepath.Join(root, "fixtures")
	at := func(names ...string) []string {
		var ps []string
		for _, n := range names {
			ps = append(ps, filepath.Join(fx, filepath.FromSlash(n)))
		}
		return ps
	}
	for _, l := range [][2]string{{"specs/one.mtree", "spec.mtree"}, {"trees/one", "tree"}} {
		if err := os.Symlink(l[0], filepath.Join(fx, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	sameTimes(t, at("specs/one.mtree", "specs/two.mtree", "trees/one", "trees/one/f", "trees/two", "trees/two/f")...)
	relink := func(name, target string) {
		t.Helper()
		p := filepath.Join(fx, name)
		if err := os.Symlink(target, p+".new"); err != nil {
			t.Fatal(err)
		}
		sameTimes(t, p+".new")
		if err := os.Rename(p+".new", p); err != nil {
			t.Fatal(err)
		}
	}
	run := buildRunner(t)
	build := func(args ...string) (string, string) {
		t.Helper()
		code, stdout, stderr := run(root, append([]string{"build"}, args...)...)
		if code != 0 {
			t.Fatalf("build %q: exit %d\n%s%s", args, code, stdout, stderr)
		}
		return stdout, stderr
	}
	build()
	for _, tc := range []struct {
		what, entry string
		change      func()
	}{
		{"the -F spec's link retargeted", "spec.img", func() { relink("spec.mtree", "specs/two.mtree") }},
		{"the source folder's link retargeted", "dir.img", func() { relink("tree", "trees/two") }},
	} {
		if out, _ := build("-update"); !strings.Contains(out, " 0 built") {
			t.Fatalf("%s: not settled:\n%s", tc.what, out)
		}
		tc.change()
		if out, _ := build("-update"); !strings.Contains(out, tc.entry+" ") || !strings.Contains(out, "1 built") {
			t.Errorf("%s: want %s rebuilt:\n%s", tc.what, tc.entry, out)
		}
	}

	img := filepath.Join(fx, "dir.img")
	fi, err := os.Stat(img)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(img, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("edited"), 0x2000)
	f.Close()
	os.Chtimes(img, fi.ModTime(), fi.ModTime())
	if code, _, stderr := run(root, "verify"); code == 0 || !strings.Contains(stderr, "dir.img: the output dir.img in the catalogue folder has ") {
		t.Errorf("verify with an output edited: exit %d\n%s", code, stderr)
	}
	out, stderr := build()
	if !strings.Contains(out, "dir.img ") || !strings.Contains(stderr, "dir.img: the output is not the file the last build wrote") {
		t.Errorf("build with an output edited:\n%s%s", out, stderr)
	}
	if code, stdout, stderr := run(root, "verify"); code != 0 {
		t.Errorf("verify after the rebuild: exit %d\n%s%s", code, stdout, stderr)
	}
}
