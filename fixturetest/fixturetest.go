// Package fixturetest runs fixturegen inside testscript scenarios and
// gives them commands to look into images and archives.
//
// To run "exec fixturegen makefs ..." and the other fixturegen commands in
// your scripts without building fixturegen, register the program in
// TestMain, and add the commands to testscript.Params.Cmds:
//
//	func TestMain(m *testing.M) {
//		testscript.Main(m, fixturetest.Programs())
//	}
//
//	func TestScripts(t *testing.T) {
//		testscript.Run(t, testscript.Params{
//			Dir:  "testdata/script",
//			Cmds: fixturetest.Cmds(),
//		})
//	}
//
// Programs maps "fixturegen" to Main, which runs the same command as
// "go tool fixturegen" in the test binary; merge it and Cmds into maps of
// your own to have other programs and commands too. Runner gives Go tests
// the catalogue runner of fixturegen build, so that a test builds or
// verifies a catalogue (package catalog) without the fixturegen program.
//
// # Commands
//
// The commands recognise FAT images, FFS (UFS1 and UFS2) images, ISO 9660
// images and ar archives, and every other format registered with
// imgkit/inspect, from their first bytes. File names are relative to the
// script's current directory. A command with the wrong number of
// arguments, or negated where that is not supported, fails with a "usage:"
// message.
//
//	cmpimg file1 file2
//
// Compare file1 and file2 byte for byte. When they differ, cmpimg writes
// what differs by structure to the script's stderr, as "fixturegen diff"
// prints it: which file or structure, which field (by its specification's
// name, such as BPB_SecPerClus or fs_minfree), at which offset, with the
// old and new values; bytes outside every parsed field as byte ranges.
// Without '!' it then fails; with '!' it succeeds, so that "stderr" can
// match the report, and fails when the files are identical:
//
//	! cmpimg old.img new.img
//	stderr 'BPB_SecPerClus'
//
//	imgls image
//
// List the files of image as "fixturegen ls" does, one line each (mode,
// size, modification time in UTC, the format's own column, the path), to
// the script's stdout, for the stdout and cmp commands that follow. It
// cannot be negated.
//
//	imgcat image path...
//
// Copy the named files of image to the script's stdout, in order. Paths are
// slash-separated and relative to the image's root. It cannot be negated.
//
// # Updating golden images
//
// In update mode (UpdateCmds(true), meant to follow Params.UpdateScripts)
// cmpimg without '!' refreshes its golden file2 instead of failing: where
// file1 and file2 differ, or file2 does not exist yet, it copies file1 over
// file2, logs the structural diff and succeeds, as testscript's cmp
// rewrites its golden when UpdateScripts is set. Images do not fit a txtar
// archive, so file2 is a file of the test's testdata named by an absolute
// path, most simply through a variable the Setup function sets; a file2
// inside the script's work directory is left alone and cmpimg fails
// (ErrGoldenInWorkDir). '!' cmpimg never updates.
//
//	var update = flag.Bool("update", false, "rewrite cmp goldens and golden images")
//
//	func TestScripts(t *testing.T) {
//		golden, err := filepath.Abs("testdata/golden")
//		if err != nil {
//			t.Fatal(err)
//		}
//		testscript.Run(t, testscript.Params{
//			Dir:           "testdata/script",
//			UpdateScripts: *update,
//			Cmds:          fixturetest.UpdateCmds(*update),
//			Setup: func(e *testscript.Env) error {
//				e.Setenv("GOLDEN", golden)
//				return nil
//			},
//		})
//	}
//
// A script then says "cmpimg floppy.img $GOLDEN/floppy.img", and
// "go test -run TestScripts -update" rewrites the goldens after a change
// that alters images on purpose (with -v it shows what changed in each).
package fixturetest

import (
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/internal/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

// Main runs fixturegen with the process's arguments, standard streams,
// working directory and environment, exactly as the fixturegen program
// does, and exits with its status. It is meant for testscript.Main, which
// runs it when a script executes "fixturegen" (see Programs).
func Main() {
	os.Exit(cli.Main())
}

// Programs returns the programs of this package by name, for
// testscript.Main: "fixturegen" runs Main. Each call returns a new map.
func Programs() map[string]func() {
	return map[string]func(){"fixturegen": Main}
}

// Cmds returns the commands of this package by name, for
// testscript.Params.Cmds, with cmpimg comparing only (see UpdateCmds for
// its update mode). Each call returns a new map.
func Cmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"cmpimg": CmpImg,
		"imgls":  ImgLs,
		"imgcat": ImgCat,
	}
}

// CmpImg implements "cmpimg file1 file2".
func CmpImg(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cmpimg file1 file2")
	}
	rep := compare(ts, args[0], args[1])
	if rep.Same {
		if neg {
			ts.Fatalf("%s and %s are identical", args[0], args[1])
		}
		return
	}
	if err := rep.Write(ts.Stderr(), args[0], args[1]); err != nil {
		ts.Fatalf("cmpimg: %v", err)
	}
	if !neg {
		ts.Fatalf("%s and %s differ", args[0], args[1])
	}
}

// compare compares the files name1 and name2 of the script's directory
// as cmpimg does.
func compare(ts *testscript.TestScript, name1, name2 string) *inspect.Report {
	a, sizeA := open(ts, name1)
	defer a.Close()
	b, sizeB := open(ts, name2)
	defer b.Close()
	rep, err := inspect.Diff(a, sizeA, b, sizeB)
	ts.Check(err)
	return rep
}

// ImgLs implements "imgls image".
func ImgLs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: imgls image")
	}
	f, size := open(ts, args[0])
	defer f.Close()
	if err := inspect.ListFile(ts.Stdout(), f, size); err != nil {
		ts.Fatalf("imgls %s: %v", args[0], err)
	}
}

// ImgCat implements "imgcat image path...".
func ImgCat(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: imgcat image path...")
	}
	f, size := open(ts, args[0])
	defer f.Close()
	fsys, _, err := inspect.Open(f, size)
	if err != nil {
		ts.Fatalf("imgcat %s: %v", args[0], err)
	}
	for _, p := range args[1:] {
		name := path.Clean(strings.TrimPrefix(p, "/"))
		if !fs.ValidPath(name) {
			ts.Fatalf("imgcat %s: %s: invalid path", args[0], p)
		}
		if err := inspect.Cat(ts.Stdout(), fsys, name); err != nil {
			ts.Fatalf("imgcat %s: %s: %v", args[0], p, err)
		}
	}
}

// open opens a file named relative to the script's directory.
func open(ts *testscript.TestScript, name string) (*os.File, int64) {
	f, size, err := imgfmt.OpenFile(ts.MkAbs(name))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	return f, size
}
