package fixturetest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/fixturegen/fixturegen/fixturetest"
	"github.com/rogpeppe/go-internal/testscript"
)

// A scenario builds a FAT image with the fixturegen command and looks
// into it with imgls and imgcat. In a test of your own the setup is
//
//	func TestMain(m *testing.M) { testscript.Main(m, fixturetest.Programs()) }
//
//	func TestScripts(t *testing.T) {
//		testscript.Run(t, testscript.Params{Dir: "testdata/script", Cmds: fixturetest.Cmds()})
//	}
//
// This example runs one script the same way, through testscript.RunT,
// because an example has no *testing.T; this package's TestMain calls
// testscript.Main with Programs.
func Example() {
	dir, err := os.MkdirTemp("", "fixturetest-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	script := `exec fixturegen makefs -t msdos -s 1440k -T 0 floppy.img src
imgls floppy.img
stdout 'README.TXT'
imgcat floppy.img readme.txt
cmp stdout src/readme.txt

-- src/readme.txt --
Hello from a fixture.
`
	if err := os.WriteFile(filepath.Join(dir, "floppy.txtar"), []byte(script), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	t := &exampleT{}
	testscript.RunT(t, testscript.Params{Dir: dir, Cmds: fixturetest.Cmds()})
	if t.failed {
		fmt.Print(t.log.String())
		return
	}
	fmt.Println("PASS")
	// Output: PASS
}

// exampleT is the least of testscript.T that runs scripts one after
// another outside go test, keeping the log for a failure.
type exampleT struct {
	mu     sync.Mutex
	log    strings.Builder
	failed bool
}

func (t *exampleT) Skip(args ...any) { t.Log(args...); runtime.Goexit() }
func (t *exampleT) Fatal(args ...any) {
	t.Log(args...)
	t.FailNow()
}
func (t *exampleT) Parallel() {}
func (t *exampleT) Log(args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintln(&t.log, args...)
}
func (t *exampleT) FailNow() {
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
	runtime.Goexit()
}
func (t *exampleT) Run(name string, f func(testscript.T)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(t)
	}()
	<-done
}
func (t *exampleT) Verbose() bool { return false }
