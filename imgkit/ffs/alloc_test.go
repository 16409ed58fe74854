package ffs

import (
	"math/rand/v2"
	"testing"
)

// TestFindByte checks findByte, which skips eight bytes at a time, against
// a byte-by-byte search (ffs_mapsearch's scanc) for every fragment table
// and run size, on maps mixing zero, full and partly free bytes.
func TestFindByte(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for _, frag := range []int64{1, 2, 4, 8} {
		tbl := fragtbl()[frag]
		for allocsiz := int64(1); allocsiz <= frag; allocsiz++ {
			mask := byte(1) << (allocsiz - 1 + frag%8)
			wholeFF := frag == 8 && allocsiz == 8
			for n := 0; n < 300; n++ {
				m := make([]byte, r.IntN(80))
				for i := range m {
					switch r.IntN(8) {
					case 0, 1, 2:
					case 3, 4:
						m[i] = 0xff
					default:
						m[i] = byte(r.IntN(256))
					}
				}
				start := int64(r.IntN(len(m) + 1))
				end := start + int64(r.IntN(len(m)-int(start)+1))
				want := int64(-1)
				for i := start; i < end; i++ {
					if tbl[m[i]]&mask != 0 {
						want = i
						break
					}
				}
				if got := findByte(m, start, end, tbl, mask, wholeFF); got != want {
					t.Fatalf("frag %d allocsiz %d map %x [%d,%d): got %d, want %d", frag, allocsiz, m, start, end, got, want)
				}
			}
		}
	}
}
