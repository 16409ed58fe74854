package catalog

import (
	"os"

	"golang.org/x/sys/windows"
)

// isTerminal reports whether f is a console. The progress line clears
// itself with the escape sequence ESC [ K, so the console is also asked to
// interpret escape sequences (ENABLE_VIRTUAL_TERMINAL_PROCESSING, Windows 10
// and later); where it refuses, f is treated as not a terminal and no
// progress is shown.
func isTerminal(f *os.File) bool {
	h := windows.Handle(f.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
