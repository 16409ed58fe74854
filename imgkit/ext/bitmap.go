package ext

import "math/bits"

// bitmap is the writer's block or inode bitmap: one chunk of bits per
// group, made when a bit of it is first set, so that a file system of
// terabytes made from a small tree holds only its used groups' bits
// (the rest are all free).
type bitmap struct {
	chunkBits uint64     // bits of a chunk: blocks or inodes per group
	base      uint64     // the number of the first bit (the first data block, or inode 1)
	n         uint64     // bits in all
	chunks    [][]uint64 // nil: all zero
}

func newBitmap(base, n, chunkBits uint64) *bitmap {
	return &bitmap{chunkBits: chunkBits, base: base, n: n, chunks: make([][]uint64, ceilDiv(n, chunkBits))}
}

// at returns bit i's chunk and its index in it.
func (m *bitmap) at(i uint64) (c uint64, k uint64) {
	i -= m.base
	return i / m.chunkBits, i % m.chunkBits
}

func (m *bitmap) test(i uint64) bool {
	if i < m.base || i >= m.base+m.n {
		return false
	}
	c, k := m.at(i)
	ch := m.chunks[c]
	return ch != nil && ch[k/64]&(1<<(k%64)) != 0
}

func (m *bitmap) set(i uint64) {
	c, k := m.at(i)
	if m.chunks[c] == nil {
		m.chunks[c] = make([]uint64, ceilDiv(m.chunkBits, 64))
	}
	m.chunks[c][k/64] |= 1 << (k % 64)
}

func (m *bitmap) clear(i uint64) {
	c, k := m.at(i)
	if ch := m.chunks[c]; ch != nil {
		ch[k/64] &^= 1 << (k % 64)
	}
}

// firstZero is the first clear bit from i to end (exclusive), or false.
func (m *bitmap) firstZero(i, end uint64) (uint64, bool) {
	end = min(end, m.base+m.n)
	for i < end {
		c, k := m.at(i)
		ch := m.chunks[c]
		if ch == nil {
			return i, true
		}
		chunkEnd := min(end, m.base+(c+1)*m.chunkBits)
		for i < chunkEnd {
			w := ^ch[k/64] >> (k % 64)
			if w != 0 {
				if j := i + uint64(bits.TrailingZeros64(w)); j < chunkEnd {
					return j, true
				}
				break
			}
			i += 64 - k%64
			k += 64 - k%64
		}
		i = chunkEnd
	}
	return 0, false
}

// count is the number of set bits from i to end (exclusive).
func (m *bitmap) count(i, end uint64) uint64 {
	end = min(end, m.base+m.n)
	n := uint64(0)
	for i < end {
		c, k := m.at(i)
		chunkEnd := min(end, m.base+(c+1)*m.chunkBits)
		ch := m.chunks[c]
		if ch == nil {
			i = chunkEnd
			continue
		}
		for i < chunkEnd {
			if k%64 == 0 && i+64 <= chunkEnd {
				n += uint64(bits.OnesCount64(ch[k/64]))
				i, k = i+64, k+64
				continue
			}
			if ch[k/64]&(1<<(k%64)) != 0 {
				n++
			}
			i, k = i+1, k+1
		}
	}
	return n
}

// last is the highest set bit from i to end (exclusive), or false.
func (m *bitmap) last(i, end uint64) (uint64, bool) {
	for j := end; j > i; j-- {
		if m.test(j - 1) {
			return j - 1, true
		}
		if c, k := m.at(j - 1); m.chunks[c] == nil && k > 0 {
			j -= k // skip the rest of an empty chunk
		}
	}
	return 0, false
}

// chunkBytes writes chunk c's bits into b, bit j of the chunk as bit j%8
// of byte j/8, as the on-disk bitmaps hold them.
func (m *bitmap) chunkBytes(c uint64, b []byte) {
	ch := m.chunks[c]
	if ch == nil {
		clear(b)
		return
	}
	for j := range b {
		b[j] = byte(ch[j/8] >> (8 * (j % 8)))
	}
}
