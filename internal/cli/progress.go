package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/termline"
)

// outputProgressDelay is how long makefs, mkimg or ar works before a line
// on a terminal shows how far it is, and outputProgressInterval how often
// the line is redrawn (variables for the tests).
var (
	outputProgressDelay    = time.Second
	outputProgressInterval = 200 * time.Millisecond
)

// progressMeter returns the meter a command tells how far it is in: the
// catalogue's (env.progress), when the catalogue runs it, or else a new
// one.
func (e *env) progressMeter() *progress.Meter {
	if e.progress != nil {
		return e.progress
	}
	return new(progress.Meter)
}

// showProgress runs write, which writes the output name (as the command
// line gives it) and tells how far it is in m, with a line on standard
// error, when that is a terminal, that says which step it is at and how
// far that is ("mkimg: disk.qcow2: copying part.img 512.0 MiB / 1.5 GiB
// (33%)") once it has taken outputProgressDelay, redrawn as it moves and
// erased when write returns. write prints to the writers it is given,
// which clear the line first. Run by the catalogue, standard error is
// never a terminal and nothing is drawn.
func (e *env) showProgress(cmd, name string, m *progress.Meter, write func(stdout, stderr io.Writer) error) error {
	line := termline.Start(e.Stderr, e.getenv, outputProgressDelay, outputProgressInterval, func() string {
		return fmt.Sprintf("%s: %s: %s", cmd, name, termline.Figure(m.Load()))
	})
	if line == nil {
		return write(e.Stdout, e.Stderr)
	}
	defer line.Stop()
	return write(aroundLine{line, e.Stdout}, aroundLine{line, e.Stderr})
}

// aroundLine writes to w with the status line cleared.
type aroundLine struct {
	line *termline.Line
	w    io.Writer
}

func (a aroundLine) Write(p []byte) (n int, err error) {
	a.line.Around(func() { n, err = a.w.Write(p) })
	return n, err
}
