package ffs

import (
	"fmt"
	"math"
	"runtime/debug"
)

// memoryBudget is how much memory the writer's bookkeeping may take: the
// Go memory limit (GOMEMLIMIT, debug.SetMemoryLimit) when one is set, and
// on Linux no more than the machine's physical memory. An image that needs
// more is refused with an error before anything is allocated, instead of
// the Go runtime's "fatal error: out of memory".
func memoryBudget() int64 {
	limit := debug.SetMemoryLimit(-1)
	if ram := physicalMemory(); ram > 0 {
		limit = min(limit, ram)
	}
	if limit <= 0 {
		return math.MaxInt64
	}
	return limit
}

// checkInMemory refuses an image that Build or Write would hold in memory
// (Options.Offset bytes and the file system) when, with the writer's
// bookkeeping, it needs more than memoryBudget: the allocation would end
// the program with the Go runtime's "fatal error: out of memory".
func (w *writer) checkInMemory() error {
	limit := memoryBudget()
	need := w.bookkeeping()
	if w.opts.Offset > limit-need || w.fsBytes > limit-need-w.opts.Offset {
		return fmt.Errorf("%w: Build and Write hold the image in memory: %d bytes of Options.Offset and %d of file system need more than the %d MiB available (lower Options.Size, or write a file with WriteFile)",
			ErrParams, w.opts.Offset, w.fsBytes, limit>>20)
	}
	return nil
}
