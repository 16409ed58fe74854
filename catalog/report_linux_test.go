package catalog

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// readTerminal returns what was written to the terminal up to "END".
func readTerminal(t *testing.T, master, slave *os.File) string {
	t.Helper()
	slave.WriteString("END")
	var out string
	for buf := make([]byte, 4096); !strings.HasSuffix(out, "END"); {
		n, err := master.Read(buf)
		if err != nil {
			t.Fatalf("reading the terminal: %v (so far %q)", err, out)
		}
		out += string(buf[:n])
	}
	return strings.TrimSuffix(out, "END")
}

// redraw shows p's line now, as its ticker would, so that the test does
// not depend on when the ticker fires (a sleep did, and failed under load).
func redraw(p *progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.show()
}

// TestProgress runs alone: it sets progressDelay.
func TestProgress(t *testing.T) {
	// not parallel: it sets the package variable progressDelay.
	old := progressDelay
	progressDelay = 0
	defer func() { progressDelay = old }()
	env := func(term string) func(string) string {
		return func(k string) string {
			if k == "TERM" {
				return term
			}
			return ""
		}
	}

	// Not a terminal: nothing.
	var buf bytes.Buffer
	p := startProgress(&buf, "build", 3, env("xterm"))
	p.done(1 << 20)
	time.Sleep(50 * time.Millisecond)
	p.stop()
	r, w, _ := os.Pipe()
	p = startProgress(w, "build", 3, env("xterm"))
	p.done(1)
	p.stop()
	w.Close()
	if buf.Len() != 0 || isTerminal(r) || p != nil {
		t.Errorf("progress on a buffer: %q", buf.String())
	}
	r.Close()

	// A terminal: a line rewritten in place and cleared at the end; an
	// output's line printed meanwhile clears it and redraws it.
	master, slave := openPTY(t)
	if !isTerminal(slave) {
		t.Fatal("isTerminal(pty) = false")
	}
	p = startProgress(slave, "build", 3, env("xterm"))
	p.done(2 << 20)
	redraw(p)
	p.around(func() { slave.WriteString("a.img 1 sha256:x\n") })
	p.stop()
	out := readTerminal(t, master, slave)
	if !strings.HasPrefix(out, "\r\x1b[Kbuilding: ") || !strings.Contains(out, "\r\x1b[Kbuilding: 1 of 3 fixtures done, 2.0 MiB written") || !strings.HasSuffix(out, "\r\x1b[K") ||
		!strings.Contains(out, "written\r\x1b[Ka.img 1 sha256:x\r\n\r\x1b[Kbuilding: 1 of 3") {
		t.Errorf("progress on a terminal: %q", out)
	}

	// TERM=dumb: no escape sequences; blanks clear the line.
	p = startProgress(slave, "verify", 2, env("dumb"))
	p.done(10)
	redraw(p)
	p.stop()
	out = readTerminal(t, master, slave)
	line := "verifying: 1 of 2 fixtures done, 10 bytes written"
	if strings.Contains(out, "\x1b") || !strings.HasPrefix(out, "\rverifying: ") || !strings.Contains(out, "\r"+line) || !strings.HasSuffix(out, "\r"+strings.Repeat(" ", len(line))+"\r") {
		t.Errorf("progress on a dumb terminal: %q", out)
	}
}
