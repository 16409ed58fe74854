package catalog

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/termline"
)

// A Reporter is told how a Build or Verify goes. Its methods are called
// one at a time.
type Reporter interface {
	// Start is called once, before anything runs, with how many entries
	// are selected.
	Start(op string, total int)
	// EntryDone is called as each entry completes, in the order they
	// complete.
	EntryDone(r *EntryResult)
	// Message is a note on the run, such as waiting for another run's
	// lock.
	Message(s string)
}

// A ProgressReporter is a Reporter that is also told as each entry's
// command starts, so that it can show which entries run and how far they
// are. p tells how far the entry is: the step of its command
// (Command.Progress) or of the run (hashing the output, and for Verify
// checking the output in the catalogue folder), how far that step is,
// and in p.Count the bytes the command has written into its output. It
// moves while the entry runs, from another goroutine, and is final once
// EntryDone reports the entry. EntryStarted is called one at a time with
// the Reporter's other methods, only for entries whose command runs (not
// for those up to date).
//
// RunStarted is told, after Start and before any entry starts, of the
// meter of the run's own steps that belong to no entry: Verify's copy of
// the catalogue's inputs ("copying the inputs"). It is not called for a
// run without such steps.
type ProgressReporter interface {
	Reporter
	EntryStarted(e Entry, p *progress.Meter)
	RunStarted(p *progress.Meter)
}

// started tells the Options' Reporter, when it is a ProgressReporter, that
// the command of m starts and tells how far it is in p.
func (e *engine) started(m Entry, p *progress.Meter) {
	pr, ok := e.o.Reporter.(ProgressReporter)
	if !ok {
		return
	}
	e.repMu.Lock()
	defer e.repMu.Unlock()
	pr.EntryStarted(m, p)
}

// runStarted tells the Options' Reporter, when it is a ProgressReporter,
// of the meter p of the run's own steps.
func (e *engine) runStarted(p *progress.Meter) {
	pr, ok := e.o.Reporter.(ProgressReporter)
	if !ok {
		return
	}
	e.repMu.Lock()
	defer e.repMu.Unlock()
	pr.RunStarted(p)
}

// TextReporter reports as the fixturegen command does: each output's line
// ("NAME SIZE sha256:HEX") on Stdout as it is built, each error line
// ("fixturegen: build: manifest:3: NAME: ...") and explanation on Stderr as
// its entry completes, and, when Stderr is a terminal and the reporter is
// not Quiet, a progress line that it rewrites in place once the run has
// taken a second: the entries running, each with its step and how far
// that is, and how many are done ("building big.img: hashing big.img 1.1
// GiB / 2.0 GiB (55%) · 0 of 1 done"). The line is cleared before any
// other line is printed and at Finish. It is a ProgressReporter.
type TextReporter struct {
	Stdout, Stderr io.Writer
	// Quiet prints only errors.
	Quiet bool
	// Getenv is consulted for TERM: with TERM=dumb the progress line is
	// redrawn with a carriage return and blanks rather than escape
	// sequences. NO_COLOR needs nothing: the reporter uses no colour. Nil
	// means os.Getenv.
	Getenv func(string) string

	op       string
	progress *runProgress
}

// Start implements Reporter.
func (t *TextReporter) Start(op string, total int) {
	t.op = op
	if t.Quiet {
		return
	}
	t.progress = startProgress(t.Stderr, op, total, t.Getenv)
}

// EntryStarted implements ProgressReporter.
func (t *TextReporter) EntryStarted(e Entry, p *progress.Meter) {
	t.progress.started(e.Name, p)
}

// RunStarted implements ProgressReporter.
func (t *TextReporter) RunStarted(p *progress.Meter) {
	t.progress.runStarted(p)
}

// EntryDone implements Reporter.
func (t *TextReporter) EntryDone(r *EntryResult) {
	var stdout, stderr strings.Builder
	stdout.WriteString(r.Stdout)
	if r.Status == Built && t.op == "build" {
		fmt.Fprintf(&stdout, "%s %s\n", r.Entry.Name, r.Sum)
	}
	for _, l := range r.Errors {
		fmt.Fprintf(&stderr, "fixturegen: %s: %s\n", t.op, l)
	}
	stderr.WriteString(r.Explain)
	t.progress.done(r.Entry.Name)
	if t.Quiet {
		stdout.Reset()
	}
	if stdout.Len() == 0 && stderr.Len() == 0 && t.progress == nil {
		return // an entry up to date, no progress line: no empty write(2)
	}
	t.progress.around(func() {
		if stdout.Len() > 0 {
			io.WriteString(t.Stdout, stdout.String())
		}
		if stderr.Len() > 0 {
			io.WriteString(t.Stderr, stderr.String())
		}
	})
}

