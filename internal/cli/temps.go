package cli

import (
	"fmt"
	"os"
	"os/signal"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
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

// removeLeftovers removes what killed runs writing the output path left
// beside it (tempfile.RemoveLeftovers: temporary files named for it that
// no live process holds, such as the full-size raw disk of a container
// that a SIGKILL stopped) and says so in one line on standard error, as
// build does: "fixturegen: mkimg: removed 1 temporary file of a killed
// run (256.0 MiB): .fixturegen-tmp-disk.vmdk-raw-1a2b3c4d5e6f". A run
// writing the same output at the same moment keeps its files. An output
// that is not a regular file (a device, a pipe) or cannot be resolved has
// nothing beside it to look at: writing it says what is wrong.
func (e *env) removeLeftovers(op, path string) {
	t, err := bcache.ResolveTarget(e.abs(path))
	if err != nil || !t.Regular() {
		return
	}
	if line := tempfile.RemoveLeftovers(t.Path); line != "" {
		fmt.Fprintf(e.Stderr, "fixturegen: %s: %s\n", op, line)
	}
}
