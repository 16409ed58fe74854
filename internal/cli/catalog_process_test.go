//go:build unix

package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/catalog"
	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// The hidden command test-slow stands in for a long build: "test-slow
// OUT" writes 4 MiB to OUT and a temporary file beside it, as bcache does, then
// sleeps for a minute before finishing OUT.
func init() {
	register(command{
		Name:   "test-slow",
		Usage:  "test-slow out",
		hidden: true,
		Run: func(e *env, args []string) error {
			if len(args) != 1 {
				return usagef("test-slow: want one file")
			}
			out := e.abs(args[0])
			os.WriteFile(strings.TrimSuffix(filepath.Join(filepath.Dir(out), tempfile.Pattern(out)), "*")+"1", make([]byte, 4<<20), 0o644)
			os.WriteFile(out, make([]byte, 4<<20), 0o644)
			time.Sleep(time.Minute)
			return os.WriteFile(out, []byte("slow\n"), 0o644)
		},
	})
	planners["test-slow"] = func(e *env, args []string) (*catalog.Plan, error) {
		return &catalog.Plan{Output: 0}, nil
	}
}

// fixturegenProcess returns a command running this test binary as
// fixturegen with args, in dir, with TMPDIR set to tmp.
func fixturegenProcess(dir, tmp string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FIXTUREGEN_TEST_PROCESS=1", "TMPDIR="+tmp)
	return cmd
}

// waitForSlow polls until test-slow has written both its files (8 MiB of
// .fixturegen-tmp-slow.img*) somewhere under dir, so that a signal finds
// it asleep: a command running in-process cannot stop, and one still
// writing after the run removed its temporary files would leave some.
func waitForSlow(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var n int64
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasPrefix(d.Name(), ".fixturegen-tmp-slow.img") {
				if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
					n += fi.Size()
				}
			}
			return nil
		})
		if n == 8<<20 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("test-slow wrote no 8 MiB under %s", dir)
}

// TestBuildSignals stops a build and a verify, each in its own process,
// with SIGINT, SIGTERM and SIGHUP while an entry is writing: the process
// exits with 128 plus the signal's number, leaves no temporary file (in
// the catalogue or in TMPDIR) and keeps the old outputs.
func TestBuildSignals(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		for _, op := range []string{"build", "verify"} {
			t.Run(fmt.Sprintf("%s/%v", op, sig), func(t *testing.T) {
				t.Parallel()
				root, tmp := t.TempDir(), t.TempDir()
				writeFiles(t, root, map[string]string{
					"go.mod":                "module m\n",
					"fixtures/manifest":     "a.img: test-write a.img a\nsub/slow.img: test-slow sub/slow.img\n",
					"fixtures/sub/slow.img": "old\n",
					"fixtures/in/x":         "x\n",
				})
				fx := filepath.Join(root, "fixtures")
				if code, _, stderr := buildRunner(t)(root, "build", "-q", "a.img"); code != 0 {
					t.Fatal(stderr)
				}
				before := listDir(t, fx)
				var stderr bytes.Buffer
				cmd := fixturegenProcess(root, tmp, op, "-j", "2")
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				where := fx
				if op == "verify" {
					where = tmp
				}
				waitForSlow(t, where)
				cmd.Process.Signal(sig)
				err := cmd.Wait()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
					t.Errorf("exit: %v, want status %d", err, 128+int(sig))
				}
				if want := fmt.Sprintf("fixturegen: %s: interrupted by %v\n", op, sig); !strings.HasSuffix(stderr.String(), want) {
					t.Errorf("stderr %q, want it to end %q", stderr.String(), want)
				}
				if after := listDir(t, fx); strings.Join(before, " ") != strings.Join(after, " ") {
					t.Errorf("catalogue before %q, after %q", before, after)
				}
				if left, _ := os.ReadDir(tmp); len(left) != 0 {
					t.Errorf("left in TMPDIR: %v", left)
				}
				if b, _ := os.ReadFile(filepath.Join(fx, "sub", "slow.img")); string(b) != "old\n" {
					t.Errorf("old output now %q", b)
				}
			})
		}
	}
}

