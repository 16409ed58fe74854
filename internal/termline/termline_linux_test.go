package termline

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY is OpenPTY for a test: it skips where there are no
// pseudo-terminals and closes both ends at the end.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, s, err := OpenPTY()
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// readPTY is ReadPTY for a test.
func readPTY(t *testing.T, master, slave *os.File) string {
	t.Helper()
	out, err := ReadPTY(master, slave)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// term returns a getenv that gives TERM the value term.
func term(term string) func(string) string {
	return func(k string) string {
		if k == "TERM" {
			return term
		}
		return ""
	}
}

// TestNotTerminal checks that nothing is drawn on a buffer or a pipe.
func TestNotTerminal(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, out := range []io.Writer{&buf, w} {
		l := Start(out, term("xterm"), 0, time.Millisecond, func() string { return "line" })
		if l != nil {
			t.Errorf("Start on %T: a line", out)
		}
		ran := false
		l.Redraw()
		l.Around(func() { ran = true })
		l.Stop()
		if !ran {
			t.Error("a nil Line's Around did not run its function")
		}
	}
	if buf.Len() != 0 || IsTerminal(r) {
		t.Errorf("drawn on a buffer: %q", buf.String())
	}
}

// TestLine checks the drawing on a terminal: the line rewritten in place,
// cleared around other output and drawn again, cut to the terminal's
// width, cleared at Stop; with TERM=dumb, without escape sequences.
func TestLine(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	if !IsTerminal(slave) {
		t.Fatal("IsTerminal(pty) = false")
	}
	text := "first"
	l := Start(slave, term("xterm"), time.Hour, time.Hour, func() string { return text })
	l.Redraw()
	text = "second · line"
	l.Around(func() { slave.WriteString("output\n") })
	l.Stop()
	out := readPTY(t, master, slave)
	if want := "\r\x1b[Kfirst\r\x1b[Koutput\r\n\r\x1b[Ksecond · line\r\x1b[K"; out != want {
		t.Errorf("on a terminal:\n got %q\nwant %q", out, want)
	}

	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 8}); err != nil {
		t.Fatal(err)
	}
	l = Start(slave, term("xterm"), time.Hour, time.Hour, func() string { return "a·bcdefghij" })
	l.Redraw()
	l.Stop()
	if out := readPTY(t, master, slave); out != "\r\x1b[Ka·bcdef\r\x1b[K" {
		t.Errorf("cut to 8 columns: %q", out)
	}
	unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{})

	text = "a long line"
	l = Start(slave, term("dumb"), time.Hour, time.Hour, func() string { return text })
	l.Redraw()
	text = "short"
	l.Redraw()
	l.Stop()
	out = readPTY(t, master, slave)
	if want := "\ra long line\rshort      \b\b\b\b\b\b\r     \r"; out != want {
		t.Errorf("on a dumb terminal:\n got %q\nwant %q", out, want)
	}
}

// TestNoDelay checks that with no delay the line is drawn before Start
// returns.
func TestNoDelay(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	l := Start(slave, term("xterm"), 0, time.Hour, func() string { return "at once" })
	out := readPTY(t, master, slave)
	l.Stop()
	if out != "\r\x1b[Kat once" {
		t.Errorf("drawn at Start: %q", out)
	}
}

// TestTicker checks that the line appears by itself once the delay has
// passed.
func TestTicker(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	drawn := make(chan struct{}, 1)
	l := Start(slave, term("xterm"), time.Millisecond, time.Millisecond, func() string {
		select {
		case drawn <- struct{}{}:
		default:
		}
		return "tick"
	})
	select {
	case <-drawn:
	case <-time.After(10 * time.Second):
		t.Fatal("the line was not drawn within 10 s")
	}
	l.Stop()
	if out := readPTY(t, master, slave); !strings.HasPrefix(out, "\r\x1b[Ktick") || !strings.HasSuffix(out, "tick\r\x1b[K") {
		t.Errorf("drawn by the ticker: %q", out)
	}
}

func TestBytes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1536: "1.5 KiB", 3 << 20: "3.0 MiB", 5 << 29: "2.5 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
