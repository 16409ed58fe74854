package termline

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// OpenPTY opens a new pseudo-terminal and returns its two ends, for tests
// of what is drawn on a terminal: the code under test writes to slave, and
// ReadPTY reads what reached master. The caller closes both.
func OpenPTY() (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("unlockpt: %w", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("ptsname: %w", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return m, s, nil
}

// ptyEnd marks the end of what ReadPTY reads.
const ptyEnd = "END-OF-TERMINAL-OUTPUT"

// ReadPTY returns what was written to the pseudo-terminal's slave end so
// far (with the terminal's output processing: "\n" arrives as "\r\n"), by
// writing a marker to slave and reading master up to it.
func ReadPTY(master, slave *os.File) (string, error) {
	if _, err := slave.WriteString(ptyEnd); err != nil {
		return "", err
	}
	var out string
	for buf := make([]byte, 4096); !strings.HasSuffix(out, ptyEnd); {
		n, err := master.Read(buf)
		if err != nil {
			return out, fmt.Errorf("reading the terminal: %w (so far %q)", err, out)
		}
		out += string(buf[:n])
	}
	return strings.TrimSuffix(out, ptyEnd), nil
}
