//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd && !windows

package termline

import "os"

// IsTerminal reports false: a line is drawn only where a terminal can be
// recognised with the termios ioctl.
func IsTerminal(f *os.File) bool { return false }

// columns returns 0: the width is unknown.
func columns(f *os.File) int { return 0 }
