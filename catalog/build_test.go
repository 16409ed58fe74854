package catalog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// fakeRunner runs the commands of these tests:
//
//	write OUT TEXT...   writes the TEXT words, one a line, to OUT
//	concat OUT IN...    writes the contents of the IN files to OUT
//	tree OUT DIR        writes the path and contents of each file under
//	                    DIR to OUT
//	maybe OUT IN        writes IN's contents, or "absent" when there is
//	                    no IN (an optional input), to OUT
//	block OUT           writes a partial OUT and a file beside it, as
//	                    bcache does, then waits until ctx is done (or
//	                    release is closed), and fails
type fakeRunner struct {
	started chan string   // receives OUT when block starts
	release chan struct{} // closed: block writes OUT and succeeds
}

func (r *fakeRunner) Plan(dir string, args []string) (*Plan, error) {
	switch args[0] {
	case "write", "block":
		return &Plan{Output: 1}, nil
	case "concat":
		p := &Plan{Output: 1}
		for _, a := range args[2:] {
			p.Inputs = append(p.Inputs, Input{Path: a})
		}
		return p, nil
	case "tree":
		return &Plan{Output: 1, Inputs: []Input{{Path: args[2]}}}, nil
	case "maybe":
		return &Plan{Output: 1, Inputs: []Input{{Path: args[2], Optional: true}}}, nil
	}
	return nil, fmt.Errorf("unknown command %q", args[0])
}

func (r *fakeRunner) Run(ctx context.Context, c *Command) error {
	out := filepath.Join(c.Dir, c.Args[1])
	switch c.Args[0] {
	case "write":
		return os.WriteFile(out, []byte(strings.Join(c.Args[2:], "\n")+"\n"), 0o644)
	case "concat":
		var b []byte
		for _, in := range c.Args[2:] {
			d, err := os.ReadFile(filepath.Join(c.Dir, in))
			if err != nil {
				return err
			}
			b = append(b, d...)
		}
		return os.WriteFile(out, b, 0o644)
	case "tree":
		var b strings.Builder
		root := filepath.Join(c.Dir, c.Args[2])
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			r, _ := filepath.Rel(root, p)
			fmt.Fprintf(&b, "%s: %s\n", filepath.ToSlash(r), data)
			return err
		})
		if err != nil {
			return err
		}
		return os.WriteFile(out, []byte(b.String()), 0o644)
	case "maybe":
		data, err := os.ReadFile(filepath.Join(c.Dir, c.Args[2]))
		if errors.Is(err, fs.ErrNotExist) {
			data, err = []byte("absent\n"), nil
		}
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	case "block":
		side := strings.TrimSuffix(filepath.Join(filepath.Dir(out), tempfile.Pattern(out)), "*") + "123"
		os.WriteFile(side, make([]byte, 1<<20), 0o644)
		os.WriteFile(out, []byte("partial"), 0o644)
		if r.started != nil {
			r.started <- c.Args[1]
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-r.release:
			os.Remove(side)
			return os.WriteFile(out, []byte("done\n"), 0o644)
		}
	}
	return fmt.Errorf("unknown command %q", c.Args[0])
}

// newCatalog writes files under a new folder and loads its manifest.
func newCatalog(t *testing.T, files map[string]string) *Catalog {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// listFiles returns the names under dir, slash-separated, sorted.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != dir {
			r, _ := filepath.Rel(dir, p)
			names = append(names, filepath.ToSlash(r))
		}
		return nil
	})
	return names
}

// recorder is a Reporter that keeps what it is told.
type recorder struct {
	mu   sync.Mutex
	done []string
	msgs []string
	seen chan string // when not nil, receives each name done
	said chan string // when not nil, receives each message
}

func (r *recorder) Start(op string, total int) {}
func (r *recorder) EntryDone(e *EntryResult) {
	r.mu.Lock()
	r.done = append(r.done, e.Entry.Name)
	r.mu.Unlock()
	if r.seen != nil {
		r.seen <- e.Entry.Name
	}
}
func (r *recorder) Message(s string) {
	r.mu.Lock()
	r.msgs = append(r.msgs, s)
	r.mu.Unlock()
	if r.said != nil {
		r.said <- s
	}
}

