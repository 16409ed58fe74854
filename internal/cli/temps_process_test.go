//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// startTestImage starts "test-image x.img" in dir and waits until it has
// made its temporary file, locked, beside x.img.
func startTestImage(t *testing.T, dir, tmp string) *exec.Cmd {
	t.Helper()
	cmd := fixturegenProcess(dir, tmp, "test-image", "x.img")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("test-image said %q, %v", line, err)
	}
	return cmd
}

// tempsIn returns the temporary files in dir.
func tempsIn(t *testing.T, dir string) map[string]bool {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]bool{}
	for _, de := range ents {
		if strings.HasPrefix(de.Name(), ".fixturegen-tmp-") {
			m[de.Name()] = true
		}
	}
	return m
}

// TestLeftoversOfKilledWriters kills a process writing x.img (SIGKILL,
// which leaves its temporary file beside x.img) while another one writing
// x.img runs on, then writes x.img with each of mkimg, makefs and ar: the
// write removes the dead writer's file, says so in one line on standard
// error, and keeps the live writer's, which holds its lock.
func TestLeftoversOfKilledWriters(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		op   string
		args []string
	}{
		{"mkimg", []string{"mkimg", "-s", "gpt", "-p", "freebsd::64k", "-f", "vmdk", "-o", "x.img"}},
		{"makefs", []string{"makefs", "-t", "msdos", "-s", "1m", "x.img", "src"}},
		{"ar", []string{"ar", "rc", "x.img", "src/a.o"}},
	} {
		t.Run(c.op, func(t *testing.T) {
			t.Parallel()
			dir, tmp := t.TempDir(), t.TempDir()
			writeFiles(t, dir, map[string]string{"src/a.o": "member\n"})
			live := startTestImage(t, dir, tmp)
			defer func() { live.Process.Kill(); live.Wait() }()
			liveTemps := tempsIn(t, dir)
			dead := startTestImage(t, dir, tmp)
			dead.Process.Kill()
			dead.Wait()
			var deadTemp string
			for n := range tempsIn(t, dir) {
				if !liveTemps[n] {
					deadTemp = n
				}
			}
			if len(liveTemps) != 1 || deadTemp == "" {
				t.Fatalf("the live writer left %v, the dead one %q; want one file each", liveTemps, deadTemp)
			}

			var stderr bytes.Buffer
			cmd := fixturegenProcess(dir, tmp, c.args...)
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v: %s", c.op, err, stderr.String())
			}
			want := fmt.Sprintf("fixturegen: %s: removed 1 temporary file of a killed run (1.0 MiB): %s\n", c.op, deadTemp)
			if stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			after := tempsIn(t, dir)
			for n := range liveTemps {
				if !after[n] {
					t.Errorf("the live writer's %s was removed", n)
				}
			}
			if after[deadTemp] || len(after) != len(liveTemps) {
				t.Errorf("after the write: %v, want only the live writer's %v", after, liveTemps)
			}
		})
	}
}

// TestBuildKeepsLiveWriters runs a build while another process writes
// into the catalogue's folder: the build removes only what dead writers
// left, never the temporary file of a writer that is running.
func TestBuildKeepsLiveWriters(t *testing.T) {
	t.Parallel()
	root, tmp := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":                "module m\n",
		"fixtures/manifest":     "a.img: test-write a.img a\n",
		"fixtures/fixtures.sum": "",
	})
	fx := filepath.Join(root, "fixtures")
	live := startTestImage(t, fx, tmp)
	defer func() { live.Process.Kill(); live.Wait() }()
	before := tempsIn(t, fx)
	if code, stdout, stderr := buildRunner(t)(root, "build", "-update"); code != 0 || stderr != "" {
		t.Errorf("build: exit %d, %s%s", code, stdout, stderr)
	}
	if after := tempsIn(t, fx); len(before) != 1 || len(after) != 1 || !maps.Equal(before, after) {
		t.Errorf("a live writer's temporary files %v, after the build %v; want them kept", before, after)
	}
}
