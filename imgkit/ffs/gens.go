package ffs

import "math"

// gensResidentBytes bounds the memory the di_gen values that mkfs draws
// for the initialised inodes of every group (initGens) take: 4 bytes per
// inode of every UFS1 group (320 KiB a group with the defaults, 564 MiB
// for 1 TiB) and of the first two inode blocks of every UFS2 group (1 KiB
// a group). Past it, only the generator's state is kept, about every
// genMarkDraws values, and a group's values are drawn again when an
// inode block of the group is written: from where the group before it
// ended (writeInitedInodes writes the groups in order), else from the
// mark before it. It is a variable so that tests can make every image
// take that path.
var gensResidentBytes int64 = 1 << 20

// genMarkDraws is about how many values apart genStore marks the
// generator: drawing the values of a group that is not next again costs
// up to this many draws and a group's. It is a variable so that tests can
// put the marks closer.
var genMarkDraws int64 = 1 << 21

// genCached is how many groups' values drawn again genStore keeps.
const genCached = 4

// A genStore holds the di_gen of the initialised inodes of each group, by
// group: all of them (all), or marks to draw them again from and the
// values of the UFS2 inode blocks initialised later (extra).
type genStore struct {
	all [][]uint32

	// every is how many groups apart the marks are; first is the
	// generator at the start of group 0, marks[k] at the start of group
	// (k+1)*every-1: drawing that group gives the UFS1 carry of the next.
	every  int64
	first  bsdRandom
	marks  []bsdRandom
	cursor genCursor
	extra  map[int64][]uint32
	cached []genGroup // the groups drawn again last, the newest at the end
}

// A genCursor is the generator and initGens's carried block at the start
// of group next, from which the groups after it are drawn in order.
type genCursor struct {
	rng   bsdRandom
	carry []uint32
	next  int64
}

// A genGroup is the values of group c drawn again.
type genGroup struct {
	c    int64
	gens []uint32
}

// markGens records the generator before initGens draws group c, where
// groupGens will start again from.
func (w *writer) markGens(c int64) {
	s := &w.gens
	if c == 0 {
		s.every = max(1, genMarkDraws/max(1, w.groupDraws()))
		s.first = *w.rng
		s.marks = make([]bsdRandom, 0, w.g.ncg/s.every)
		s.cursor.next = math.MaxInt64 // none yet: groupGens seeks
	}
	if c%s.every == s.every-1 {
		s.marks = append(s.marks, *w.rng)
	}
}

// groupDraws is how many values initGens draws for each group.
func (w *writer) groupDraws() int64 {
	if g := w.g; g.version == 1 {
		return max(0, g.ipg-2*g.inopb)
	}
	return w.firstGens()
}

// firstGens is how many di_gen values mkfs draws for each group at
// first: every inode of a UFS1 group (of which those of the first two
// inode blocks are carried or zero), cg_initediblk of a UFS2 one.
func (w *writer) firstGens() int64 {
	g := w.g
	if g.version == 2 {
		return roundup(min(g.ipg, 2*g.inopb), g.inopb)
	}
	return g.ipg
}

// drawGroup draws the first values of group c from rng into buf (of
// firstGens entries at least) as initGens does, carry being the UFS1
// inode block carried from the groups before, which it updates.
func (w *writer) drawGroup(rng *bsdRandom, carry, buf []uint32) []uint32 {
	g := w.g
	gens := buf[:w.firstGens()]
	if g.version == 2 {
		for i := range gens {
			gens[i] = uint32(rng.next())
		}
		return gens
	}
	clear(gens)
	copy(gens, carry)
	for i := 2 * g.inopb; i < g.ipg; i++ {
		gens[i] = uint32(rng.next())
	}
	if g.ipg > 2*g.inopb {
		copy(carry, gens[g.ipg-g.inopb:])
	}
	return gens
}

// groupGens returns the first values of group c: kept, or drawn again
// from the cursor when c is next or a little after, else from the mark
// before c.
func (w *writer) groupGens(c int64) []uint32 {
	s := &w.gens
	if s.all != nil {
		return s.all[c]
	}
	for _, k := range s.cached {
		if k.c == c {
			return k.gens
		}
	}
	if k := c / s.every; s.cursor.next > c || k > 0 && s.cursor.next < k*s.every-1 {
		w.seekGens(c)
	}
	var buf []uint32
	if len(s.cached) == genCached {
		buf = s.cached[0].gens
		s.cached = append(s.cached[:0], s.cached[1:]...)
	} else {
		buf = make([]uint32, w.firstGens())
	}
	var gens []uint32
	for u := &s.cursor; u.next <= c; u.next++ {
		gens = w.drawGroup(&u.rng, u.carry, buf)
	}
	s.cached = append(s.cached, genGroup{c, gens})
	return gens
}

// seekGens sets the cursor to the mark before group c.
func (w *writer) seekGens(c int64) {
	s := &w.gens
	u := &s.cursor
	if u.carry == nil {
		u.carry = make([]uint32, w.g.inopb)
	}
	clear(u.carry)
	if k := c / s.every; k == 0 {
		u.rng, u.next = s.first, 0
	} else {
		u.rng, u.next = s.marks[k-1], k*s.every-1
	}
}

// addGen appends the di_gen v of the next inode of a UFS2 inode block of
// group c initialised after mkfs.
func (w *writer) addGen(c int64, v uint32) {
	s := &w.gens
	if s.all != nil {
		s.all[c] = append(s.all[c], v)
		return
	}
	if s.extra == nil {
		s.extra = map[int64][]uint32{}
	}
	s.extra[c] = append(s.extra[c], v)
}

// storedGen is the di_gen of the i-th inode of group c before any inode
// is stored in its block: 0 past the initialised inodes.
func (w *writer) storedGen(c, i int64) uint32 {
	s := &w.gens
	if s.all != nil {
		if i < int64(len(s.all[c])) {
			return s.all[c][i]
		}
		return 0
	}
	if first := w.groupGens(c); i < int64(len(first)) {
		return first[i]
	} else if x := s.extra[c]; i-int64(len(first)) < int64(len(x)) {
		return x[i-int64(len(first))]
	}
	return 0
}
