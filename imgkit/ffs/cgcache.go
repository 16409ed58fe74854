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
// dropped and made again by initcg when first looked at. A group that a file filled packs to a few
// hundred bytes, so the groups of an image of any size fit in a few MiB
// (4 MiB: 128 groups of 32 KiB, an image of 20 GiB with the defaults).
// It is a variable so that tests can make every image take that path.
var cgResidentBytes int64 = 4 << 20

// A cgCache keeps the unpacked cylinder groups of an alloc: a.cgs[c] is
// nil for a group that is not resident, whose bytes are then packed[c],
// or, when that is nil too, initcg's.
type cgCache struct {
	packed   [][]byte
	resident []int64  // the resident groups, in the order they were loaded
	limit    int      // how many groups may be resident
	last     int64    // the group looked at last, never the one evicted
	utime    int64    // cg_time, for groups made again
	discard  bool     // newAlloc is making the groups: drop the evicted ones, initcg's
	spare    cylGroup // the bytes of the group evicted last, for the next one
	scratch  cylGroup // view's copy of a group that is not resident
	zw       *flate.Writer
	zr       io.ReadCloser
	zbuf     bytes.Buffer
}

// initCache sets the cache of a up for ncg groups made at utime.
func (a *alloc) initCache(utime int64) {
	k := &a.cache
	k.limit = int(max(2, cgResidentBytes/a.g.cgsize))
	k.utime, k.last, k.discard = utime, -1, true
	if int64(k.limit) < a.g.ncg {
		k.packed = make([][]byte, a.g.ncg)
	}
}

// cg returns the bytes of cylinder group c, loading it if it is not
// resident. The slice stays valid until another group is looked at.
func (a *alloc) cg(c int64) cylGroup {
	a.cache.last = c
	if cg := a.cgs[c]; cg != nil {
		return cg
	}
	return a.load(c)
}

// admit makes buf the bytes of resident group c, evicting the group
// loaded first (but not the last one looked at) when too many are.
func (a *alloc) admit(c int64, buf cylGroup) {
	k := &a.cache
	a.cgs[c] = buf
	k.resident = append(k.resident, c)
	if len(k.resident) <= k.limit {
		return
	}
	i := 0
	if k.resident[0] == k.last {
		i = 1
	}
	v := k.resident[i]
	k.resident = append(k.resident[:i], k.resident[i+1:]...)
	a.evict(v)
}

// evict packs resident group v (or, while newAlloc builds the groups,
// drops it: initcg makes it again) and frees its bytes for the next load.
func (a *alloc) evict(v int64) {
	k := &a.cache
	buf := a.cgs[v]
	a.cgs[v] = nil
	if !k.discard {
		k.zbuf.Reset()
		if k.zw == nil {
			k.zw, _ = flate.NewWriter(&k.zbuf, flate.BestSpeed)
		} else {
			k.zw.Reset(&k.zbuf)
		}
		k.zw.Write(buf)
		k.zw.Close()
		k.packed[v] = bytes.Clone(k.zbuf.Bytes())
	}
	k.spare = buf
}

// load makes group c resident: unpacked, or made again by initcg.
func (a *alloc) load(c int64) cylGroup {
	buf := a.buffer()
	a.fill(c, buf)
	a.cache.packed[c] = nil
	a.admit(c, buf)
	return buf
}

// view returns the bytes of group c for writeMeta: its resident bytes,
// or, without making it resident (which would evict a group not yet
// written), a copy in a scratch buffer that the next view reuses.
func (a *alloc) view(c int64) cylGroup {
	if cg := a.cgs[c]; cg != nil {
		return cg
	}
	k := &a.cache
	if k.scratch == nil {
		k.scratch = make(cylGroup, a.g.cgsize)
	}
	clear(k.scratch)
	a.fill(c, k.scratch)
	return k.scratch
}

// fill sets the zero bytes buf to those of group c, which is not
// resident: unpacked, or made again by initcg.
func (a *alloc) fill(c int64, buf cylGroup) {
	k := &a.cache
	if p := k.packed[c]; p != nil {
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
	a.cs[c] = csum{}
	a.initcg(c, buf)
	a.cgs[c] = nil
	a.cs[c] = s // initcg counted the same
}

// buffer returns cgsize zero bytes for a group: the spare ones, cleared,
// or new ones.
func (a *alloc) buffer() cylGroup {
	buf := a.cache.spare
	a.cache.spare = nil
	if buf == nil {
		return make(cylGroup, a.g.cgsize)
	}
	clear(buf)
	return buf
}
