package ext

import "sort"

// bitmap is the writer's block or inode bitmap, held as the sorted runs
// of its set bits, so that its memory grows with how scattered the used
// blocks are, not with the file system's size: a 16 TiB file system of a
// small tree holds a few runs per flex group. mke2fs allocates in order,
// so most bits extend the run before them.
type bitmap struct {
	base      uint64 // the number of the first bit (the first data block, or inode 1)
	n         uint64 // bits in all
	chunkBits uint64 // bits of a group: what chunkBytes writes
	runs      []bitRun
}

// bitRun is the set bits from start to end (exclusive). Runs neither
// overlap nor touch.
type bitRun struct{ start, end uint64 }

func newBitmap(base, n, chunkBits uint64) *bitmap {
	return &bitmap{base: base, n: n, chunkBits: chunkBits}
}

// after is the index of the first run ending after i.
func (m *bitmap) after(i uint64) int {
	if k := len(m.runs); k == 0 || m.runs[k-1].end <= i {
		return k
	}
	return sort.Search(len(m.runs), func(k int) bool { return m.runs[k].end > i })
}

func (m *bitmap) test(i uint64) bool {
	k := m.after(i)
	return k < len(m.runs) && m.runs[k].start <= i
}

func (m *bitmap) set(i uint64) {
	k := m.after(i)
	if k < len(m.runs) && m.runs[k].start <= i {
		return
	}
	joinsPrev := k > 0 && m.runs[k-1].end == i
	joinsNext := k < len(m.runs) && m.runs[k].start == i+1
	switch {
	case joinsPrev && joinsNext:
		m.runs[k-1].end = m.runs[k].end
		m.runs = append(m.runs[:k], m.runs[k+1:]...)
	case joinsPrev:
		m.runs[k-1].end = i + 1
	case joinsNext:
		m.runs[k].start = i
	default:
		m.runs = append(m.runs, bitRun{})
		copy(m.runs[k+1:], m.runs[k:])
		m.runs[k] = bitRun{i, i + 1}
	}
}

// clearRun returns how many bits from i on are clear, at most limit:
// how far a run of set bits ending at i can grow.
func (m *bitmap) clearRun(i, limit uint64) uint64 {
	k := m.after(i)
	if k == len(m.runs) {
		return limit
	}
	if m.runs[k].start <= i {
		return 0
	}
	return min(limit, m.runs[k].start-i)
}

// extend sets the clear bits from i to end (exclusive): the run ending at
// i grows over them, as a file's blocks allocated in order grow it, else
// as setRange sets them.
func (m *bitmap) extend(i, end uint64) {
	k := m.after(i)
	if k > 0 && m.runs[k-1].end == i && (k == len(m.runs) || m.runs[k].start > end) {
		m.runs[k-1].end = end
		return
	}
	m.setRange(i, end)
}

// setRange sets the bits from i to end (exclusive).
func (m *bitmap) setRange(i, end uint64) {
	k := m.after(i)
	if k > 0 && m.runs[k-1].end == i {
		k-- // the run before touches it
	}
	j := k
	for j < len(m.runs) && m.runs[j].start <= end {
		i, end = min(i, m.runs[j].start), max(end, m.runs[j].end)
		j++
	}
	m.runs = append(m.runs[:k], append([]bitRun{{i, end}}, m.runs[j:]...)...)
}

// roundRuns widens every run to multiples of unit (a power of 2) and
// joins the runs that then touch: a block bitmap becoming a cluster
// bitmap, as ext2fs_convert_subcluster_bitmap makes it.
func (m *bitmap) roundRuns(unit uint64) {
	old := m.runs
	m.runs = nil
	for _, r := range old {
		s, e := r.start&^(unit-1), (r.end+unit-1)&^(unit-1)
		if k := len(m.runs); k > 0 && m.runs[k-1].end >= s {
			m.runs[k-1].end = max(m.runs[k-1].end, e)
			continue
		}
		m.runs = append(m.runs, bitRun{s, e})
	}
}

func (m *bitmap) clear(i uint64) {
	k := m.after(i)
	if k == len(m.runs) || m.runs[k].start > i {
		return
	}
	r := m.runs[k]
	switch {
	case r.start == i && r.end == i+1:
		m.runs = append(m.runs[:k], m.runs[k+1:]...)
	case r.start == i:
		m.runs[k].start++
	case r.end == i+1:
		m.runs[k].end--
	default:
		m.runs = append(m.runs, bitRun{})
		copy(m.runs[k+2:], m.runs[k+1:])
		m.runs[k] = bitRun{r.start, i}
		m.runs[k+1] = bitRun{i + 1, r.end}
	}
}

// firstZero is the first clear bit from i to end (exclusive), or false.
func (m *bitmap) firstZero(i, end uint64) (uint64, bool) {
	end = min(end, m.base+m.n)
	if k := m.after(i); k < len(m.runs) && m.runs[k].start <= i {
		i = m.runs[k].end // runs never touch: the bit after one is clear
	}
	return i, i < end
}

// count is the number of set bits from i to end (exclusive).
func (m *bitmap) count(i, end uint64) uint64 {
	n := uint64(0)
	for k := m.after(i); k < len(m.runs) && m.runs[k].start < end; k++ {
		n += min(m.runs[k].end, end) - max(m.runs[k].start, i)
	}
	return n
}

// last is the highest set bit from i to end (exclusive), or false.
func (m *bitmap) last(i, end uint64) (uint64, bool) {
	k := sort.Search(len(m.runs), func(k int) bool { return m.runs[k].start >= end }) - 1
	if k < 0 || m.runs[k].end <= i {
		return 0, false
	}
	return min(m.runs[k].end, end) - 1, true
}

// chunkBytes writes group c's bits into b, bit j of the group as bit j%8
// of byte j/8, as the on-disk bitmaps hold them.
func (m *bitmap) chunkBytes(c uint64, b []byte) {
	clear(b)
	first := m.base + c*m.chunkBits
	end := first + uint64(len(b))*8
	for k := m.after(first); k < len(m.runs) && m.runs[k].start < end; k++ {
		for j := max(m.runs[k].start, first); j < min(m.runs[k].end, end); j++ {
			b[(j-first)/8] |= 1 << ((j - first) % 8)
		}
	}
}