// TestBuildProcessesAtOnce runs two fixturegen processes on one catalogue
// at once, for build and for build -update: both succeed, the second
// says it waits, and the files are those of one run.
func TestBuildProcessesAtOnce(t *testing.T) {
	t.Parallel()
	root, tmp := t.TempDir(), t.TempDir()
	files := map[string]string{"go.mod": "module m\n", "fixtures/src/f.txt": "f\n"}
	var m strings.Builder
	for i := 0; i < 8; i++ {
		fmt.Fprintf(&m, "f%d.img: makefs -t msdos -s 4m -T %d f%d.img src\n", i, i, i)
	}
	files["fixtures/manifest"] = m.String()
	writeFiles(t, root, files)
	fx := filepath.Join(root, "fixtures")
	if code, _, stderr := buildRunner(t)(root, "build", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	want, _ := os.ReadFile(filepath.Join(fx, sumName))
	for _, args := range [][]string{{"build", "-force"}, {"build", "-force", "-update"}} {
		var cmds []*exec.Cmd
		var outs []*bytes.Buffer
		for i := 0; i < 2; i++ {
			var out bytes.Buffer
			cmd := fixturegenProcess(root, tmp, args...)
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, cmd), append(outs, &out)
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Errorf("%q #%d: %v\n%s", args, i, err, outs[i])
			}
		}
		if got, _ := os.ReadFile(filepath.Join(fx, sumName)); !bytes.Equal(got, want) {
			t.Errorf("%q: fixtures.sum\n%s\nwant\n%s", args, got, want)
		}
		for _, n := range listDir(t, fx) {
			if strings.Contains(n, "tmp") {
				t.Errorf("%q: left %s", args, n)
			}
		}
		if code, stdout, stderr := buildRunner(t)(root, "verify", "-q"); code != 0 {
			t.Errorf("%q: verify after: %s%s", args, stdout, stderr)
		}
	}
}

// TestBuildKilled kills a build process (SIGKILL, which it cannot catch)
// while an entry is writing: the next build is not blocked by the dead
// run's lock, the old output is intact, it removes the temporary files the
// dead run left (saying so in one line) and no other file, and build
// -clean still works.
func TestBuildKilled(t *testing.T) {
	t.Parallel()
	root, tmp := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":                "module m\n",
		"fixtures/manifest":     "a.img: test-write a.img a\nslow.img: test-slow slow.img\n",
		"fixtures/fixtures.sum": "",
		"fixtures/slow.img":     "old\n",
	})
	fx := filepath.Join(root, "fixtures")
	cmd := fixturegenProcess(root, tmp, "build", "-update")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForSlow(t, fx)
	cmd.Process.Kill()
	cmd.Wait()
	// The dead run leaves slow.img's temporary output (and the file the
	// writer made beside it), and a.img's when it had not finished yet:
	// how many depends on the scheduling, so only slow.img's is certain.
	var left []string
	slow := false
	for _, n := range listDir(t, fx) {
		if strings.Contains(n, "fixturegen-tmp") {
			left = append(left, n)
			slow = slow || strings.HasPrefix(n, ".fixturegen-tmp-slow.img")
		}
	}
	if !slow {
		t.Errorf("a killed build left %q, want slow.img's temporary output among them", left)
	}
	os.WriteFile(filepath.Join(fx, ".slow.img.tmp-1"), nil, 0o644) // no temporary name of fixturegen's
	run := buildRunner(t)
	code, stdout, stderr := run(root, "build", "-update", "a.img")
	if code != 0 || !strings.Contains(stdout, "1 sums changed") {
		t.Errorf("build after a killed one: exit %d, %s%s", code, stdout, stderr)
	}
	if want := fmt.Sprintf("fixturegen: build: removed %d temporary files of a killed build (", len(left)); !strings.HasPrefix(stderr, want) ||
		strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, ".fixturegen-tmp-slow.img-") || !strings.Contains(stderr, ".0 MiB): ") {
		t.Errorf("build after a killed one: stderr %q, want one line starting %q", stderr, want)
	}
	var after []string
	for _, n := range listDir(t, fx) {
		if strings.Contains(n, "tmp") {
			after = append(after, n)
		}
	}
	if len(after) != 1 || after[0] != ".slow.img.tmp-1" {
		t.Errorf("after the next build: %q, want only .slow.img.tmp-1", after)
	}
	os.Remove(filepath.Join(fx, ".slow.img.tmp-1"))
	if b, _ := os.ReadFile(filepath.Join(fx, "slow.img")); string(b) != "old\n" {
		t.Errorf("slow.img = %q", b)
	}
	if code, stdout, stderr := run(root, "build", "-clean", "a.img"); code != 0 || stdout != "build: removed 1 of 1 outputs\n" {
		t.Errorf("build -clean: exit %d, %s%s", code, stdout, stderr)
	}
	for _, n := range listDir(t, fx) {
		if strings.Contains(n, "tmp") {
			t.Errorf("left after build -clean: %s", n)
		}
	}
}
