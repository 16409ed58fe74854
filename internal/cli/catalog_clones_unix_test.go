//go:build unix

package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/catalog"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// cloneManifest is one catalogue with every format whose bytes a checkout
// could change: UFS1 and UFS2 and Rock Ridge store owners, modes, link
// counts and times, FAT a read-only bit, ar (with U) owners and modes.
const cloneManifest = "" +
	"ufs1.img: makefs -t ffs -s 1m -T 0 ufs1.img tree\n" +
	"ufs2.img: makefs -t ffs -o version=2 -s 1m -T 0 ufs2.img tree\n" +
	"rr.iso: makefs -t cd9660 -o rockridge -T 0 rr.iso tree\n" +
	"fat.img: makefs -t msdos -s 1440k -T 0 fat.img tree\n" +
	"lib.a: ar rcs lib.a tree/a.txt tree/run.sh tree/sub/copy.txt\n"

// cloneFiles are the committed files of the catalogue below its folder;
// tree/run.sh is executable and tree/link is a symbolic link to
// sub/b.txt. a.txt and sub/copy.txt have the same contents, so that one
// clone can hard-link them without changing what git holds.
var cloneFiles = map[string]string{
	"tree/a.txt":        "same\n",
	"tree/sub/copy.txt": "same\n",
	"tree/sub/b.txt":    "b\n",
	"tree/run.sh":       "#!/bin/sh\necho run\n",
}

// writeCheckout writes the repository root/ (go.mod and fixtures/ with the
// manifest and cloneFiles) with the modes a git checkout gets under umask:
// files 0666 and the executable 0777, directories 0777, less the umask.
func writeCheckout(t *testing.T, root, manifest string, umask os.FileMode) {
	t.Helper()
	files := map[string]string{"go.mod": "module m\n", "fixtures/manifest": manifest}
	for name, data := range cloneFiles {
		files["fixtures/"+name] = data
	}
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		for d := filepath.Dir(p); ; d = filepath.Dir(d) {
			if err := os.MkdirAll(d, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(d, 0o777&^umask); err != nil {
				t.Fatal(err)
			}
			if d == root {
				break
			}
		}
		mode := os.FileMode(0o666)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o777
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode&^umask); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("sub/b.txt", filepath.Join(root, "fixtures", "tree", "link")); err != nil {
		t.Fatal(err)
	}
}

// gitEnv is the environment of the test's git commands: no user or system
// configuration, a fixed author.
func gitEnv(home string) []string {
	return append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
}

// cloner makes checkouts of one repository holding manifest. With git on
// PATH it commits the files once and makes each checkout with git clone
// run under the checkout's umask (sh's umask builtin, since a process's
// umask is shared by all its goroutines and so by parallel tests), which
// gives exactly the modes, hard links (none) and times of a real
// checkout; without git it writes each checkout with the modes git would
// give (writeCheckout).
type cloner struct {
	t        *testing.T
	manifest string
	origin   string // the committed repository, or "" without git
	home     string
}

func newCloner(t *testing.T, manifest string) *cloner {
	c := &cloner{t: t, manifest: manifest, home: t.TempDir()}
	if _, err := exec.LookPath("git"); err != nil {
		return c // write checkouts directly
	}
	c.origin = filepath.Join(t.TempDir(), "origin")
	writeCheckout(t, c.origin, manifest, 0o022)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "fixtures"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = c.origin, gitEnv(c.home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return c
}

// checkout returns a new checkout made under umask.
func (c *cloner) checkout(umask os.FileMode) string {
	c.t.Helper()
	dst := filepath.Join(c.t.TempDir(), "clone")
	if c.origin == "" {
		writeCheckout(c.t, dst, c.manifest, umask)
		return dst
	}
	cmd := exec.Command("sh", "-c", `umask "$0" && exec git clone -q "$1" "$2"`, "0"+strconv.FormatUint(uint64(umask), 8), c.origin, dst)
	cmd.Env = gitEnv(c.home)
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("git clone under umask %#o: %v\n%s", umask, err, out)
	}
	if fi, err := os.Stat(filepath.Join(dst, "fixtures", "tree", "run.sh")); err != nil || fi.Mode().Perm() != 0o777&^umask {
		c.t.Fatalf("git clone under umask %#o: run.sh %v, %v; want mode %v", umask, fi.Mode(), err, 0o777&^umask)
	}
	return dst
}

