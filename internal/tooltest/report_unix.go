//go:build unix

package tooltest

import (
	"os"

	"golang.org/x/sys/unix"
)

// toTerminal writes note to the process's controlling terminal, if it
// has one; without one (CI, an editor running the tests) it does nothing.
func toTerminal(note string) {
	f, err := os.OpenFile("/dev/tty", os.O_WRONLY|unix.O_NOCTTY, 0)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(note)
}
