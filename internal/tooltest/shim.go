package tooltest

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

//go:embed testdata/sortdir.c
var sortdirSource []byte

var (
	mainRan bool // Main is running the tests
	shim    struct {
		once sync.Once
		dir  string
		path string
		err  error
	}
)

// Main runs the tests of m, removes what SortedReaddir built, notes the
// checks that were skipped, and exits. Every package whose tests use
// tooltest calls it from TestMain (SortedReaddir requires it):
//
//	func TestMain(m *testing.M) { tooltest.Main(m) }
func Main(m *testing.M) {
	os.Exit(M{m}.Run())
}

// M wraps a *testing.M whose TestMain hands it to another runner (such as
// testscript.Main, which exits by itself): its Run runs the tests and then
// removes what SortedReaddir built, as Main does.
//
//	func TestMain(m *testing.M) { testscript.Main(tooltest.M{M: m}, programs) }
type M struct{ M *testing.M }

// Run runs the tests in the C.UTF-8 locale (LC_ALL, for the commands they
// start), removes the shim, and ends with a note naming the checks that
// were skipped for want of a tool and the command that enables them (see
// report).
func (m M) Run() int {
	mainRan = true
	// The validators' listings are compared with names in UTF-8: in the
	// C or POSIX locale (a CI runner's, env -i's) bsdtar and others print
	// other bytes as escapes. A test that wants the C locale sets it on
	// its command, which wins.
	os.Setenv("LC_ALL", "C.UTF-8")
	code := m.M.Run()
	if shim.dir != "" {
		os.RemoveAll(shim.dir)
	}
	report(skipNote(packageName()))
	return code
}

// SortedReaddir returns the path of an LD_PRELOAD shim that makes
// readdir(3) return the entries of every directory sorted bytewise by
// name, the order fixturegen lays trees out in. The makefs implementations
// walk directories in readdir order; with the shim loaded they walk them in
// fixturegen's order, so their images can be compared byte for byte. The
// shim is built with cc once per test binary, in a temporary directory
// that Main removes; the test fails if the package's TestMain does not
// call Main.
func SortedReaddir(t testing.TB) string {
	t.Helper()
	if !mainRan {
		t.Fatal("tooltest.SortedReaddir: the package's TestMain must call tooltest.Main, which removes the shim")
	}
	cc := Need(t, "cc")
	shim.once.Do(func() {
		shim.dir, shim.err = os.MkdirTemp("", "fixturegen-sortdir-")
		if shim.err != nil {
			return
		}
		src := filepath.Join(shim.dir, "sortdir.c")
		if shim.err = os.WriteFile(src, sortdirSource, 0o644); shim.err != nil {
			return
		}
		shim.path = filepath.Join(shim.dir, "sortdir.so")
		if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", shim.path, src, "-ldl").CombinedOutput(); err != nil {
			shim.err = fmt.Errorf("building the readdir shim: %v\n%s", err, out)
		}
	})
	if shim.err != nil {
		t.Fatal(shim.err)
	}
	return shim.path
}

// RunSorted runs the command name with args in dir (the test's working
// directory when dir is ""), with the SortedReaddir shim loaded and TZ=UTC,
// and fails the test with the command's output when it does not exit 0. It
// returns what the command printed, where makefs writes its warnings.
func RunSorted(t testing.TB, dir, name string, args ...string) string {
	t.Helper()
	so := SortedReaddir(t)
	cmd := exec.Command(Need(t, name), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+so, "TZ=UTC")
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}
