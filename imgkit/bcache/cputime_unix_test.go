//go:build unix

package bcache

import (
	"time"

	"golang.org/x/sys/unix"
)

// cpuTime returns the user plus system CPU time of this process so far. On a
// machine shared with other work it measures a variant far more steadily
// than the wall clock (the page faults of the mmap mode and the system calls
// of the others are all system time of this process).
func cpuTime() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
