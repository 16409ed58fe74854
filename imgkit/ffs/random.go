package ffs

// bsdRandom is the additive feedback generator of FreeBSD's random(3) in
// its default configuration (TYPE_3: 31 words of state, separation 3),
// seeded as srandom(3) seeds it. FreeBSD's makefs -t ffs calls
// srandom(the -T time, else the start time) and takes fs_id[1] and every
// di_gen from random(), so the same sequence gives its bytes.
type bsdRandom struct {
	state [randDeg]uint32
	f, r  int // indexes of the front and rear taps
}

const (
	randDeg = 31 // words of state
	randSep = 3  // distance between the taps
)

// newBSDRandom returns the generator as srandom(seed) leaves it: the state
// filled by the Park–Miller generator from seed, and 10*31 values already
// drawn and discarded.
func newBSDRandom(seed uint32) *bsdRandom {
	g := &bsdRandom{f: randSep, r: 0}
	g.state[0] = seed
	for i := 1; i < randDeg; i++ {
		g.state[i] = parkMiller(g.state[i-1])
	}
	for i := 0; i < 10*randDeg; i++ {
		g.next()
	}
	return g
}

// parkMiller is the "minimal standard" generator x*16807 mod (2^31-1)
// that srandom uses to fill the state, with FreeBSD's transforms: the
// input is first mapped to [1, 0x7ffffffe] and the result to
// [0, 0x7ffffffd].
func parkMiller(x uint32) uint32 {
	v := int64(x%0x7ffffffe) + 1
	v = v * 16807 % 0x7fffffff
	return uint32(v - 1)
}

// next is random(): the sum of the two taps, kept in the front one, with
// its lowest bit dropped.
func (g *bsdRandom) next() int64 {
	g.state[g.f] += g.state[g.r]
	v := g.state[g.f] >> 1
	g.f++
	if g.f == randDeg {
		g.f = 0
		g.r++
	} else {
		g.r++
		if g.r == randDeg {
			g.r = 0
		}
	}
	return int64(v)
}