// runLog runs fakeRunner's commands and sends each command's output
// argument on ran before it runs it.
type runLog struct {
	fakeRunner
	ran chan string
}

func (r *runLog) Run(ctx context.Context, c *Command) error {
	r.ran <- c.Args[1]
	return r.fakeRunner.Run(ctx, c)
}

func TestBuildGenerator(t *testing.T) {
	// Not parallel: it replaces generator.
	c := newCatalog(t, map[string]string{ManifestName: "a: write a x\n"})
	o := &Options{Runner: &fakeRunner{}}
	build := func() *Result {
		t.Helper()
		res, err := c.Build(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	build()
	if res := build(); res.UpToDate != 1 {
		t.Fatalf("second build: %s", res.Summary())
	}
	old := generator
	defer func() { generator = old }()
	generator = func() string { return "exe sha256:other" }
	if res := build(); res.Built != 1 {
		t.Errorf("another generator: %s, want a rebuild", res.Summary())
	}
	if res := build(); res.UpToDate != 1 {
		t.Errorf("the same generator again: %s", res.Summary())
	}
}

// TestBuildInterrupted cancels a build while a command is writing: every
// temporary file of the run goes, the old output stays, and Build returns
// the context's error.
func TestBuildInterrupted(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{ManifestName: "a: write a x\nsub/b: block sub/b\n", "sub/.keep": ""})
	r := &fakeRunner{started: make(chan string, 1), release: make(chan struct{})}
	if _, err := c.Build(context.Background(), &Options{Runner: r, Names: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(c.Dir, "sub", "b"), []byte("old\n"), 0o644)
	before := listFiles(t, c.Dir)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-r.started; cancel() }()
	_, err := c.Build(ctx, &Options{Runner: r, Force: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Build = %v, want context.Canceled", err)
	}
	if after := listFiles(t, c.Dir); !reflect.DeepEqual(before, after) {
		t.Errorf("files before %q, after an interrupted build %q", before, after)
	}
	if b, _ := os.ReadFile(filepath.Join(c.Dir, "sub", "b")); string(b) != "old\n" {
		t.Errorf("the old output became %q", b)
	}
}

// TestBuildConcurrent runs two builds, then two updates, of one catalogue
// at once: all succeed, and the files are those of one run.
func TestBuildConcurrent(t *testing.T) {
	t.Parallel()
	var m strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&m, "o%d: write o%d %d\n", i, i, i)
	}
	m.WriteString("all: concat all o3 o17\n")
	c := newCatalog(t, map[string]string{ManifestName: m.String()})
	ref := newCatalog(t, map[string]string{ManifestName: m.String()})
	if _, err := ref.Build(context.Background(), &Options{Runner: &fakeRunner{}, Update: true, Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	for _, update := range []bool{false, true, true} {
		rec := &recorder{}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = c.Build(context.Background(), &Options{Runner: &fakeRunner{}, Update: update, Force: true, Reporter: rec, Jobs: 16})
			}()
		}
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("update %t: %v; %v", update, errs[0], errs[1])
		}
		for _, f := range []string{SumName, "all", "o3"} {
			a, _ := os.ReadFile(filepath.Join(c.Dir, f))
			b, _ := os.ReadFile(filepath.Join(ref.Dir, f))
			if !bytes.Equal(a, b) {
				t.Errorf("update %t: %s = %q, want %q", update, f, a, b)
			}
		}
		if names := listFiles(t, c.Dir); slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, "tmp") }) {
			t.Errorf("left: %q", names)
		}
	}
}

// TestBuildReportsAsDone checks that each entry is reported when it
// completes, not at the end: the second entry waits until the first has
// been reported.
func TestBuildReportsAsDone(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{ManifestName: "a: write a x\nb: block b\n"})
	r := &fakeRunner{started: make(chan string, 1), release: make(chan struct{})}
	rec := &recorder{seen: make(chan string, 2)}
	go func() {
		<-r.started
		if n := <-rec.seen; n != "a" {
			t.Errorf("first reported %s", n)
		}
		close(r.release)
	}()
	if _, err := c.Build(context.Background(), &Options{Runner: r, Reporter: rec, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rec.done, []string{"a", "b"}) {
		t.Errorf("reported %q", rec.done)
	}
}

