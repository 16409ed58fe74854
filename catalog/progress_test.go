package catalog

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// countingRunner is fakeRunner counting in Command.Progress the bytes of
// each output it writes, as fixturegen's makefs and ar do.
type countingRunner struct{ fakeRunner }

func (r *countingRunner) Run(ctx context.Context, c *Command) error {
	if err := r.fakeRunner.Run(ctx, c); err != nil {
		return err
	}
	fi, err := os.Stat(filepath.Join(c.Dir, c.Args[1]))
	if err != nil {
		return err
	}
	if c.Progress != nil {
		c.Progress.Add(fi.Size())
	}
	return nil
}

// startRecorder is a ProgressReporter that keeps, for each entry done,
// what its meter counted.
type startRecorder struct {
	recorder
	mu       sync.Mutex
	counters map[string]*progress.Meter
	written  map[string]int64
	last     map[string]string // the step each meter showed when done, with its figures
	run      *progress.Meter   // RunStarted's
}

func (r *startRecorder) EntryStarted(e Entry, written *progress.Meter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.counters[e.Name] != nil {
		panic("EntryStarted twice for " + e.Name)
	}
	r.counters[e.Name] = written
}

func (r *startRecorder) RunStarted(m *progress.Meter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.run = m
}

func (r *startRecorder) EntryDone(e *EntryResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.counters[e.Entry.Name]; c != nil {
		r.written[e.Entry.Name] = c.Count()
		if r.last != nil {
			name, done, total := c.Load()
			r.last[e.Entry.Name] = fmt.Sprintf("%s %d/%d", name, done, total)
		}
	}
}

// TestBuildHandsProgress checks that the engine gives each command a
// meter in Command.Progress and the same meter to a ProgressReporter
// before the command runs, and tells it nothing of entries up to date.
func TestBuildHandsProgress(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{ManifestName: "a: write a x\nb: write b yy zz\n"})
	for i, want := range []map[string]int64{{"a": 2, "b": 6}, {}} {
		rep := &startRecorder{counters: map[string]*progress.Meter{}, written: map[string]int64{}}
		if _, err := c.Build(context.Background(), &Options{Runner: &countingRunner{}, Reporter: rep, Update: true}); err != nil {
			t.Fatal(err)
		}
		if len(rep.written) != len(want) {
			t.Errorf("build %d: counters of %v, want %v", i+1, rep.written, want)
		}
		for name, n := range want {
			if rep.written[name] != n {
				t.Errorf("build %d: %s's meter counted %d when done, want %d", i+1, name, rep.written[name], n)
			}
		}
	}
}

// TestEntrySteps checks the steps of the run on each entry's meter after
// its command: a build hashes the output it made ("hashing NAME"), and
// Verify then the output in the catalogue folder too, each counted to
// the output's size; Verify's copy of the inputs is on the meter
// RunStarted gets, which a build does not call.
func TestEntrySteps(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{ManifestName: "a: write a x\nb: write b yy zz\n"})
	for _, run := range []struct {
		run    func(context.Context, *Options) (*Result, error)
		want   map[string]string
		copies bool // the run copies the inputs first
	}{
		{c.Build, map[string]string{"a": "hashing a 2/2", "b": "hashing b 6/6"}, false},
		{c.Verify, map[string]string{"a": "hashing a in the catalogue folder 2/2", "b": "hashing b in the catalogue folder 6/6"}, true},
	} {
		rep := &startRecorder{counters: map[string]*progress.Meter{}, written: map[string]int64{}, last: map[string]string{}}
		if _, err := run.run(context.Background(), &Options{Runner: &fakeRunner{}, Reporter: rep}); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(rep.last, run.want) {
			t.Errorf("the meters showed %q when done, want %q", rep.last, run.want)
		}
		if name, _, _ := rep.run.Load(); run.copies && name != "copying the inputs" || !run.copies && rep.run != nil {
			t.Errorf("RunStarted gave %v, showing %q", rep.run, name)
		}
	}
}
