package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// progress shows how far a build is on a terminal: fixtures done of the
// total and bytes written, on one line of standard error that is rewritten
// in place. It shows nothing for the first second, nothing when standard
// error is not a terminal, and nothing with -q.
type progress struct {
	w            io.Writer
	total        int
	count, bytes atomic.Int64
	stopc        chan struct{}
	wg           sync.WaitGroup
	shown        bool
}

// progressDelay is how long a build runs before progress appears (a
// variable for the tests).
var progressDelay = time.Second

// startProgress starts showing progress on w when w is a terminal and quiet
// is false; otherwise the returned progress only counts.
func startProgress(w io.Writer, total int, quiet bool) *progress {
	p := &progress{w: w, total: total}
	f, ok := w.(*os.File)
	if quiet || !ok || !isTerminal(f) {
		return p
	}
	p.stopc = make(chan struct{})
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
		p.show()
		select {
		case <-p.stopc:
			return
		case <-t.C:
		}
	}
}

func (p *progress) show() {
	p.shown = true
	fmt.Fprintf(p.w, "\r\x1b[Kbuilding: %d of %d fixtures done, %s written", p.count.Load(), p.total, humanBytes(p.bytes.Load()))
}

// done counts one finished fixture of n bytes.
func (p *progress) done(n int64) {
	p.count.Add(1)
	p.bytes.Add(n)
}

// stop ends the display and clears its line.
func (p *progress) stop() {
	if p.stopc == nil {
		return
	}
	close(p.stopc)
	p.wg.Wait()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
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