// TestBuildWaitsForLock checks that a run waits while another holds the
// catalogue's lock, says so, and gives up when its context is done; and
// that a run waiting for the lock runs no command and writes no output
// until the lock is released, and then builds.
func TestBuildWaitsForLock(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{ManifestName: "a: write a x\n"})
	unlock, err := lock(context.Background(), c.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Build(ctx, &Options{Runner: &fakeRunner{}, Reporter: rec}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Build while locked = %v", err)
	}
	if len(rec.msgs) != 1 || rec.msgs[0] != "build: waiting for another run on this catalogue to finish" {
		t.Errorf("messages %q", rec.msgs)
	}
	ran := make(chan string, 1)
	said := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := c.Build(context.Background(), &Options{Runner: &runLog{ran: ran}, Reporter: &recorder{said: said}})
		done <- err
	}()
	if m := <-said; !strings.Contains(m, "waiting for another run") {
		t.Fatalf("the waiting build said %q", m)
	}
	// Give a build that does not wait a few lock retries' time to go on.
	select {
	case err := <-done:
		t.Fatalf("Build returned %v while the lock was held", err)
	case n := <-ran:
		t.Fatalf("Build ran the command writing %s while the lock was held", n)
	case <-time.After(10 * lockRetry):
	}
	if _, err := os.Lstat(filepath.Join(c.Dir, "a")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the output while the lock was held: %v, want none", err)
	}
	unlock()
	select {
	case <-ran:
	case err := <-done:
		t.Fatalf("Build after unlock returned %v without running the command", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Build after unlock: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(c.Dir, "a")); err != nil || string(b) != "x\n" {
		t.Errorf("the output after unlock: %q, %v", b, err)
	}
}

// TestClean checks that Clean removes what killed runs left: temporary
// outputs, the files writers make beside them, and the temporary sums and
// state, of this version and the previous one.
func TestClean(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{
		ManifestName: "a: write a x\nsub/b: write sub/b y\n",
		"sub/.keep":  "", "keep.txt": "",
	})
	if _, err := c.Build(context.Background(), &Options{Runner: &fakeRunner{}}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{
		tmpPrefix + "a-0123456789ab", tmpPrefix + "a-0123456789ab-42", "sub/" + tmpPrefix + "b-0123456789ab",
		tmpPrefix + SumName + "-7", tmpPrefix + StateName + "-8", ".a.build.tmp", SumName + ".tmp", StateName + ".tmp",
	} {
		os.WriteFile(filepath.Join(c.Dir, filepath.FromSlash(f)), nil, 0o644)
	}
	n, err := c.Clean(context.Background(), nil)
	if err != nil || n != 2 {
		t.Fatalf("Clean = %d, %v", n, err)
	}
	want := []string{LockName, SumName, "keep.txt", ManifestName, "sub", "sub/.keep"}
	if got := listFiles(t, c.Dir); !reflect.DeepEqual(got, want) {
		t.Errorf("after Clean: %q, want %q", got, want)
	}
}

// TestVerifyCopy checks that verify's copy leaves out the outputs, the
// state, the lock and temporary files, keeps modes and times, and keeps a
// sparse input sparse.
// TestVerifyReadOnly checks that Verify writes nothing in the catalogue
// folder, not even the lock, and works on one it cannot write to.
func TestVerifyReadOnly(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{ManifestName: "a: concat a in/x\n", "in/x": "x\n", SumName: "a 2 sha256:" + "7ed6cd1b1e2ef0b7e9b25a5dfd0cb55bd1e4f1a3dd3e8a0c4b1e9b8b1d5e3c1a" + "\n"})
	before := listFiles(t, c.Dir)
	os.Chmod(c.Dir, 0o555)
	defer os.Chmod(c.Dir, 0o755)
	_, err := c.Verify(context.Background(), &Options{Runner: &fakeRunner{}})
	var ve *Error
	if !errors.As(err, &ve) || ve.Result.Failed != 1 || !strings.Contains(ve.Result.Entries[0].Errors[0], "sum mismatch") {
		t.Errorf("Verify of a read-only folder: %v", err)
	}
	if after := listFiles(t, c.Dir); !reflect.DeepEqual(before, after) {
		t.Errorf("Verify wrote: %q -> %q", before, after)
	}
}

