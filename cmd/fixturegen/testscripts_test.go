package main

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The scenarios live in the top-level testscripts folder. They are run
// from here, the fixturegen package itself, because a program's package
// main cannot be imported: linking the test binary with the real command
// lets testscript run "fixturegen" in-process, as a re-execution of this
// test binary, with no separate build.

var update = flag.Bool("update", false, "rewrite the scenarios' expected output (cmp files) with what the commands produced")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"fixturegen": main,
	})
}

// TestScripts runs ../../testscripts/*.txtar. Run one with
// go test ./cmd/fixturegen -run TestScripts/NAME, and refresh expected
// output with -update.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("..", "..", "testscripts"),
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			// Scenarios must not depend on the caller's environment.
			e.Setenv("SOURCE_DATE_EPOCH", "")
			e.Setenv("FIXTUREGEN_CACHE", os.Getenv("FIXTUREGEN_CACHE"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": cmdExits,
		},
	})
}

// cmdExits implements the script command
//
//	exits STATUS program [args...]
//
// which runs program as exec does, keeping its stdout and stderr for the
// next stdout and stderr commands, and fails unless it exits with STATUS.
// It cannot be negated: the status says what is expected.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits STATUS program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("usage: exits STATUS program [args...]")
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}
