package ffs

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
)

// cgResidentBytes bounds the memory the cylinder groups of a file system
// under construction take unpacked: past it, the group loaded first
// (other than the one in use) is packed with flate and unpacked when the
// allocator next looks at it; the groups newAlloc makes past it are
// dropped and made again by initcg when first looked at. A group that a
// file filled packs to a few hundred bytes, so the groups of an image of
// any size fit in a few MiB (4 MiB: 128 groups of 32 KiB, an image of 20
// GiB with the defaults). It is a variable so that tests can make every
// image take that path.
var cgResidentBytes int64 = 4 << 20

// A cgSlot holds the bytes of one resident cylinder group.
type cgSlot struct {
	c   int64 // the group, or -1 for none
	buf cylGroup

	// lowfree is a byte index of the group's free-fragment map below
	// which every byte is zero. Bits are set again only in blocks that
	// were free (the tail of a block cut to fragments), so the index
	// never has to move back; mapsearch moves it forward. A group loaded
	// again starts at 0, which is always true.
	lowfree int64

	loaded int64 // when the group was loaded: the oldest is evicted first
}

// A cgCache keeps the cylinder groups of an alloc. Each group is
// resident (in one of slots, found through index), packed (its flate
// stream is packed[packedAt[c]-1]) or, when neither, as initcg makes it.
// Nothing is kept per group but packedAt, 4 bytes, and only when not
// every group can be resident.
type cgCache struct {
	slots    []cgSlot
	index    map[int64]int32 // the slot of each resident group
	cur      *cgSlot         // the group looked at last, never the one evicted
	limit    int             // how many groups may be resident
	loads    int64           // groups loaded so far, for cgSlot.loaded
	utime    int64           // cg_time, for groups made again
	discard  bool            // newAlloc is making the groups: drop the evicted ones, initcg's
	packedAt []uint32
	packed   [][]byte
	scratch  cgSlot // view's copy of a group that is not resident
	zw       *flate.Writer
	zr       io.ReadCloser
	zbuf     bytes.Buffer
}

// initCache sets the cache of a up for ncg groups made at utime.
func (a *alloc) initCache(utime int64) {
	k := &a.cache
	k.limit = int(min(max(2, cgResidentBytes/a.g.cgsize), a.g.ncg))
	k.slots = make([]cgSlot, 0, k.limit)
	k.index = make(map[int64]int32, k.limit)
	k.utime, k.discard = utime, true
	k.cur = &cgSlot{c: -1}
	if int64(k.limit) < a.g.ncg {
		k.packedAt = make([]uint32, a.g.ncg)
	}
}

// cg returns the bytes of cylinder group c, loading it if it is not
// resident. The slice stays valid until another group is looked at.
func (a *alloc) cg(c int64) cylGroup {
	if k := &a.cache; k.cur.c == c {
		return k.cur.buf
	}
	return a.lookup(c)
}

// lookup makes resident group c the current one, loading it first if it
// is not resident, and returns its bytes.
func (a *alloc) lookup(c int64) cylGroup {
	k := &a.cache
	if i, ok := k.index[c]; ok {
		k.cur = &k.slots[i]
		return k.cur.buf
	}
	s := a.slotFor(c)
	a.fill(c)
	k.freePacked(c)
	return s.buf
}

// slotFor returns a slot for group c, its bytes zero, and makes it the
// current one: a new slot, or the one whose group was loaded first
// (never the current one), packing that group first.
func (a *alloc) slotFor(c int64) *cgSlot {
	k := &a.cache
	var i int
	if len(k.slots) < k.limit {
		i = len(k.slots)
		k.slots = append(k.slots, cgSlot{buf: make(cylGroup, a.g.cgsize)})
	} else {
		i = -1
		for j := range k.slots {
			if &k.slots[j] != k.cur && (i < 0 || k.slots[j].loaded < k.slots[i].loaded) {
				i = j
			}
		}
		a.evict(&k.slots[i])
		clear(k.slots[i].buf)
	}
	s := &k.slots[i]
	s.c, s.lowfree, s.loaded = c, 0, k.loads
	k.loads++
	k.index[c] = int32(i)
	k.cur = s
	return s
}

// evict packs the group of slot s (or, while newAlloc builds the groups,
// drops it: initcg makes it again) and takes it out of the index.
func (a *alloc) evict(s *cgSlot) {
	k := &a.cache
	delete(k.index, s.c)
	if k.discard {
		return
	}
	k.zbuf.Reset()
	if k.zw == nil {
		k.zw, _ = flate.NewWriter(&k.zbuf, flate.BestSpeed)
	} else {
		k.zw.Reset(&k.zbuf)
	}
	k.zw.Write(s.buf)
	k.zw.Close()
	p := bytes.Clone(k.zbuf.Bytes())
	if i := k.packedAt[s.c]; i != 0 {
		k.packed[i-1] = p
		return
	}
	k.packed = append(k.packed, p)
	k.packedAt[s.c] = uint32(len(k.packed))
}

// packedBytes returns the flate stream of group c, or nil when the group
// is not packed.
func (k *cgCache) packedBytes(c int64) []byte {
	if k.packedAt == nil || k.packedAt[c] == 0 {
		return nil
	}
	return k.packed[k.packedAt[c]-1]
}

// freePacked drops the flate stream of group c, which is resident again;
// its place in packed is kept for the next time the group is packed.
func (k *cgCache) freePacked(c int64) {
	if k.packedAt != nil && k.packedAt[c] != 0 {
		k.packed[k.packedAt[c]-1] = nil
	}
}

// view returns the bytes of group c for writeMeta: its resident bytes,
// or, without making it resident (which would evict a group not yet
// written), a copy in a scratch buffer that the next view reuses.
func (a *alloc) view(c int64) cylGroup {
	k := &a.cache
	if i, ok := k.index[c]; ok {
		return k.slots[i].buf
	}
	if k.scratch.buf == nil {
		k.scratch.buf = make(cylGroup, a.g.cgsize)
	}
	clear(k.scratch.buf)
	saved := k.cur
	k.scratch.c = c
	k.cur = &k.scratch
	a.fill(c)
	k.cur = saved
	return k.scratch.buf
}

// fill sets the zero bytes of the current slot, which is to hold group
// c, to those of the group: unpacked, or made again by initcg.
func (a *alloc) fill(c int64) {
	k := &a.cache
	buf := k.cur.buf
	if p := k.packedBytes(c); p != nil {
		if k.zr == nil {
			k.zr = flate.NewReader(bytes.NewReader(p))
		} else {
			k.zr.(flate.Resetter).Reset(bytes.NewReader(p), nil)
		}
		if _, err := io.ReadFull(k.zr, buf); err != nil {
			panic(fmt.Sprintf("ffs: unpacking cylinder group %d: %v", c, err)) // packed by evict: cannot happen
		}
		return
	}
	s := a.cs[c]
	a.cs[c] = cgFree{}
	a.initcg(c)
	a.cs[c] = s // initcg counted the same
}
