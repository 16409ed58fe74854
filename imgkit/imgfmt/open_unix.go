//go:build unix

package imgfmt

import "syscall"

// openNonblock keeps OpenFile from blocking on a named pipe.
const openNonblock = syscall.O_NONBLOCK
