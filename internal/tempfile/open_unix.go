//go:build unix

package tempfile

import "syscall"

// openNoFollow opens a path itself, never a file a symbolic link put in
// its place leads to, and does not wait on a FIFO put there.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
