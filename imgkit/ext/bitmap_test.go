package ext

import (
	"math/rand/v2"
	"testing"
)

// TestBitmapRuns checks the run-list bitmap against a plain one over
// random sets and clears: test, firstZero, count, last and the bytes of
// each group.
func TestBitmapRuns(t *testing.T) {
	t.Parallel()
	const base, n, group = 1, 5000, 512
	r := rand.New(rand.NewPCG(1, 2))
	m := newBitmap(base, n, group)
	plain := make([]bool, base+n)
	for op := range 20000 {
		i := base + uint64(r.IntN(n))
		if r.IntN(4) == 0 {
			m.clear(i)
			plain[i] = false
		} else {
			m.set(i)
			plain[i] = true
		}
		if op%500 != 0 {
			continue
		}
		for k := 1; k < len(m.runs); k++ {
			if m.runs[k-1].end >= m.runs[k].start {
				t.Fatalf("runs %v and %v overlap or touch", m.runs[k-1], m.runs[k])
			}
		}
		a, b := base+uint64(r.IntN(n)), base+uint64(r.IntN(n))
		a, b = min(a, b), max(a, b)
		var wantCount uint64
		wantZero, wantLast := uint64(0), uint64(0)
		zeroOK, lastOK := false, false
		for j := a; j < b; j++ {
			if plain[j] {
				wantCount++
				wantLast, lastOK = j, true
			} else if !zeroOK {
				wantZero, zeroOK = j, true
			}
		}
		if got := m.count(a, b); got != wantCount {
			t.Fatalf("count(%d, %d) = %d, want %d", a, b, got, wantCount)
		}
		if got, ok := m.firstZero(a, b); ok != zeroOK || ok && got != wantZero {
			t.Fatalf("firstZero(%d, %d) = %d %v, want %d %v", a, b, got, ok, wantZero, zeroOK)
		}
		if got, ok := m.last(a, b); ok != lastOK || ok && got != wantLast {
			t.Fatalf("last(%d, %d) = %d %v, want %d %v", a, b, got, ok, wantLast, lastOK)
		}
		for c := uint64(0); c*group < n; c++ {
			buf := make([]byte, group/8)
			m.chunkBytes(c, buf)
			for j := uint64(0); j < group && base+c*group+j < base+n; j++ {
				if got := buf[j/8]&(1<<(j%8)) != 0; got != plain[base+c*group+j] {
					t.Fatalf("group %d bit %d: %v, want %v", c, j, got, plain[base+c*group+j])
				}
			}
		}
	}
}
