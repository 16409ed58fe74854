package fixturetest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// updateScript builds an image and compares it with two golden images in
// $GOLDEN (one stale, one missing) and its listing with a stale cmp
// golden in the script itself.
const updateScript = `exec fixturegen makefs -t msdos -s 1440k -T 1700000000 floppy.img tree
cmpimg floppy.img $GOLDEN/floppy.img
cmpimg floppy.img $GOLDEN/new.img
! cmpimg floppy.img tree/hello.txt
imgls floppy.img
cmp stdout listing

-- tree/hello.txt --
hello
-- listing --
stale
`

// TestCmpImgUpdate runs a script with UpdateScripts and UpdateCmds on a
// copy in a temporary directory, as "go test -update" would: cmpimg
// replaces the stale golden image and creates the missing one, testscript
// rewrites the script's cmp golden, and a second run without update mode
// passes on what the first wrote.
func TestCmpImgUpdate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scripts, golden := filepath.Join(dir, "scripts"), filepath.Join(dir, "golden")
	for _, d := range []string{scripts, golden} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(scripts, "update.txtar")
	if err := os.WriteFile(script, []byte(updateScript), 0o644); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(golden, "floppy.img")
	if err := writeFAT(stale, "stale\n"); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(stale, 0o600); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(stale)
	if err != nil {
		t.Fatal(err)
	}
	params := func(update bool) testscript.Params {
		return testscript.Params{
			Dir:           scripts,
			UpdateScripts: update,
			Cmds:          UpdateCmds(update),
			Setup: func(e *testscript.Env) error {
				e.Setenv("GOLDEN", golden)
				return nil
			},
		}
	}
	// Each run is a subtest of its own, so that its scripts, which run in
	// parallel, end before the next run starts.
	t.Run("update", func(t *testing.T) { testscript.Run(t, params(true)) })

	got, err := os.ReadFile(stale)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got, old) {
		t.Error("the stale golden image was not updated")
	}
	if fi, err := os.Stat(stale); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("updated golden: %v, %v; want its mode 0600 kept", fi.Mode(), err)
	}
	made, err := os.ReadFile(filepath.Join(golden, "new.img"))
	if err != nil || !bytes.Equal(made, got) {
		t.Errorf("the missing golden image was not made as the built one: %v", err)
	}
	if ents, _ := os.ReadDir(golden); len(ents) != 2 {
		t.Errorf("golden directory holds %d files, want the 2 images and no temporary file", len(ents))
	}
	text, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), "stale") || !strings.Contains(string(text), "HELLO.TXT") {
		t.Errorf("the script's cmp golden was not updated:\n%s", text)
	}

	t.Run("check", func(t *testing.T) { testscript.Run(t, params(false)) })
}

// TestUpdateGoldenRefusesWorkDir checks that update mode leaves a golden
// in the script's work directory alone, since the directory is thrown
// away, and writes one outside it.
func TestUpdateGoldenRefusesWorkDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(work, "got.img")
	if err := os.WriteFile(got, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	inWork := filepath.Join(work, "sub", "want.img")
	if err := updateGolden(work, got, inWork); !errors.Is(err, ErrGoldenInWorkDir) {
		t.Errorf("golden in $WORK: %v, want ErrGoldenInWorkDir", err)
	}
	outside := filepath.Join(dir, "want.img")
	if err := updateGolden(work, got, outside); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != "new" {
		t.Errorf("golden outside $WORK: %q, %v; want the new bytes", b, err)
	}
	if within(work, filepath.Join(dir, "workshop", "x")) {
		t.Error("a sibling whose name starts with the work directory's is taken as inside it")
	}
}

// TestUpdateGoldenKinds checks that update mode decides by what the golden
// is, as every fixturegen output does: a symbolic link stays a link and
// the file it leads to gets the new bytes with its permission kept (fails
// where the link is replaced by a file), and /dev/null is refused.
func TestUpdateGoldenKinds(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir := t.TempDir()
	got := filepath.Join(dir, "got.img")
	if err := os.WriteFile(got, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "testdata", "want.img")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("old and longer"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "want.img")
	if err := os.Symlink("testdata/want.img", link); err != nil {
		t.Fatal(err)
	}
	if err := updateGolden("", got, link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if b, err := os.ReadFile(real); err != nil || string(b) != "new" {
		t.Errorf("the linked golden holds %q, %v; want the new bytes", b, err)
	}
	if fi, err := os.Stat(real); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the linked golden's mode: %v, %v; want 0600 kept", fi.Mode(), err)
	}
	if err := updateGolden("", got, "/dev/null"); err == nil || err.Error() != "/dev/null is not a regular file" {
		t.Errorf("golden /dev/null: %v, want refused", err)
	}
}
