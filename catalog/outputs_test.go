package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestBuildOutputFolderLinks checks that an output whose folder is a
// symbolic link, leading outside the catalogue or to a folder inside it,
// fails with one line naming the manifest line and the link, and that
// neither build, verify nor clean writes or removes anything through it
// (outputs, temporary files, leftovers of killed runs).
func TestBuildOutputFolderLinks(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{
		ManifestName: "out/a.img: write out/a.img a\n" + // out -> a folder outside
			"in/deep/b: write in/deep/b b\n" + // in -> real, inside
			"ok/c: write ok/c c\n",
		"ok/.keep": "", "real/deep/.keep": "",
	})
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "a.img"), []byte("not ours\n"), 0o644)
	os.WriteFile(filepath.Join(outside, ".fixturegen-tmp-a.img-0123456789ab"), []byte("not ours\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(c.Dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(c.Dir, "in")); err != nil {
		t.Fatal(err)
	}
	before := listFiles(t, outside)
	want := []string{
		"manifest:1: out/a.img: output folder is a symbolic link: out -> " + outside + "; outputs are written only through real folders of the catalogue (make out a folder, or name the output where the link leads)",
		"manifest:2: in/deep/b: output folder is a symbolic link: in -> real; outputs are written only through real folders of the catalogue (make in a folder, or name the output where the link leads)",
	}
	for _, op := range []string{"build", "verify"} {
		run := c.Build
		if op == "verify" {
			run = c.Verify
		}
		_, err := run(context.Background(), &Options{Runner: &fakeRunner{}})
		var me *ManifestError
		if !errors.As(err, &me) {
			t.Fatalf("%s: %v, want a *ManifestError", op, err)
		}
		if !reflect.DeepEqual(me.Problems, want) {
			t.Errorf("%s: problems %q, want %q", op, me.Problems, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(c.Dir, "ok", "c")); err == nil {
		t.Errorf("ok/c was built, though the manifest was refused")
	}
	// An ok/c from an earlier build, which clean must keep when it refuses.
	if err := os.WriteFile(filepath.Join(c.Dir, "ok", "c"), []byte("c"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := listFiles(t, outside); !reflect.DeepEqual(got, before) {
		t.Errorf("outside the catalogue: %q, want %q", got, before)
	}
	if got := listFiles(t, filepath.Join(c.Dir, "real")); !reflect.DeepEqual(got, []string{"deep", "deep/.keep"}) {
		t.Errorf("real/ holds %q", got)
	}
	_, err := c.Clean(context.Background(), nil)
	if !errors.Is(err, ErrOutputLink) || !strings.HasPrefix(err.Error(), "manifest:1: out/a.img: output folder is a symbolic link: out -> ") {
		t.Errorf("Clean error %v, want ErrOutputLink for manifest:1", err)
	}
	if got := listFiles(t, outside); !reflect.DeepEqual(got, before) {
		t.Errorf("after clean, outside the catalogue: %q, want %q", got, before)
	}
	if _, err := os.Stat(filepath.Join(c.Dir, "ok", "c")); err != nil {
		t.Errorf("clean removed ok/c, though it refused: %v", err)
	}
}

// TestBuildOwnFileLinks checks that fixtures.sum, the build state and an
// output, when they are symbolic links to files outside the catalogue, are
// replaced by files of their own (and clean removes the output's link, not
// what it leads to) and the files the links lead to are left
// as they were, and that a lock file that is a symbolic link is refused
// rather than created through.
func TestBuildOwnFileLinks(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{ManifestName: "a: write a x\n"})
	outside := t.TempDir()
	theirs := "a 1 sha256:" + strings.Repeat("00", 32) + "\n"
	for _, n := range []string{SumName, StateName, "a"} {
		os.WriteFile(filepath.Join(outside, n), []byte(theirs), 0o644)
		if err := os.Symlink(filepath.Join(outside, n), filepath.Join(c.Dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Build(context.Background(), &Options{Runner: &fakeRunner{}, Update: true}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{SumName, StateName, "a"} {
		if b, _ := os.ReadFile(filepath.Join(outside, n)); string(b) != theirs {
			t.Errorf("%s written through its link: %q", n, b)
		}
		if fi, err := os.Lstat(filepath.Join(c.Dir, n)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s in the catalogue: %v, %v; want a regular file", n, fi, err)
		}
	}
	os.Remove(filepath.Join(c.Dir, "a"))
	if err := os.Symlink(filepath.Join(outside, "a"), filepath.Join(c.Dir, "a")); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Clean(context.Background(), nil); err != nil || n != 1 {
		t.Errorf("Clean = %d, %v", n, err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "a")); string(b) != theirs {
		t.Errorf("clean removed or changed the file the output's link leads to: %q", b)
	}
	os.Remove(filepath.Join(c.Dir, LockName))
	if err := os.Symlink(filepath.Join(outside, "lock"), filepath.Join(c.Dir, LockName)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Build(context.Background(), &Options{Runner: &fakeRunner{}}); err == nil || !strings.Contains(err.Error(), ".fixturegen-lock is a symbolic link") {
		t.Errorf("Build with a linked lock file: error %v", err)
	}
	if _, err := os.Lstat(filepath.Join(outside, "lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file was made through its link: %v", err)
	}
}
