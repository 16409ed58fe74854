package catalog

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/termline"
)

// openPTY returns the two ends of a new pseudo-terminal, closed at the
// end of the test; it skips where there are none.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, s, err := termline.OpenPTY()
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// readTerminal returns what was written to the terminal so far.
func readTerminal(t *testing.T, master, slave *os.File) string {
	t.Helper()
	out, err := termline.ReadPTY(master, slave)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// redraw shows the reporter's line now, as its ticker would, so that the
// test does not depend on when the ticker fires.
func redraw(r *TextReporter) { r.progress.line.Redraw() }

// termEnv returns a getenv that gives TERM the value term.
func termEnv(term string) func(string) string {
	return func(k string) string {
		if k == "TERM" {
			return term
		}
		return ""
	}
}

// built is the result of an entry built with size bytes.
func built(name string, size int64) *EntryResult {
	return &EntryResult{Entry: Entry{Name: name}, Status: Built, Sum: Sum{Size: size, Hash: "sha256:x"}}
}

// TestReporterProgress checks the progress line of a TextReporter on a
// terminal: the running entries with the step each is at and how far it
// is (or the bytes written before a step is named), redrawn as they
// grow; cleared before an output's line and drawn again after it;
// cleared at Finish, before the summary; at most two entries named.
func TestReporterProgress(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	r := &TextReporter{Stdout: slave, Stderr: slave, Getenv: termEnv("xterm")}
	r.Start("build", 5)
	var big, small, c, d progress.Meter
	r.EntryStarted(Entry{Name: "big.img"}, &big)
	redraw(r)
	big.Step("copying part.img", 2<<30)
	big.Add(1288490189) // 1.2 GiB
	redraw(r)
	r.EntryStarted(Entry{Name: "small.img"}, &small)
	small.Add(3 << 10)
	redraw(r)
	r.EntryDone(built("small.img", 3<<10))
	r.EntryStarted(Entry{Name: "c.a"}, &c)
	r.EntryStarted(Entry{Name: "d.a"}, &d)
	redraw(r)
	r.Finish(&Result{Op: "build", Built: 1}, nil)
	out := readTerminal(t, master, slave)
	for _, want := range []string{
		"\r\x1b[Kbuilding big.img: 0 bytes written · 0 of 5 done",
		"\r\x1b[Kbuilding big.img: copying part.img 1.2 GiB / 2.0 GiB (60%) · 0 of 5 done",
		"\r\x1b[Kbuilding big.img: copying part.img 1.2 GiB / 2.0 GiB (60%); small.img: 3.0 KiB written · 0 of 5 done",
		// small.img's line, the progress line cleared before it and drawn after it
		"written · 0 of 5 done\r\x1b[Ksmall.img 3072 sha256:x\r\n\r\x1b[Kbuilding big.img: copying part.img 1.2 GiB / 2.0 GiB (60%) · 1 of 5 done",
		"\r\x1b[Kbuilding big.img: copying part.img 1.2 GiB / 2.0 GiB (60%); c.a: 0 bytes written and 1 more · 1 of 5 done\r\x1b[Kbuild: 1 built, 0 up to date, 0 failed\r\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%q", want, out)
		}
	}
}

// TestReporterProgressDumb checks that with TERM=dumb the line is redrawn
// with blanks, without escape sequences.
func TestReporterProgressDumb(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	r := &TextReporter{Stdout: slave, Stderr: slave, Getenv: termEnv("dumb")}
	r.Start("verify", 2)
	var n progress.Meter
	r.EntryStarted(Entry{Name: "a.img"}, &n)
	n.Add(10)
	redraw(r)
	r.EntryDone(&EntryResult{Entry: Entry{Name: "a.img"}, Status: Built})
	r.Finish(nil, context.Canceled)
	out := readTerminal(t, master, slave)
	line := "verifying a.img: 10 bytes written · 0 of 2 done" // 47 columns
	after := "verifying: 1 of 2 done"                         // 22 columns
	want := "\r" + line +
		"\r" + strings.Repeat(" ", 47) + "\r" + // cleared around EntryDone's output (none)
		"\r" + after +
		"\r" + strings.Repeat(" ", 22) + "\r" // cleared at Finish
	if out != want {
		t.Errorf("progress on a dumb terminal:\n got %q\nwant %q", out, want)
	}
}

// TestReporterQuiet checks that nothing but errors is printed without a
// terminal, or with Quiet on one: no progress line, whatever runs.
func TestReporterQuiet(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	var stdout, stderr bytes.Buffer
	for _, r := range []*TextReporter{
		{Stdout: &stdout, Stderr: &stderr, Getenv: termEnv("xterm")},
		{Stdout: slave, Stderr: slave, Quiet: true, Getenv: termEnv("xterm")},
	} {
		r.Start("build", 1)
		if r.progress != nil {
			t.Errorf("a progress line on %T (quiet %v)", r.Stderr, r.Quiet)
		}
		var n progress.Meter
		r.EntryStarted(Entry{Name: "a.img"}, &n)
		n.Add(1 << 30)
		r.EntryDone(&EntryResult{Entry: Entry{Name: "a.img"}, Status: Failed, Errors: []string{"manifest:1: a.img: failed"}})
		r.Finish(nil, context.Canceled)
	}
	if stdout.Len() != 0 || stderr.String() != "fixturegen: build: manifest:1: a.img: failed\n" {
		t.Errorf("without a terminal: stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	if out := readTerminal(t, master, slave); out != "fixturegen: build: manifest:1: a.img: failed\r\n" {
		t.Errorf("quiet on a terminal: %q", out)
	}
}

// TestReporterRunSteps checks the line while the run's own steps go
// (Verify's copy of the inputs): the step with its figures and how many
// entries are done, until the first entry starts.
func TestReporterRunSteps(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	r := &TextReporter{Stdout: slave, Stderr: slave, Getenv: termEnv("xterm")}
	r.Start("verify", 1)
	var run, a progress.Meter
	r.RunStarted(&run)
	run.Step("copying the inputs", 4<<20)
	run.Add(1 << 20)
	redraw(r)
	r.EntryStarted(Entry{Name: "a.img"}, &a)
	redraw(r)
	r.Finish(nil, context.Canceled)
	out := readTerminal(t, master, slave)
	want := "\r\x1b[Kverifying: copying the inputs 1.0 MiB / 4.0 MiB (25%) · 0 of 1 done" +
		"\r\x1b[Kverifying a.img: 0 bytes written · 0 of 1 done\r\x1b[K"
	if out != want {
		t.Errorf("the terminal shows\n%q\nwant\n%q", out, want)
	}
}
