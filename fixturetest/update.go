package fixturetest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// ErrGoldenInWorkDir is the error of an update of a golden image that
// lies in the script's work directory ($WORK): a file of the script's own
// archive, or one a Setup function copied in. Either is thrown away when
// the script ends, so updating it would refresh nothing; an image golden
// lives in the test's testdata, named by an absolute path.
var ErrGoldenInWorkDir = errors.New("fixturetest: the golden image is in the script's work directory, which is thrown away; keep it in testdata and name it by an absolute path (see the package documentation)")

// UpdateCmds returns the commands of Cmds with cmpimg in update mode
// when update is set (see UpdateCmpImg), for testscript.Params.Cmds. Give
// it the Params' UpdateScripts, so that one run with the -update flag of a
// test refreshes the cmp goldens in the scripts and the golden images
// together. Each call returns a new map.
func UpdateCmds(update bool) map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := Cmds()
	if update {
		cmds["cmpimg"] = UpdateCmpImg
	}
	return cmds
}

// UpdateCmpImg implements "cmpimg file1 file2" in update mode: where
// CmpImg would fail because file1 and file2 differ, or because file2 does
// not exist, it copies file1 over file2 (through a temporary file beside
// it, renamed into place, keeping file2's permissions) and succeeds,
// logging the update. file2 must lie outside the script's work directory
// ($WORK); a golden inside it is not updated and the command fails as
// CmpImg does (see ErrGoldenInWorkDir). Negated, it is CmpImg.
func UpdateCmpImg(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		CmpImg(ts, neg, args)
		return
	}
	golden := ts.MkAbs(args[1])
	if _, err := os.Stat(golden); err == nil {
		rep := compare(ts, args[0], args[1])
		if rep.Same {
			return
		}
		var report strings.Builder
		if err := rep.Write(&report, args[0], args[1]); err != nil {
			ts.Fatalf("cmpimg: %v", err)
		}
		ts.Logf("%s", report.String())
	}
	if err := updateGolden(ts.Getenv("WORK"), ts.MkAbs(args[0]), golden); err != nil {
		ts.Logf("cmpimg: not updating %s: %v", args[1], err)
		CmpImg(ts, neg, args)
		return
	}
	ts.Logf("cmpimg: updated %s from %s", golden, args[0])
}

// updateGolden copies the file got over the file golden, which must lie
// outside the directory work: into a temporary file beside golden,
// renamed over it once complete, with golden's permission bits (0644 for
// a golden made new). What golden is decides, as for every output of
// fixturegen (bcache.ResolveTarget): a symbolic link is followed and the
// file it leads to replaced, and anything but a regular file or a new
// name is refused.
func updateGolden(work, got, golden string) error {
	if work != "" && within(work, golden) {
		return ErrGoldenInWorkDir
	}
	t, err := bcache.ResolveTarget(golden)
	if err != nil {
		return err
	}
	if !t.Regular() {
		return fmt.Errorf("%s is not a regular file", golden)
	}
	perm := fs.FileMode(0o644)
	if t.Info != nil {
		perm = t.Info.Mode().Perm()
	}
	src, err := os.Open(got)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp, err := tempfile.Create(t.Dir(), golden)
	if err != nil {
		return err
	}
	defer tempfile.Forget(tmp.Name())
	_, err = io.Copy(tmp, src)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), t.Path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", golden, err)
	}
	return nil
}

// within reports whether path lies in the directory dir, both absolute;
// symbolic links in either are resolved where they exist, so that a work
// directory under a linked temporary directory is still recognised.
func within(dir, path string) bool {
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	if p, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		path = filepath.Join(p, filepath.Base(path))
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
