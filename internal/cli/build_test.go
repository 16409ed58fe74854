package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/catalog"
)

// The hidden command test-write stands in for a format in the tests of
// build (here and in testscripts/build*.txtar): "test-write FILE TEXT..."
// writes the TEXT words, one a line, to FILE, and "test-write FILE" with
// SOURCE_DATE_EPOCH set writes that value, to show what build passes on.
func init() {
	register(command{
		Name:   "test-write",
		Usage:  "test-write file [text ...]",
		hidden: true,
		Run: func(e *env, args []string) error {
			if len(args) == 0 {
				return usagef("test-write: no file")
			}
			text := strings.Join(args[1:], "\n") + "\n"
			if len(args) == 1 {
				text = "SOURCE_DATE_EPOCH=" + e.getenv("SOURCE_DATE_EPOCH") + "\n"
			}
			return os.WriteFile(e.abs(args[0]), []byte(text), 0o644)
		},
	})
	planners["test-write"] = func(e *env, args []string) (*catalog.Plan, error) {
		if len(args) == 0 {
			return nil, usagef("test-write: no file")
		}
		return &catalog.Plan{Output: 0}, nil
	}
}

func TestBuild(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module m\n"), 0o644)
	fx := filepath.Join(root, "fixtures")
	os.MkdirAll(filepath.Join(root, "deep", "er"), 0o755)
	os.MkdirAll(fx, 0o755)
	os.WriteFile(filepath.Join(fx, manifestName), []byte("a.img: test-write a.img hello world\nb.img: test-write b.img\n"), 0o644)
	runIn := func(dir string, args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		e := &env{Stdout: &stdout, Stderr: &stderr, Dir: dir, Getenv: func(k string) string {
			if k == "SOURCE_DATE_EPOCH" {
				return "1234"
			}
			return ""
		}}
		code := runMain(e, append([]string{"build"}, args...))
		return code, stdout.String(), stderr.String()
	}
	// The first build creates fixtures.sum, and says how to update it.
	code, stdout, stderr := runIn(filepath.Join(root, "deep", "er"))
	if code != 0 || stderr != "" || lastLine(stdout) != "build: 2 built, 0 up to date, 0 failed; created fixtures.sum with 2 sums (commit it; after a deliberate change, run fixturegen build -update to record new sums)" {
		t.Errorf("build without sums: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr := runIn(filepath.Join(root, "deep"), "-update", "-q"); code != 0 {
		t.Fatalf("build -update: exit %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(fx, "b.img")); string(b) != "SOURCE_DATE_EPOCH=\n" {
		t.Errorf("SOURCE_DATE_EPOCH reached the command: %q", b)
	}
	if code, stdout, stderr := runIn(root); code != 0 || stdout != "build: 0 built, 2 up to date, 0 failed\n" {
		t.Errorf("build after -update: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, stdout, stderr := runIn(root, "-force"); code != 0 || !strings.Contains(stdout, "a.img 12 sha256:") || !strings.HasSuffix(stdout, "build: 2 built, 0 up to date, 0 failed\n") {
		t.Errorf("build -force: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A changed output is a mismatch naming both sums.
	os.WriteFile(filepath.Join(fx, manifestName), []byte("a.img: test-write a.img hello there\nb.img: test-write b.img\n"), 0o644)
	// The old output stays, and the message says what changed.
	code, _, stderr = runIn(root, "-C", "fixtures", "a.img")
	if code != 1 || !strings.HasPrefix(stderr, "fixturegen: build: manifest:1: a.img: sum mismatch (have 12 sha256:") || !strings.Contains(stderr, ", want 12 sha256:") ||
		!strings.Contains(stderr, "\tchanged since a.img was last built: the command line\n") ||
		!strings.Contains(stderr, "\ta.img (existing) and a.img (new) differ:\n\t  bytes 0x6-0xa (5 bytes) differ\n") ||
		lastLine(stderr) != "fixturegen: build: 0 built, 0 up to date, 1 failed (after a deliberate change, run fixturegen build -C fixtures -update to record new sums)" {
		t.Errorf("mismatch: exit %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(fx, "a.img")); string(b) != "hello\nworld\n" {
		t.Errorf("a failed sum check replaced the output: %q", b)
	}
	// Updating one entry keeps the others.
	if code, _, stderr := runIn(root, "-update", "a.img"); code != 0 {
		t.Fatalf("build -update a.img: %d %s", code, stderr)
	}
	sums, _, _ := catalog.ReadSums(filepath.Join(fx, sumName))
	if len(sums) != 2 {
		t.Errorf("sums after a partial update: %v", sums)
	}
	// A failing entry names the manifest line; an unknown name is an error.
	os.WriteFile(filepath.Join(fx, manifestName), []byte("# c\nc.img: nosuchcmd c.img\n"), 0o644)
	if code, _, stderr := runIn(root, "c.img"); code != 1 || stderr != "fixturegen: build: manifest:2: c.img: unknown command \"nosuchcmd\"\nfixturegen: build: 0 built, 0 up to date, 1 failed (after a deliberate change, run fixturegen build -update to record new sums)\n" {
		t.Errorf("bad entry: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runIn(root, "zzz"); code != 1 || !strings.Contains(stderr, "zzz: not in manifest") {
		t.Errorf("unknown name: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runIn(t.TempDir()); code != 1 || !strings.Contains(stderr, "no fixtures/manifest") {
		t.Errorf("no manifest: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runIn(root, "-bogus"); code != 2 || !strings.Contains(stderr, "flag provided but not defined: -bogus") {
		t.Errorf("bad flag: exit %d, stderr %q", code, stderr)
	}
}

// The hidden command test-cat stands in for a format that reads inputs:
// "test-cat OUT IN..." writes the contents of the IN files to OUT; IN
// directories are skipped.
func init() {
	register(command{
		Name:   "test-cat",
		Usage:  "test-cat out [in ...]",
		hidden: true,
		Run: func(e *env, args []string) error {
			if len(args) == 0 {
				return usagef("test-cat: no file")
			}
			var b []byte
			for _, in := range args[1:] {
				if fi, err := os.Stat(e.abs(in)); err == nil && fi.IsDir() {
					continue // an input that only counts for build's checks
				}
				d, err := os.ReadFile(e.abs(in))
				if err != nil {
					return err
				}
				b = append(b, d...)
			}
			return os.WriteFile(e.abs(args[0]), b, 0o644)
		},
	})
	planners["test-cat"] = func(e *env, args []string) (*catalog.Plan, error) {
		if len(args) == 0 {
			return nil, usagef("test-cat: no file")
		}
		p := &catalog.Plan{Output: 0}
		for _, in := range args[1:] {
			p.Inputs = append(p.Inputs, catalog.Input{Path: in, Follow: true})
		}
		return p, nil
	}
}

// buildRunner runs fixturegen commands in dir and returns the exit status
// and output.
func buildRunner(t *testing.T) func(dir string, args ...string) (int, string, string) {
	return func(dir string, args ...string) (int, string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		e := &env{Stdout: &stdout, Stderr: &stderr, Dir: dir, Getenv: func(string) string { return "" }}
		code := runMain(e, args)
		return code, stdout.String(), stderr.String()
	}
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestBuildIncremental(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod": "module m\n",
		"fixtures/manifest": "a.img: test-cat a.img in/one in/two\n" +
			"b.img: test-cat b.img in/dir/x in/dir\n" +
			"c.img: test-cat c.img a.img b.img # uses the outputs above\n",
		"fixtures/in/one":   "1\n",
		"fixtures/in/two":   "2\n",
		"fixtures/in/dir/x": "x\n",
	})
	fx := filepath.Join(root, "fixtures")
	run := buildRunner(t)
	summary := func(want string, args ...string) {
		t.Helper()
		code, stdout, stderr := run(root, append([]string{"build"}, args...)...)
		if code != 0 || lastLine(stdout) != want {
			t.Fatalf("build %q: exit %d, last line %q, want %q; stderr %q", args, code, lastLine(stdout), want, stderr)
		}
	}
	summary("build: 3 built, 0 up to date, 0 failed; 3 sums changed in fixtures.sum", "-update", "-j", "1")
	if b, _ := os.ReadFile(filepath.Join(fx, "c.img")); string(b) != "1\n2\nx\n" {
		t.Errorf("c.img = %q", b)
	}
	summary("build: 0 built, 3 up to date, 0 failed")
	summary("build: 0 built, 3 up to date, 0 failed", "-j", "1")

	// A newer input rebuilds its output; what uses that output depends on
	// its contents, which are the same.
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(fx, "in", "dir", "x"), future, future)
	summary("build: 1 built, 2 up to date, 0 failed")
	summary("build: 0 built, 3 up to date, 0 failed")
	// A new file in an input directory counts.
	writeFiles(t, fx, map[string]string{"in/dir/y": "y\n"})
	summary("build: 1 built, 2 up to date, 0 failed")
	// A rewritten input whose time is set back is rebuilt where the
	// system has change times (Linux), and the same bytes come out.
	writeFiles(t, fx, map[string]string{"in/dir/x": "x\n"})
	os.Chtimes(filepath.Join(fx, "in", "dir", "x"), future, future)
	if runtime.GOOS == "linux" {
		summary("build: 1 built, 2 up to date, 0 failed")
	}
	summary("build: 0 built, 3 up to date, 0 failed")
	writeFiles(t, fx, map[string]string{"in/dir/x": "X\n"})
	// A changed input is named; the old output stays, so what reads it
	// is not built.
	code, _, stderr := run(root, "build")
	if code != 1 || !strings.Contains(stderr, "b.img: sum mismatch") || !strings.Contains(stderr, "\tchanged since b.img was last built: input in/dir/x, input in/dir\n") ||
		!strings.Contains(stderr, "c.img: not built: its input b.img failed") {
		t.Errorf("changed input: exit %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(fx, "b.img")); string(b) != "x\n" {
		t.Errorf("b.img = %q after a failed check", b)
	}
	writeFiles(t, fx, map[string]string{"in/dir/x": "x\n"})
	summary("build: 1 built, 2 up to date, 0 failed")
	// A removed or changed output is rebuilt.
	os.Remove(filepath.Join(fx, "a.img"))
	summary("build: 1 built, 2 up to date, 0 failed")
	os.WriteFile(filepath.Join(fx, "b.img"), []byte("?\n"), 0o644)
	summary("build: 1 built, 2 up to date, 0 failed")
	summary("build: 3 built, 0 up to date, 0 failed", "-force")

	// -hash compares contents: switching to it rebuilds nothing (it
	// records the contents), and then a touched input is still up to
	// date.
	summary("build: 0 built, 3 up to date, 0 failed", "-hash")
	later := future.Add(time.Hour)
	os.Chtimes(filepath.Join(fx, "in", "one"), later, later)
	summary("build: 0 built, 3 up to date, 0 failed", "-hash")
	writeFiles(t, fx, map[string]string{"in/one": "one\n"})
	code, _, stderr = run(root, "build", "-hash")
	if code != 1 || !strings.Contains(stderr, "fixturegen: build: manifest:1: a.img: sum mismatch") ||
		!strings.Contains(stderr, "\tchanged since a.img was last built: input in/one\n") ||
		!strings.Contains(stderr, "fixturegen: build: manifest:3: c.img: not built: its input a.img failed") ||
		lastLine(stderr) != "fixturegen: build: 0 built, 1 up to date, 2 failed (after a deliberate change, run fixturegen build -update to record new sums)" {
		// b.img is up to date; a.img was built but does not match.
		t.Errorf("changed input: exit %d, stderr %q", code, stderr)
	}
	summary("build: 2 built, 1 up to date, 0 failed; 2 sums changed in fixtures.sum", "-update", "-hash")
	summary("build: 0 built, 3 up to date, 0 failed; 0 sums changed in fixtures.sum", "-update", "-hash")
	summary("build: 0 built, 3 up to date, 0 failed", "-hash")
}

func TestBuildParallelSameBytes(t *testing.T) {
	t.Parallel()
	var sums []string
	for _, j := range []string{"1", "2", "8"} {
		root := t.TempDir()
		files := map[string]string{"go.mod": "module m\n"}
		var m strings.Builder
		for i := 0; i < 12; i++ {
			n := strconv.Itoa(i)
			files["fixtures/in/"+n] = strings.Repeat(n, i+1)
			fmt.Fprintf(&m, "o%s.img: test-cat o%s.img in/%s in/0\n", n, n, n)
		}
		m.WriteString("all.img: test-cat all.img o3.img o11.img\n")
		files["fixtures/manifest"] = m.String()
		writeFiles(t, root, files)
		run := buildRunner(t)
		if code, _, stderr := run(root, "build", "-q", "-update", "-j", j); code != 0 {
			t.Fatalf("-j %s: %s", j, stderr)
		}
		b, _ := os.ReadFile(filepath.Join(root, "fixtures", sumName))
		sums = append(sums, string(b))
	}
	if sums[0] != sums[1] || sums[0] != sums[2] {
		t.Errorf("sums differ by -j:\n%s\n%s\n%s", sums[0], sums[1], sums[2])
	}
}

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":            "module m\n",
		"fixtures/manifest": "b.img: test-cat b.img a.img\na.img: test-cat a.img\n",
	})
	run := buildRunner(t)
	// An entry may read the output of an entry below it: it runs after it.
	if code, stdout, stderr := run(root, "build", "-j", "1"); code != 0 || !strings.HasPrefix(stdout, "a.img ") {
		t.Errorf("late dependency: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	writeFiles(t, root, map[string]string{"fixtures/manifest": "a.img: test-cat a.img b.img\nb.img: test-cat b.img c.img\nc.img: test-cat c.img a.img\n"})
	if code, _, stderr := run(root, "build"); code != 1 || stderr != "fixturegen: build: manifest:1: a.img: the entries read each other's outputs: a.img -> b.img -> c.img -> a.img; nothing was built\n" {
		t.Errorf("cycle: exit %d, stderr %q", code, stderr)
	}
	os.Remove(filepath.Join(root, "fixtures", sumName))
	writeFiles(t, root, map[string]string{"fixtures/manifest": "a.img: test-cat a.img missing\nb.img: test-cat b.img a.img\n"})
	code, _, stderr := run(root, "build", "-update")
	if code != 1 || !strings.Contains(stderr, "fixturegen: build: manifest:1: a.img: open ") ||
		!strings.Contains(stderr, "fixturegen: build: manifest:2: b.img: not built: its input a.img failed\n") ||
		lastLine(stderr) != "fixturegen: build: 0 built, 0 up to date, 2 failed" {
		t.Errorf("failed dependency: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "fixtures", sumName)); err == nil {
		t.Errorf("a failed -update wrote %s", sumName)
	}
	if code, _, stderr := run(root, "build", "-j", "0"); code != 2 || !strings.Contains(stderr, "-j 0: want at least 1") {
		t.Errorf("-j 0: exit %d, stderr %q", code, stderr)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":             "module m\n",
		"fixtures/manifest":  "a.img: test-cat a.img in/one\nsub/b.img: test-cat sub/b.img in/one a.img\n",
		"fixtures/in/one":    "1\n",
		"fixtures/sub/.keep": "",
	})
	fx := filepath.Join(root, "fixtures")
	run := buildRunner(t)
	if code, _, stderr := run(root, "verify"); code != 1 || !strings.Contains(stderr, "a.img: not in fixtures.sum") {
		t.Errorf("verify without sums: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := run(root, "build", "-update", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	before := listDir(t, fx)
	if code, stdout, stderr := run(root, "verify"); code != 0 || stdout != "verify: 2 built, 0 up to date, 0 failed\n" {
		t.Errorf("verify: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// The output in the folder differs from what the inputs make now:
	// verify fails and explains against it, without touching it.
	writeFiles(t, fx, map[string]string{"in/one": "2\n"})
	os.WriteFile(filepath.Join(fx, sumName), nil, 0o644)
	run(root, "build", "-update", "-q")
	writeFiles(t, fx, map[string]string{"in/one": "1\n"})
	code, _, stderr := run(root, "verify", "-C", "fixtures", "a.img")
	if code != 1 || !strings.Contains(stderr, "fixturegen: verify: manifest:1: a.img: sum mismatch") ||
		!strings.Contains(stderr, "\ta.img (existing) and a.img (new) differ:\n\t  bytes 0x0-0x0 (1 byte) differ\n") {
		t.Errorf("verify mismatch: exit %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(fx, "a.img")); string(b) != "2\n" {
		t.Errorf("verify changed a.img: %q", b)
	}
	after := listDir(t, fx)
	if !reflect.DeepEqual(before, after) {
		t.Errorf("verify changed the folder:\n%v\n%v", before, after)
	}
	// Inputs outside the folder cannot be copied.
	writeFiles(t, root, map[string]string{"other": "o\n", "fixtures/manifest": "a.img: test-cat a.img ../other\n"})
	if code, _, stderr := run(root, "verify"); code != 1 || !strings.Contains(stderr, "input ../other is outside the manifest's folder") {
		t.Errorf("outside input: exit %d, stderr %q", code, stderr)
	}
}

func listDir(t *testing.T, dir string) []string {
	var names []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, rel)
		}
		return nil
	})
	return names
}

func TestBuildClean(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":            "module m\n",
		"fixtures/manifest": "a.img: test-write a.img a\nsub/b.img: test-write sub/b.img b\n",
		"fixtures/sub/keep": "",
	})
	run := buildRunner(t)
	if code, _, stderr := run(root, "build", "-update", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	if code, stdout, stderr := run(root, "build", "-clean", "a.img"); code != 0 || stdout != "build: removed 1 of 1 outputs\n" {
		t.Errorf("clean a.img: exit %d, %q %q", code, stdout, stderr)
	}
	if code, stdout, stderr := run(root, "build", "-clean"); code != 0 || stdout != "build: removed 1 of 2 outputs\n" {
		t.Errorf("clean: exit %d, %q %q", code, stdout, stderr)
	}
	got := listDir(t, filepath.Join(root, "fixtures"))
	want := []string{".", ".fixturegen-lock", sumName, manifestName, "sub", "sub/keep"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after clean: %q, want %q", got, want)
	}
	if code, _, stderr := run(root, "build", "-clean", "-update"); code != 2 || !strings.Contains(stderr, "-clean does not go with") {
		t.Errorf("clean -update: exit %d, %q", code, stderr)
	}
}
