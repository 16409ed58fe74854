package tooltest

import (
	"os"
	"testing"
)

// report prints note, the end of a run that skipped checks, to standard
// output, where go test -v and a failing package show it. go test
// ./... prints nothing of a package that passes but its "ok" line, so
// the note also goes to the terminal the tests were started from, when
// there is one and the run is not verbose (which shows it already).
func report(note string) {
	if note == "" {
		return
	}
	os.Stdout.WriteString(note)
	if !testing.Verbose() {
		toTerminal(note)
	}
}
