package ffs

import (
	"math/rand/v2"
	"testing"
)

// TestOnesUpDown checks onesUp and onesDown against a bit-at-a-time count,
// as ffs_clusteracct makes it, on random maps and ranges.
func TestOnesUpDown(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 20000; iter++ {
		m := make([]byte, 1+r.IntN(24))
		for i := range m {
			switch r.IntN(3) {
			case 0:
				m[i] = 0xff
			case 1:
				m[i] = byte(r.IntN(256))
			}
		}
		nbits := int64(8 * len(m))
		lo, hi := r.Int64N(nbits+1), r.Int64N(nbits+1)
		if r.IntN(2) == 0 { // the ranges ffs_clusteracct looks at
			hi = min(lo+r.Int64N(18), nbits)
		}
		var up, down int64
		for i := lo; i < hi && isset(m, i); i++ {
			up++
		}
		for i := hi - 1; i >= lo && isset(m, i); i-- {
			down++
		}
		if got := onesUp(m, lo, hi); got != up {
			t.Fatalf("onesUp(%08b, %d, %d) = %d, want %d", m, lo, hi, got, up)
		}
		if got := onesDown(m, lo, hi); got != down {
			t.Fatalf("onesDown(%08b, %d, %d) = %d, want %d", m, lo, hi, got, down)
		}
	}
}
