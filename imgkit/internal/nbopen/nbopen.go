// Package nbopen opens the files a command reads or writes at a path the
// user gave, without waiting for ever on a named pipe (FIFO) that has no
// process at its other end: open(2) of a FIFO blocks until one comes, and
// a command would hang with nothing on the screen. A pipe that has its
// other end (a FIFO being written, or /dev/fd/N of a shell's process
// substitution) is opened as it always was and read or written as a
// stream.
package nbopen

import (
	"errors"
	"time"
)

// Grace is how long Read and Write give a process that is starting beside
// the command (`producer >fifo & fixturegen ... fifo`) to open the pipe's
// other end before they refuse it: long enough for a shell's job to
// start, short enough that nobody waits on a pipe no one will open.
var Grace = 2 * time.Second

// pollInterval is how often the other end is looked for during Grace.
const pollInterval = 10 * time.Millisecond

// ErrNoWriter is the error, inside an *fs.PathError, of Read for a named
// pipe that no process opened for writing within Grace.
var ErrNoWriter = errors.New("a named pipe that no process opened for writing")

// ErrNoReader is the error, inside an *fs.PathError, of Write for a named
// pipe that no process opened for reading within Grace.
var ErrNoReader = errors.New("a named pipe that no process opened for reading")
