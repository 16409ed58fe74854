package termline

import (
	"os"

	"golang.org/x/sys/windows"
)

// IsTerminal reports whether f is a console. A line clears itself with the
// escape sequence ESC [ K, so the console is also asked to interpret escape
// sequences (ENABLE_VIRTUAL_TERMINAL_PROCESSING, Windows 10 and later);
// where it refuses, f is treated as not a terminal and no line is drawn.
func IsTerminal(f *os.File) bool {
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

// columns returns the width of the console f's window in columns, or 0
// when it cannot tell.
func columns(f *os.File) int {
	var info windows.ConsoleScreenBufferInfo
	if err := windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info); err != nil {
		return 0
	}
	return int(info.Window.Right-info.Window.Left) + 1
}
