package cli

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

func TestProgress(t *testing.T) {
	old := progressDelay
	progressDelay = 0
	defer func() { progressDelay = old }()

	// Not a terminal: nothing.
	var buf bytes.Buffer
	p := startProgress(&buf, 3, false)
	p.done(1 << 20)
	time.Sleep(50 * time.Millisecond)
	p.stop()
	r, w, _ := os.Pipe()
	p = startProgress(w, 3, false)
	p.done(1)
	p.stop()
	w.Close()
	if buf.Len() != 0 || isTerminal(r) {
		t.Errorf("progress on a buffer: %q", buf.String())
	}
	r.Close()

	// A terminal: a line rewritten in place and cleared at the end;
	// nothing with quiet.
	master, slave := openPTY(t)
	if !isTerminal(slave) {
		t.Fatal("isTerminal(pty) = false")
	}
	p = startProgress(slave, 3, true)
	p.stop()
	p = startProgress(slave, 3, false)
	p.done(2 << 20)
	time.Sleep(100 * time.Millisecond)
	p.stop()
	slave.WriteString("END")
	var out string
	for buf := make([]byte, 4096); !strings.HasSuffix(out, "END"); {
		n, err := master.Read(buf)
		if err != nil {
			t.Fatalf("reading the terminal: %v (so far %q)", err, out)
		}
		out += string(buf[:n])
	}
	out = strings.TrimSuffix(out, "END")
	if !strings.HasPrefix(out, "\r\x1b[Kbuilding: 1 of 3 fixtures done, 2.0 MiB written") || !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("progress on a terminal: %q", out)
	}
}
