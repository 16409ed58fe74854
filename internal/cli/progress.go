package cli

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/fixturegen/fixturegen/internal/termline"
)

// outputProgressDelay is how long makefs or ar writes before a line on a
// terminal shows how far it is (a variable for the tests), and
// outputProgressInterval how often the line is redrawn.
var outputProgressDelay = time.Second

const outputProgressInterval = 200 * time.Millisecond

// progressCounter returns the counter a command counts the bytes it
// writes in: the catalogue's (env.progress), when the catalogue runs it,
// or else a new one.
func (e *env) progressCounter() *atomic.Int64 {
	if e.progress != nil {
		return e.progress
	}
	return new(atomic.Int64)
}

// showProgress runs write, which writes the output name (as the command
// line gives it) and counts the bytes in written, with a line on standard error, when that is a
// terminal, that says how far it is ("makefs: big.img: 1.2 GiB written")
// once it has taken outputProgressDelay, redrawn as it grows and erased
// when write returns. write prints to the writers it is given, which clear
// the line first. Run by the catalogue, standard error is never a
// terminal and nothing is drawn.
func (e *env) showProgress(cmd, name string, written *atomic.Int64, write func(stdout, stderr io.Writer) error) error {
	line := termline.Start(e.Stderr, e.getenv, outputProgressDelay, outputProgressInterval, func() string {
		return fmt.Sprintf("%s: %s: %s written", cmd, name, termline.Bytes(written.Load()))
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
