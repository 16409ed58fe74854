package catalog

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A Reporter is told how a Build or Verify goes. Its methods are called
// one at a time.
type Reporter interface {
	// Start is called once the entries are planned, with how many run.
	Start(op string, total int)
	// EntryDone is called as each entry completes, in the order they
	// complete.
	EntryDone(r *EntryResult)
	// Message is a note on the run, such as waiting for another run's
	// lock.
	Message(s string)
}

// TextReporter reports as the fixturegen command does: each output's line
// ("NAME SIZE sha256:HEX") on Stdout as it is built, each error line
// ("fixturegen: build: manifest:3: NAME: ...") and explanation on Stderr as
// its entry completes, and, when Stderr is a terminal, a progress line
// that it rewrites in place once the run has taken a second.
type TextReporter struct {
	Stdout, Stderr io.Writer
	// Quiet prints only errors.
	Quiet bool
	// Getenv is consulted for TERM: with TERM=dumb the progress line is
	// redrawn with a carriage return and blanks rather than escape
	// sequences. NO_COLOR
	// needs nothing: the reporter uses no colour. Nil means os.Getenv.
	Getenv func(string) string

	op       string
	progress *progress
}

// Start implements Reporter.
func (t *TextReporter) Start(op string, total int) {
	t.op = op
	if t.Quiet {
		return
	}
	getenv := t.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	t.progress = startProgress(t.Stderr, op, total, getenv)
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
	t.progress.around(func() {
		if !t.Quiet {
			io.WriteString(t.Stdout, stdout.String())
		}
		io.WriteString(t.Stderr, stderr.String())
	})
	t.progress.done(r.Sum.Size)
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

// progress shows how far a run is on a terminal: fixtures done of the
// total and bytes written, on one line of standard error rewritten in
// place. It shows nothing for the first second and nothing when standard
// error is not a terminal. A nil *progress shows nothing.
type progress struct {
	w            io.Writer
	op           string
	total        int
	dumb         bool // no escape sequences: blanks clear the line
	count, bytes atomic.Int64
	mu           sync.Mutex
	width        int // of the line shown, 0 when none is
	stopc        chan struct{}
	wg           sync.WaitGroup
}

// progressDelay is how long a run goes before progress appears (a variable
// for the tests).
var progressDelay = time.Second

// startProgress starts showing progress on w when w is a terminal.
func startProgress(w io.Writer, op string, total int, getenv func(string) string) *progress {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return nil
	}
	p := &progress{w: w, op: op, total: total, dumb: getenv("TERM") == "dumb", stopc: make(chan struct{})}
	p.wg.Add(1)
	go p.loop()
	return p
}

func (p *progress) loop() {
	defer p.wg.Done()
	select {
	case <-p.stopc:
		return
	case <-time.After(progressDelay):
	}
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		p.mu.Lock()
		p.show()
		p.mu.Unlock()
		select {
		case <-p.stopc:
			return
		case <-t.C:
		}
	}
}

func (p *progress) show() {
	verb := "building"
	if p.op == "verify" {
		verb = "verifying"
	}
	line := fmt.Sprintf("%s: %d of %d fixtures done, %s written", verb, p.count.Load(), p.total, humanBytes(p.bytes.Load()))
	if p.dumb {
		pad := max(p.width-len(line), 0)
		fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
		if pad > 0 {
			fmt.Fprint(p.w, strings.Repeat("\b", pad))
		}
	} else {
		fmt.Fprintf(p.w, "\r\x1b[K%s", line)
	}
	p.width = len(line)
}

// clear removes the line shown, if any; p.mu is held.
func (p *progress) clear() {
	if p.width == 0 {
		return
	}
	if p.dumb {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
	} else {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	p.width = 0
}

// around runs print with the progress line cleared, and shows it again.
func (p *progress) around(print func()) {
	if p == nil {
		print()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	shown := p.width > 0
	p.clear()
	print()
	if shown {
		p.show()
	}
}

// done counts one finished fixture of n bytes.
func (p *progress) done(n int64) {
	if p == nil {
		return
	}
	p.count.Add(1)
	p.bytes.Add(n)
}

// stop ends the display and clears its line.
func (p *progress) stop() {
	if p == nil {
		return
	}
	close(p.stopc)
	p.wg.Wait()
	p.mu.Lock()
	p.clear()
	p.mu.Unlock()
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
