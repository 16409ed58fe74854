// Package termline draws a status line on a terminal, as build tools show
// progress: one line of text redrawn in place from a ticker, cleared before
// any other output is printed and when the work is done. On a writer that
// is not a terminal it draws nothing, so that logs and pipes get only the
// ordinary output. With TERM=dumb the line is redrawn with a carriage
// return and blanks rather than escape sequences; it uses no colour, so
// NO_COLOR has nothing to turn off. The catalogue's TextReporter and the
// standalone makefs command draw their progress with it.
package termline

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// A Line is a status line drawn on a terminal. A nil *Line draws nothing:
// Around runs what it is given, and the other methods do nothing.
type Line struct {
	w     io.Writer
	text  func() string
	dumb  bool // no escape sequences: blanks clear the line
	cols  int  // the terminal's width, 0 when unknown
	mu    sync.Mutex
	width int // columns of the line shown, 0 when none is
	stopc chan struct{}
	wg    sync.WaitGroup
}

// Start starts drawing the line text returns on w, when w is an *os.File
// on a terminal, and returns nil otherwise. The line first appears once
// delay has passed, so that short work shows nothing (a delay of 0 draws
// it before Start returns), and is redrawn every interval until Stop. text is called with the line's lock held
// (from the ticker, Redraw and Around), so never twice at once; it must
// not call the Line's methods. getenv is consulted for TERM; nil means
// os.Getenv. A line longer than the terminal is cut to fit, so that the
// carriage return that redraws it returns to its start.
func Start(w io.Writer, getenv func(string) string, delay, interval time.Duration, text func() string) *Line {
	f, ok := w.(*os.File)
	if !ok || !IsTerminal(f) {
		return nil
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	l := &Line{w: w, text: text, dumb: getenv("TERM") == "dumb", cols: columns(f), stopc: make(chan struct{})}
	if delay <= 0 {
		l.Redraw()
		delay = interval
	}
	l.wg.Add(1)
	go l.loop(delay, interval)
	return l
}

// loop draws the line every interval once delay has passed, until Stop.
func (l *Line) loop(delay, interval time.Duration) {
	defer l.wg.Done()
	select {
	case <-l.stopc:
		return
	case <-time.After(delay):
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		l.Redraw()
		select {
		case <-l.stopc:
			return
		case <-t.C:
		}
	}
}

// Redraw draws the line now, as the ticker does.
func (l *Line) Redraw() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.show()
}

// show draws the line over the one shown; l.mu is held.
func (l *Line) show() {
	line := l.text()
	if n := l.cols - 1; n > 0 && utf8.RuneCountInString(line) > n {
		line = string([]rune(line)[:n])
	}
	width := utf8.RuneCountInString(line)
	if l.dumb {
		pad := max(l.width-width, 0)
		fmt.Fprintf(l.w, "\r%s%s", line, strings.Repeat(" ", pad))
		if pad > 0 {
			fmt.Fprint(l.w, strings.Repeat("\b", pad))
		}
	} else {
		fmt.Fprintf(l.w, "\r\x1b[K%s", line)
	}
	l.width = max(width, 1) // an empty line shown still needs clearing
}

// clear removes the line shown, if any; l.mu is held.
func (l *Line) clear() {
	if l.width == 0 {
		return
	}
	if l.dumb {
		fmt.Fprintf(l.w, "\r%s\r", strings.Repeat(" ", l.width))
	} else {
		fmt.Fprint(l.w, "\r\x1b[K")
	}
	l.width = 0
}

// Around runs print, which writes other output to the terminal, with the
// line cleared, and draws the line again after it if it was shown.
func (l *Line) Around(print func()) {
	if l == nil {
		print()
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	shown := l.width > 0
	l.clear()
	print()
	if shown {
		l.show()
	}
}

// Stop stops drawing the line and clears it.
func (l *Line) Stop() {
	if l == nil {
		return
	}
	close(l.stopc)
	l.wg.Wait()
	l.mu.Lock()
	l.clear()
	l.mu.Unlock()
}

// Figure says how far a step is for a status line, from a meter's figures
// (progress.Meter.Load): "copying part.img 512.0 MiB / 1.5 GiB (33%)" when
// the total is known, "reading cmd 1.2 GiB" when it is not, the name
// alone for a step with no figures ("renaming into place"), and "1.2 GiB
// written" for bytes counted before any step was named.
func Figure(name string, done, total int64) string {
	switch {
	case name == "":
		return Bytes(done) + " written"
	case total == 0 && done == 0:
		return name
	case total > 0:
		return fmt.Sprintf("%s %s / %s (%d%%)", name, Bytes(done), Bytes(total), int(float64(done)*100/float64(total)))
	}
	return name + " " + Bytes(done)
}

// Bytes says n bytes for a status line: "512 bytes", "1.5 KiB", "2.0 GiB".
func Bytes(n int64) string {
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
