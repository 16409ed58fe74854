package cli

import (
	"fmt"
	"os"
	"os/signal"

	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// removeTempsOnSignal makes SIGINT, SIGTERM or SIGHUP, while the command
// op runs in the process's own environment, remove the temporary files
// the process has made and not yet renamed and let it make no more
// (tempfile.Stop, so that a file being created as the signal arrives is
// not left either), say so as build does ("fixturegen: makefs: interrupted by terminated") and
// exit with 128 plus the signal's number. makefs and ar cannot stop in the
// middle of writing an image, so they stop there. In-process runs (tests,
// a catalogue's commands) are left alone. The returned function undoes it.
func (e *env) removeTempsOnSignal(op string) func() {
	if !e.process {
		return func() {}
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, stopSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-c:
			tempfile.Stop()
			fmt.Fprintf(e.Stderr, "fixturegen: %s: interrupted by %v\n", op, sig)
			os.Exit(128 + signalNumber(sig))
		case <-done:
		}
	}()
	return func() {
		signal.Stop(c)
		close(done)
	}
}
