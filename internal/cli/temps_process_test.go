//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// The hidden command test-image stands in for makefs or ar writing a large
// image: "test-image OUT" creates OUT through bcache, says "ready" on
// standard output and sleeps for a minute before committing it, with the
// signal handling of makefs and ar. It registers as a variable's
// initialiser, which runs before the init function that runs this test
// binary as fixturegen (catalog_process_test.go).
var _ = func() bool {
	register(command{
		Name:   "test-image",
		Usage:  "test-image out",
		hidden: true,
		Run: func(e *env, args []string) error {
			if len(args) != 1 {
				return usagef("test-image: want one file")
			}
			defer e.removeTempsOnSignal("test-image")()
			im, err := bcache.Create(e.abs(args[0]), 1<<20, nil)
			if err != nil {
				return err
			}
			defer im.Abort()
			if _, err := im.WriteAt([]byte("image"), 0); err != nil {
				return err
			}
			fmt.Fprintln(e.Stdout, "ready")
			time.Sleep(time.Minute)
			return im.Commit()
		},
	})
	return true
}()

// TestImageSignals stops a process writing an image, as makefs and ar do,
// with SIGINT, SIGTERM and SIGHUP: it exits with 128 plus the signal's
// number, says so in one line, and leaves neither its temporary file nor
// the image.
func TestImageSignals(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir, tmp := t.TempDir(), t.TempDir()
			var stderr bytes.Buffer
			cmd := fixturegenProcess(dir, tmp, "test-image", "x.img")
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
				cmd.Process.Kill()
				t.Fatalf("test-image said %q, %v", line, err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 1 {
				t.Errorf("while writing, the folder holds %v, want the temporary file", left)
			}
			cmd.Process.Signal(sig)
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
				t.Errorf("exit: %v, want status %d", err, 128+int(sig))
			}
			if want := fmt.Sprintf("fixturegen: test-image: interrupted by %v\n", sig); stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			for _, d := range []string{dir, tmp} {
				if left, _ := os.ReadDir(d); len(left) != 0 {
					t.Errorf("left in %s: %v", filepath.Base(d), left)
				}
			}
		})
	}
}