// Message implements Reporter.
func (t *TextReporter) Message(s string) {
	t.progress.around(func() { fmt.Fprintf(t.Stderr, "fixturegen: %s\n", s) })
}

// Finish ends the progress line and, when err is nil and the reporter is
// not quiet, prints res's summary on Stdout. Errors are the caller's to
// print.
func (t *TextReporter) Finish(res *Result, err error) {
	t.progress.stop()
	t.progress = nil
	if err == nil && res != nil && !t.Quiet {
		fmt.Fprintln(t.Stdout, res.Summary())
	}
}

// runProgress shows how far a run is on a terminal (see TextReporter):
// the entries running, each with its step and how far that is, and how
// many of the total are done, on a termline.Line. A nil *runProgress
// shows nothing.
type runProgress struct {
	line    *termline.Line
	op      string
	total   int
	mu      sync.Mutex // guards count and running
	count   int
	running []runningEntry  // in the order they started
	run     *progress.Meter // the run's own steps, shown until an entry starts
}

// runningEntry is an entry whose command runs, with its meter.
type runningEntry struct {
	name  string
	meter *progress.Meter
}

// progressDelay is how long a run goes before progress appears, and
// progressInterval how often the line is redrawn (variables for the
// tests).
var (
	progressDelay    = time.Second
	progressInterval = 200 * time.Millisecond
)

// progressShown is how many running entries the line names; the others
// are counted ("and 3 more").
const progressShown = 2

// startProgress starts showing progress on w when w is a terminal, and
// returns nil otherwise.
func startProgress(w io.Writer, op string, total int, getenv func(string) string) *runProgress {
	p := &runProgress{op: op, total: total}
	p.line = termline.Start(w, getenv, progressDelay, progressInterval, p.text)
	if p.line == nil {
		return nil
	}
	return p
}

// text is the progress line: "building a.img: copying part.img 1.2 GiB /
// 2.0 GiB (60%); b.img: writing 3.0 KiB / 1.0 MiB (0%) · 1 of 5 done", or
// "building: 1 of 5 done" when no command runs.
func (p *runProgress) text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	verb := "building"
	if p.op == "verify" {
		verb = "verifying"
	}
	var b strings.Builder
	b.WriteString(verb)
	if len(p.running) == 0 {
		if p.run != nil {
			fmt.Fprintf(&b, ": %s ·", termline.Figure(p.run.Load()))
		} else {
			b.WriteString(":")
		}
		fmt.Fprintf(&b, " %d of %d done", p.count, p.total)
		return b.String()
	}
	for i, r := range p.running {
		if i == progressShown {
			fmt.Fprintf(&b, " and %d more", len(p.running)-i)
			break
		}
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s: %s", r.name, termline.Figure(r.meter.Load()))
	}
	fmt.Fprintf(&b, " · %d of %d done", p.count, p.total)
	return b.String()
}

// started adds the entry name, whose command starts, to the line, and
// takes the run's own steps off it.
func (p *runProgress) started(name string, m *progress.Meter) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = append(p.running, runningEntry{name, m})
	p.run = nil
}

// runStarted shows the run's own steps, told by m, until an entry starts.
func (p *runProgress) runStarted(m *progress.Meter) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.run = m
}

// done counts the entry name as done and takes it off the line.
func (p *runProgress) done(name string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count++
	p.running = slices.DeleteFunc(p.running, func(r runningEntry) bool { return r.name == name })
}

// around runs print, which prints other lines, with the line cleared.
func (p *runProgress) around(print func()) {
	if p == nil {
		print()
		return
	}
	p.line.Around(print)
}

// stop ends the display and clears its line.
func (p *runProgress) stop() {
	if p == nil {
		return
	}
	p.line.Stop()
}