// chownTree gives every entry under root, links included, to uid:gid, as
// chown -R does.
func chownTree(t *testing.T, root string, uid, gid int) {
	t.Helper()
	err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// buildSums runs "fixturegen build -update" in the checkout root and
// returns each output's line of the fixtures.sum it writes.
func buildSums(t *testing.T, root string) map[string]string {
	t.Helper()
	code, stdout, stderr := buildRunner(t)(root, "build", "-update", "-q")
	if code != 0 {
		t.Fatalf("build -update in %s: exit %d\n%s%s", root, code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(root, "fixtures", sumName))
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			sums[f[0]] = l
		}
	}
	sums[""] = string(b) // the whole text
	return sums
}

// TestCatalogueClones builds one catalogue in checkouts that differ in
// everything git does not keep — umask, owner, times, hard links — and
// requires one fixtures.sum from all of them: catalogue entries run with
// --metadata=git.
func TestCatalogueClones(t *testing.T) {
	t.Parallel()
	cl := newCloner(t, cloneManifest)
	base := cl.checkout(0o022)
	want := buildSums(t, base)
	for _, name := range []string{"ufs1.img", "ufs2.img", "rr.iso", "fat.img", "lib.a"} {
		if want[name] == "" {
			t.Fatalf("%s has no sum:\n%s", name, want[""])
		}
	}
	clones := map[string]func() string{
		"umask 002": func() string { return cl.checkout(0o002) },
		"umask 077": func() string { return cl.checkout(0o077) },
		"other mtimes": func() string {
			d := cl.checkout(0o022)
			tooltest.PinTimes(t, d, time.Date(2011, 3, 4, 5, 6, 7, 0, time.UTC))
			return d
		},
		"a hard link": func() string {
			d := cl.checkout(0o022)
			a, cp := filepath.Join(d, "fixtures", "tree", "a.txt"), filepath.Join(d, "fixtures", "tree", "sub", "copy.txt")
			os.Remove(cp)
			if err := os.Link(a, cp); err != nil {
				t.Fatal(err)
			}
			return d
		},
	}
	root := os.Geteuid() == 0
	if root {
		for _, id := range []int{1000, 1001} {
			clones["owner "+strconv.Itoa(id)] = func() string {
				d := cl.checkout(0o022)
				chownTree(t, d, id, id)
				return d
			}
		}
	}
	for what, mk := range clones {
		if got := buildSums(t, mk()); got[""] != want[""] {
			t.Errorf("%s: fixtures.sum\n%s\nwant (umask 022, this user)\n%s", what, got[""], want[""])
		}
	}
	// Package catalog with Runner (magefixtures' and fixturetest's way)
	// runs the lines as the command does.
	d := cl.checkout(0o077)
	cat, err := catalog.Load(filepath.Join(d, "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cat.Build(context.Background(), &catalog.Options{Runner: Runner(), Update: true}); err != nil {
		t.Fatalf("package catalog, umask 077: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(d, "fixtures", sumName)); err != nil || string(b) != want[""] {
		t.Errorf("package catalog, umask 077: fixtures.sum\n%s\n%v\nwant (fixturegen build, umask 022)\n%s", b, err, want[""])
	}
	if !root {
		tooltest.Missing(t, "the clones owned by uid 1000 and 1001 need root to chown")
	}
}

// TestCatalogueHostMetadata checks that the same entries with
// --metadata=host do take the checkout's umask and owner, so that
// TestCatalogueClones can fail.
func TestCatalogueHostMetadata(t *testing.T) {
	t.Parallel()
	manifest := "" +
		"ufs1.img: makefs --metadata=host -t ffs -s 1m -T 0 ufs1.img tree\n" +
		"rr.iso: makefs -t cd9660 -o rockridge --metadata=host -T 0 rr.iso tree\n"
	cl := newCloner(t, manifest)
	differ := func(what string, a, b map[string]string) {
		t.Helper()
		for _, name := range []string{"ufs1.img", "rr.iso"} {
			if a[name] == "" || a[name] == b[name] {
				t.Errorf("--metadata=host, %s: the same %s in both: %q", what, name, a[name])
			}
		}
	}
	differ("umask 022 and 077", buildSums(t, cl.checkout(0o022)), buildSums(t, cl.checkout(0o077)))
	if os.Geteuid() != 0 {
		tooltest.Missing(t, "clones owned by uid 1000 and 1001 need root to chown")
	}
	sums := make([]map[string]string, 2)
	for i, id := range []int{1000, 1001} {
		d := cl.checkout(0o022)
		chownTree(t, d, id, id)
		sums[i] = buildSums(t, d)
	}
	differ("owners 1000 and 1001", sums[0], sums[1])
}
