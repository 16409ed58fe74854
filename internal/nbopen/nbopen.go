// Package nbopen opens the files a command reads or writes at a path the
// user gave, without waiting for ever on a named pipe (FIFO) that has no
// process at its other end: open(2) of a FIFO blocks until one comes, and
// a command would hang with nothing on the screen. A pipe that has its
// other end (a FIFO being written, or /dev/fd/N of a shell's process
// substitution) is opened as it always was and read or written as a
// stream.
package nbopen

import "errors"

// ErrNoWriter is the error, inside an *fs.PathError, of Read for a named
// pipe that no process has open for writing.
var ErrNoWriter = errors.New("a named pipe with no writer")

// ErrNoReader is the error, inside an *fs.PathError, of Write for a named
// pipe that no process has open for reading.
var ErrNoReader = errors.New("a named pipe with no reader")
