package cli_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fixturegen/fixturegen/fixturetest"
	"github.com/fixturegen/fixturegen/internal/cli"
	"github.com/fixturegen/fixturegen/internal/tooltest"
	"github.com/rogpeppe/go-internal/testscript"
)

// The scenarios live in the top-level testscripts folder. They are run
// from here, an external test of the command's package, as a user's
// scenarios would run: fixturetest.Programs links the real command into
// the test binary (with the hidden commands that this package's tests
// register, such as test-write), and testscript runs "fixturegen" as a
// re-execution of it, with no separate build.

var update = flag.Bool("update", false, "rewrite the scenarios' expected output (cmp files) with what the commands produced")

func TestMain(m *testing.M) {
	cli.RunAsProcess()
	testscript.Main(tooltest.M{M: m}, fixturetest.Programs())
}

// TestScripts runs ../../testscripts/*.txtar. Run one with
// go test ./internal/cli -run TestScripts/NAME, and refresh expected
// output with -update.
func TestScripts(t *testing.T) {
	t.Parallel()
	dir, files := filepath.Join("..", "..", "testscripts"), []string(nil)
	if testing.Short() {
		// -short (the race run in CI; the long run takes them all):
		// every fourth scenario
		all, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
		if err != nil || len(all) == 0 {
			t.Fatalf("no scenarios in %s: %v", dir, err)
		}
		for i, f := range all {
			if tooltest.ShortSample(i, 4) {
				files = append(files, f)
			}
		}
		dir = ""
	}
	testscript.Run(t, testscript.Params{
		Dir:           dir,
		Files:         files,
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			// Scenarios must not depend on the caller's environment.
			e.Setenv("SOURCE_DATE_EPOCH", "")
			e.Setenv("FIXTUREGEN_CACHE", os.Getenv("FIXTUREGEN_CACHE"))
			setupGo(e)
			return nil
		},
		Cmds: scriptCmds(),
		Condition: func(cond string) (bool, error) {
			ok, err := toolCondition(cond)
			if !ok && err == nil {
				tooltest.Skipped(strings.TrimPrefix(cond, "tool:"))
			}
			return ok, err
		},
	})
}

// toolCondition implements the scenarios' condition [tool:NAME]: true
// when the command NAME is in PATH. A missing tool makes the condition an
// error, failing the scenario, when FIXTUREGEN_REQUIRE_TOOLS=1 (as CI runs
// the tests), so that the independent read-backs which pin a scenario's
// sums cannot pass there by being left out, as [exec:NAME] would let
// them; elsewhere it is false, and the lines it guards are skipped.
func toolCondition(cond string) (bool, error) {
	name, ok := strings.CutPrefix(cond, "tool:")
	if !ok {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	if _, err := exec.LookPath(name); err == nil {
		return true, nil
	}
	if tooltest.Required() {
		return false, fmt.Errorf("%s, and %s=1 requires it", tooltest.NotFound(name), tooltest.RequireEnv)
	}
	return false, nil
}

// scriptCmds returns the scenarios' own commands and those of fixturetest
// (cmpimg, imgls, imgcat), which this repository's scenarios use as users'
// scenarios would.
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := fixturetest.Cmds()
	cmds["exits"] = cmdExits
	return cmds
}

var goEnv = sync.OnceValue(func() map[string]string {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOROOT").Output()
	if err != nil {
		return nil
	}
	f := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(f) != 3 {
		return nil
	}
	m := map[string]string{"GOCACHE": f[0], "GOMODCACHE": f[1], "GOROOT": f[2]}
	// The version of mage this module requires, for the mage scenarios'
	// go get. No package the tests build imports mage (only the magefiles
	// and go tool do), so on a fresh machine where go test ./... comes
	// before go tool mage it is not in the module cache yet: go mod
	// download puts it there with the caller's GOPROXY, before the
	// scenarios turn the proxy off.
	if v, err := exec.Command("go", "mod", "download", "-json", "github.com/magefile/mage").Output(); err == nil {
		var mod struct{ Version string }
		if json.Unmarshal(v, &mod) == nil {
			m["MAGE_VERSION"] = mod.Version
		}
	}
	return m
})

// setupGo gives the scenarios that run the go command (gogenerate_*,
// mage_*) what they need to build a temporary module offline: REPO, the
// root of this repository, for a replace directive; the caller's build and
// module caches; GOPROXY=off, GOSUMDB=off and GOFLAGS=-mod=mod, so that
// nothing is downloaded and go.sum is completed from the module cache; and a HOME of
// their own (mage keeps its cache there).
func setupGo(e *testscript.Env) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err == nil {
		e.Setenv("REPO", root)
	}
	for k, v := range goEnv() {
		e.Setenv(k, v)
	}
	e.Setenv("GOPROXY", "off")
	e.Setenv("GOFLAGS", "-mod=mod")
	e.Setenv("GOSUMDB", "off")
	e.Setenv("GOTOOLCHAIN", "local")
	e.Setenv("HOME", filepath.Join(e.WorkDir, ".home"))
	e.Setenv("MAGEFILE_CACHE", filepath.Join(e.WorkDir, ".home", "magefile"))
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

// TestToolCondition checks that [tool:NAME] is true for a command in PATH
// and, for a missing one, false or, under FIXTUREGEN_REQUIRE_TOOLS=1, an
// error that fails the scenario.
func TestToolCondition(t *testing.T) {
	// not parallel: t.Setenv (FIXTUREGEN_REQUIRE_TOOLS).
	if ok, err := toolCondition("tool:go"); !ok || err != nil {
		t.Errorf("[tool:go] = %v, %v; want true", ok, err)
	}
	if _, err := toolCondition("nosuch:go"); err == nil {
		t.Error("[nosuch:go]: no error for an unknown condition")
	}
	const missing = "tool:fixturegen-no-such-tool"
	t.Setenv(tooltest.RequireEnv, "")
	if ok, err := toolCondition(missing); ok || err != nil {
		t.Errorf("[%s] = %v, %v; want false", missing, ok, err)
	}
	t.Setenv(tooltest.RequireEnv, "1")
	if _, err := toolCondition(missing); err == nil || !strings.Contains(err.Error(), "fixturegen-no-such-tool not found in PATH") {
		t.Errorf("[%s] under %s=1: %v, want an error naming the tool", missing, tooltest.RequireEnv, err)
	}
}