func TestVerifyCopy(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{
		ManifestName: "a: concat a in/x\n", "in/x": "x\n", "a": "old", StateName: "{}", LockName: "",
		tmpPrefix + "a-1": "left", "in/" + tmpPrefix + "q": "left",
	})
	sparse := filepath.Join(c.Dir, "in", "sparse")
	f, _ := os.Create(sparse)
	const size = 1 << 30
	f.WriteAt([]byte("head"), 0)
	f.WriteAt([]byte("tail"), size-4)
	f.Close()
	os.Chmod(filepath.Join(c.Dir, "in", "x"), 0o600)
	dst := t.TempDir()
	var m progress.Meter
	if err := copyInputs(context.Background(), c, dst, &m); err != nil {
		t.Fatal(err)
	}
	if got, want := listFiles(t, dst), []string{"in", "in/sparse", "in/x", ManifestName}; !reflect.DeepEqual(got, want) {
		t.Errorf("copied %q, want %q", got, want)
	}
	// The step counts every byte of the files copied, the holes too.
	want := int64(size + len("x\n") + len("a: concat a in/x\n"))
	if name, done, total := m.Load(); name != "copying the inputs" || done != want || total != want {
		t.Errorf("the meter shows %q, %d, %d; want the copy of %d bytes", name, done, total, want)
	}
	fi, err := os.Stat(filepath.Join(dst, "in", "x"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("in/x: %v %v", fi.Mode(), err)
	}
	g, err := os.Open(filepath.Join(dst, "in", "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	gi, _ := g.Stat()
	head, tail := make([]byte, 4), make([]byte, 4)
	g.ReadAt(head, 0)
	g.ReadAt(tail, size-4)
	if gi.Size() != size || string(head) != "head" || string(tail) != "tail" {
		t.Errorf("sparse copy: size %d, %q %q", gi.Size(), head, tail)
	}
	if hs, ok := allocated(gi); ok && hs > 1<<20 {
		t.Errorf("sparse copy allocates %d bytes", hs)
	}
}

// TestCopySparseZeros checks copySparse on a file without holes whose
// data has zero pieces: the bytes are the same.
func TestCopySparseZeros(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := make([]byte, 3*copyBufSize+100)
	copy(data[copyBufSize+5:], "middle")
	data[len(data)-1] = 1
	src := filepath.Join(dir, "src")
	os.WriteFile(src, data, 0o644)
	fi, _ := os.Stat(src)
	step := progress.NewStep("copying", fi.Size())
	if err := copyFile(filepath.Join(dir, "dst"), src, fi, make([]byte, copyBufSize), step); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "dst")); !bytes.Equal(got, data) {
		t.Errorf("copy differs")
	}
	if _, done, _ := step.Load(); done != int64(len(data)) {
		t.Errorf("the copy counted %d bytes, want %d", done, len(data))
	}
}

// TestVerifyCopyMemory copies a 4 GiB sparse input with data in three
// places: the copy allocates about its one buffer, not the file.
// Not parallel: it reads the process's allocation counter.
func TestVerifyCopyMemory(t *testing.T) {
	c := newCatalog(t, map[string]string{ManifestName: "a: concat a big\n"})
	f, err := os.Create(filepath.Join(c.Dir, "big"))
	if err != nil {
		t.Fatal(err)
	}
	const size = 4 << 30
	chunk := bytes.Repeat([]byte{0xa5}, 3<<20)
	for _, off := range []int64{0, 2 << 30, size - int64(len(chunk))} {
		if _, err := f.WriteAt(chunk, off); err != nil {
			t.Skipf("no room for a sparse file: %v", err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := copyInputs(context.Background(), c, dst, nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Errorf("copying a %d-byte input allocated %d bytes", int64(size), n)
	}
	g, err := os.Open(filepath.Join(dst, "big"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	got := make([]byte, len(chunk))
	if _, err := g.ReadAt(got, 2<<30); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, chunk) {
		t.Errorf("the copy's data at 2 GiB differs")
	}
	if fi, err := g.Stat(); err != nil {
		t.Fatal(err)
	} else if fi.Size() != size {
		t.Errorf("copy size %d", fi.Size())
	} else if hs, ok := allocated(fi); ok && hs > 64<<20 {
		t.Errorf("the copy allocates %d bytes on disk", hs)
	}
}
