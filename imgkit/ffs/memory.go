package ffs

import (
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
