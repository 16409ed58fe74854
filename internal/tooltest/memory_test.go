package tooltest

import (
	"sync/atomic"
	"testing"
)

// TestReserve checks that the tests holding Reserve's bytes never hold
// more than MemoryBudget at once, that a reservation past the budget
// runs alone, and that each is given back when its test ends.
func TestReserve(t *testing.T) {
	t.Parallel()
	var held, most atomic.Int64
	sizes := []int64{MemoryBudget / 2, MemoryBudget / 2, MemoryBudget / 3, 2 * MemoryBudget, 0, MemoryBudget / 4}
	for i, n := range sizes {
		t.Run(string(rune('a'+i)), func(t *testing.T) {
			t.Parallel()
			Reserve(t, n)
			n = min(max(n, 0), MemoryBudget)
			now := held.Add(n)
			for {
				m := most.Load()
				if now <= m || most.CompareAndSwap(m, now) {
					break
				}
			}
			held.Add(-n)
		})
	}
	t.Cleanup(func() {
		if m := most.Load(); m > MemoryBudget {
			t.Errorf("%d bytes held at once, over the budget of %d", m, MemoryBudget)
		}
		budget.Lock()
		defer budget.Unlock()
		if budget.used != 0 {
			t.Errorf("%d bytes still reserved after the tests", budget.used)
		}
	})
}
