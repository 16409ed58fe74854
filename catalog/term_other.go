//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd && !windows

package catalog

import "os"

// isTerminal reports false: progress is shown only where a terminal can be
// recognised with the termios ioctl.
func isTerminal(f *os.File) bool { return false }
