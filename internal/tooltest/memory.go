package tooltest

import (
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
)

// MemoryBudget is how many bytes of images the tests of one test binary
// that call Reserve hold in memory at once.
const MemoryBudget = 512 << 20

// budget is what Reserve hands out: used bytes of MemoryBudget.
var budget struct {
	sync.Mutex
	cond sync.Cond
	used int64
}

// Reserve waits until n bytes of MemoryBudget are free and holds them
// until t ends, for a test about to hold images of about n bytes in
// memory (a reference image it read, the one it built): so tests that
// build images of hundreds of MiB run one or two at a time, and the test
// binary's peak memory stays bounded however many run in parallel. An n
// above MemoryBudget takes the whole budget; an n of 0 or less takes
// nothing. A test reserves once, and not while a parent test holds a
// reservation: it would wait for bytes that are given back only after
// it ends. When t ends, before the bytes go back, the garbage collector
// runs: the images t let go of are then free memory that the next test's
// images reuse, rather than garbage the collector's next goal (twice the
// memory in use at its last cycle) leaves beside them; after a
// reservation of a quarter of the budget or more, that memory is given
// back to the system too (debug.FreeOSMemory), so that the test binary's
// resident set shrinks back between big images.
func Reserve(t testing.TB, n int64) {
	t.Helper()
	n = min(n, MemoryBudget)
	if n <= 0 {
		return
	}
	budget.Lock()
	if budget.cond.L == nil {
		budget.cond.L = &budget.Mutex
	}
	for budget.used+n > MemoryBudget {
		budget.cond.Wait()
	}
	budget.used += n
	budget.Unlock()
	t.Cleanup(func() {
		if n >= MemoryBudget/4 {
			debug.FreeOSMemory()
		} else {
			runtime.GC()
		}
		budget.Lock()
		budget.used -= n
		budget.cond.Broadcast()
		budget.Unlock()
	})
}
