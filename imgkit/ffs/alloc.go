package ffs

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// This file keeps the cylinder groups in memory while a tree is laid out
// and allocates blocks and fragments from them with the policy of
// makefs's ffs/ffs_alloc.c (itself the kernel's ffs_alloc.c of 4.4BSD):
// a preferred block, else the next free one after it in the same group,
// else quadratic rehash over the groups, else a brute-force search.

// cgFree is the part of a group's struct csum that the allocator reads
// without loading the group: cs_nbfree and cs_nffree, each below 2^19 (a
// group's free map fits a block of at most 64 KiB). cs_ndir and cs_nifree
// are counted in the group's cg_cs only.
type cgFree struct{ nbfree, nffree int32 }

// csumTotal is struct csum_total: the summary counts of the whole file
// system.
type csumTotal struct{ ndir, nbfree, nifree, nffree int64 }

// alloc is the allocation state of a file system under construction.
type alloc struct {
	g     *geometry
	o     order
	cs    []cgFree  // of fs_cs(fs, cg): per-group free counts
	total csumTotal // fs_cstotal

	// cache holds the cylinder groups, each fs_cgsize bytes in the
	// image's byte order (cgcache.go).
	cache cgCache

	// le says the image is little-endian: get32, put32 and add then read
	// and write the counts that every block changes without the byte
	// order's interface calls.
	le bool
}

func (a *alloc) blksfree(c int64) []byte {
	return a.cg(c)[a.g.freeoff:a.g.nextfreeoff]
}
func (a *alloc) inosused(c int64) []byte {
	return a.cg(c)[a.g.iusedoff:a.g.freeoff]
}
func (a *alloc) clustersfree(c int64) []byte { return a.cg(c)[a.g.clusteroff:a.g.nextfreeoff] }
func (a *alloc) clustersum(c int64, i int64) []byte {
	return a.cg(c)[a.g.clustersumoff+4*i:][:4]
}

func setbit(m []byte, i int64)         { m[i>>3] |= 1 << (i & 7) }
func clrbit(m []byte, i int64)         { m[i>>3] &^= 1 << (i & 7) }
func isset(m []byte, i int64) bool     { return m[i>>3]&(1<<(i&7)) != 0 }
func (a *alloc) add(b []byte, v int64) { a.put32(b, int64(a.get32(b))+v) }

// get32 and put32 read and write a 32-bit field of a group.
func (a *alloc) get32(b []byte) int32 {
	if a.le {
		return int32(binary.LittleEndian.Uint32(b))
	}
	return a.o.i32(b)
}

func (a *alloc) put32(b []byte, v int64) {
	if a.le {
		binary.LittleEndian.PutUint32(b, uint32(v))
		return
	}
	a.o.put32(b, v)
}

// isblock, clrblock and setblock test and change the free bits of the
// fragments of block h (ffs_isblock, ffs_clrblock, ffs_setblock).
func (a *alloc) isblock(m []byte, h int64) bool {
	switch a.g.frag {
	case 8:
		return m[h] == 0xff
	case 4:
		mask := byte(0x0f) << ((h & 1) << 2)
		return m[h>>1]&mask == mask
	case 2:
		mask := byte(0x03) << ((h & 3) << 1)
		return m[h>>2]&mask == mask
	default:
		mask := byte(0x01) << (h & 7)
		return m[h>>3]&mask == mask
	}
}

func (a *alloc) clrblock(m []byte, h int64) {
	switch a.g.frag {
	case 8:
		m[h] = 0
	case 4:
		m[h>>1] &^= 0x0f << ((h & 1) << 2)
	case 2:
		m[h>>2] &^= 0x03 << ((h & 3) << 1)
	default:
		m[h>>3] &^= 0x01 << (h & 7)
	}
}

func (a *alloc) setblock(m []byte, h int64) {
	switch a.g.frag {
	case 8:
		m[h] = 0xff
	case 4:
		m[h>>1] |= 0x0f << ((h & 1) << 2)
	case 2:
		m[h>>2] |= 0x03 << ((h & 3) << 1)
	default:
		m[h>>3] |= 0x01 << (h & 7)
	}
}

// newAlloc builds every cylinder group as mkfs's initcg does, and the
// totals as mkfs computes them. utime is the time written into each group.
func newAlloc(g *geometry, o order, utime int64) *alloc {
	a := &alloc{g: g, o: o, cs: make([]cgFree, g.ncg), le: o.ByteOrder == binary.LittleEndian}
	a.initCache(utime)
	for c := int64(0); c < g.ncg; c++ {
		a.slotFor(c)
		a.initcg(c)
	}
	a.cache.discard = false
	csfrags := howmany(g.cssize, g.fsize)
	a.total.nbfree = (g.dsize+csfrags)>>g.fragshift - howmany(csfrags, g.frag)
	a.total.nffree = g.size % g.frag
	if r := csfrags % g.frag; r > 0 {
		a.total.nffree += g.frag - r
	}
	a.total.nifree = g.ncg*g.ipg - rootIno
	return a
}

// initcg builds cylinder group c as mkfs's initcg does, in the bytes of
// the current slot of the cache, which must be zero: its header, its
// reserved inodes, its free map and its cluster summary.
func (a *alloc) initcg(c int64) {
	g := a.g
	cbase := g.cgbase(c)
	ndblk := min(cbase+g.fpg, g.size) - cbase
	dlower := g.cgsblock(c) - cbase
	dupper := g.cgdmin(c) - cbase
	if c == 0 {
		dupper += howmany(g.cssize, g.fsize)
	}
	a.initcgHeader(c, ndblk, a.cache.utime)
	nifree := g.ipg
	if c == 0 {
		for k := int64(0); k < rootIno; k++ {
			setbit(a.inosused(c), k)
			nifree--
		}
	}
	a.put32(a.cg(c).cgCs()[8:12], nifree) // cs_nifree
	a.initcgFree(c, dlower, dupper, ndblk)
	if g.contigsumsize > 0 {
		a.initcgClusterSum(c, ndblk>>g.fragshift)
	}
	a.syncCs(c)
}

// initcgHeader sets the header fields of cylinder group c, which holds
// ndblk fragments.
func (a *alloc) initcgHeader(c, ndblk, utime int64) {
	g, o, cg := a.g, a.o, a.cg(c)
	o.put32(cg.cgMagic(), cgMagic)
	o.put32(cg.cgCgx(), c)
	o.put32(cg.cgNdblk(), ndblk)
	if g.contigsumsize > 0 {
		o.put32(cg.cgNclusterblks(), ndblk>>g.fragshift)
	}
	if g.version == 2 {
		o.put64(cg.cgTime(), utime)
		o.put32(cg.cgNiblk(), g.ipg)
		o.put32(cg.cgInitediblk(), min(g.ipg, 2*g.inopb))
	} else {
		if c == g.ncg-1 {
			o.put16(cg.cgOldNcyl(), howmany(ndblk, g.fpg/g.oldCpg))
		} else {
			o.put16(cg.cgOldNcyl(), g.oldCpg)
		}
		o.put32(cg.cgOldTime(), utime)
		o.put16(cg.cgOldNiblk(), g.ipg)
		o.put32(cg.cgOldBtotoff(), g.oldBtotoff)
		o.put32(cg.cgOldBoff(), g.oldBoff)
	}
	o.put32(cg.cgIusedoff(), g.iusedoff)
	o.put32(cg.cgFreeoff(), g.freeoff)
	o.put32(cg.cgNextfreeoff(), g.nextfreeoff)
	if g.contigsumsize > 0 {
		o.put32(cg.cgClustersumoff(), g.clustersumoff)
		o.put32(cg.cgClusteroff(), g.clusteroff)
	}
}

// initcgFree marks free, in the free map of cylinder group c, the blocks
// before its superblock copy (groups after the first) and the fragments
// from dupper to ndblk, and sets cg_frsum for the partial blocks at
// either end of that range.
func (a *alloc) initcgFree(c, dlower, dupper, ndblk int64) {
	g, s := a.g, &a.cs[c]
	free := a.blksfree(c)
	var frsum [maxFrag]int64
	if c > 0 {
		for d, blkno := int64(0), int64(0); d < dlower; d, blkno = d+g.frag, blkno+1 {
			a.freeBlock(c, blkno)
		}
	}
	if i := dupper & (g.frag - 1); i != 0 {
		frsum[g.frag-i]++
		for d := dupper + g.frag - i; dupper < d; dupper++ {
			setbit(free, dupper)
			s.nffree++
		}
	}
	d, blkno := dupper, dupper>>g.fragshift
	if n := (ndblk - d) >> g.fragshift; n > 0 {
		a.freeBlocks(c, blkno, n)
		d += n << g.fragshift
	}
	if d < ndblk {
		frsum[ndblk-d]++
		for ; d < ndblk; d++ {
			setbit(free, d)
			s.nffree++
		}
	}
	for i, n := range frsum {
		if n != 0 {
			a.o.put32(a.cg(c).cgFrsum(i), n)
		}
	}
}

// freeBlock marks block blkno of cylinder group c free in its free map
// and its cluster map, and counts it.
func (a *alloc) freeBlock(c, blkno int64) {
	a.setblock(a.blksfree(c), blkno)
	if a.g.contigsumsize > 0 {
		setbit(a.clustersfree(c), blkno)
	}
	a.cs[c].nbfree++
}

// freeBlocks marks the n blocks from blkno of cylinder group c free, as
// freeBlock each would, setting whole bytes of the maps where it can.
func (a *alloc) freeBlocks(c, blkno, n int64) {
	setBits(a.blksfree(c), blkno<<a.g.fragshift, (blkno+n)<<a.g.fragshift)
	if a.g.contigsumsize > 0 {
		setBits(a.clustersfree(c), blkno, blkno+n)
	}
	a.cs[c].nbfree += int32(n)
}

// setBits sets the bits [lo, hi) of m.
func setBits(m []byte, lo, hi int64) {
	for ; lo < hi && lo&7 != 0; lo++ {
		setbit(m, lo)
	}
	for ; lo+8 <= hi; lo += 8 {
		m[lo>>3] = 0xff
	}
	for ; lo < hi; lo++ {
		setbit(m, lo)
	}
}

// initcgClusterSum counts the runs of free blocks in the cluster map of
// cylinder group c (nblks blocks) into cg_clustersum, runs longer than
// fs_contigsumsize counted at it.
func (a *alloc) initcgClusterSum(c, nblks int64) {
	g := a.g
	m := a.clustersfree(c)
	run := int64(0)
	for i := int64(0); i < nblks; i++ {
		if i&7 == 0 && i+8 <= nblks && m[i>>3] == 0xff {
			run += 8 // eight free blocks at once
			i += 7
			continue
		}
		if isset(m, i) {
			run++
		} else if run != 0 {
			a.add(a.clustersum(c, min(run, g.contigsumsize)), 1)
			run = 0
		}
	}
	if run != 0 {
		a.add(a.clustersum(c, min(run, g.contigsumsize)), 1)
	}
}

// syncCs copies the group's free counts into its cg_cs.
func (a *alloc) syncCs(c int64) { a.syncCsIn(a.cg(c), c) }

// syncCsIn copies the free counts of group c into cg_cs of cgp, its
// bytes.
func (a *alloc) syncCsIn(cgp cylGroup, c int64) {
	cs := cgp.cgCs()
	s := a.cs[c]
	a.put32(cs[4:8], int64(s.nbfree))
	a.put32(cs[12:16], int64(s.nffree))
}

// countInode counts a new inode of group c, a directory when dir, in the
// group's cg_cs and in the totals.
func (a *alloc) countInode(c int64, dir bool) {
	cs := a.cg(c).cgCs()
	a.add(cs[8:12], -1) // cs_nifree
	a.total.nifree--
	if dir {
		a.add(cs[0:4], 1) // cs_ndir
		a.total.ndir++
	}
}

// allocBlock is ffs_alloc: it allocates size bytes (a whole block or some
// fragments) for a file whose inode is ino, near bpref, and returns the
// fragment address.
func (a *alloc) allocBlock(ino, bpref, size int64) (int64, error) {
	g := a.g
	if size == g.bsize && a.total.nbfree == 0 {
		return 0, fmt.Errorf("%w: no free block for inode %d", ErrNoSpace, ino)
	}
	if bpref >= g.size {
		bpref = 0
	}
	var cg int64
	if bpref == 0 {
		cg = g.inoToCg(ino)
	} else {
		cg = g.dtog(bpref)
	}
	bno := a.hashalloc(cg, bpref, size)
	if bno <= 0 {
		return 0, fmt.Errorf("%w: no free space of %d bytes for inode %d", ErrNoSpace, size, ino)
	}
	return bno, nil
}

// hashalloc is ffs_hashalloc: the preferred group, then quadratic rehash,
// then brute force.
func (a *alloc) hashalloc(cg, pref, size int64) int64 {
	ncg := a.g.ncg
	if r := a.alloccg(cg, pref, size); r > 0 {
		return r
	}
	icg := cg
	for i := int64(1); i < ncg; i *= 2 {
		cg += i
		if cg >= ncg {
			cg -= ncg
		}
		if r := a.alloccg(cg, 0, size); r > 0 {
			return r
		}
	}
	cg = (icg + 2) % ncg
	for i := int64(2); i < ncg; i++ {
		if r := a.alloccg(cg, 0, size); r > 0 {
			return r
		}
		cg++
		if cg == ncg {
			cg = 0
		}
	}
	return 0
}

// alloccg is ffs_alloccg: allocate in group c, or return 0.
func (a *alloc) alloccg(c, bpref, size int64) int64 {
	g, o := a.g, a.o
	if a.cs[c].nbfree == 0 && (size == g.bsize || a.cs[c].nffree == 0) {
		return 0 // as the search below finds, without loading the group
	}
	cgp := a.cg(c)
	if size == g.bsize {
		return a.alloccgblk(c, bpref)
	}
	frags := g.numfrags(size)
	allocsiz := frags
	for ; allocsiz < g.frag; allocsiz++ {
		if o.u32(cgp.cgFrsum(int(allocsiz))) != 0 {
			break
		}
	}
	if allocsiz == g.frag {
		if a.cs[c].nbfree == 0 {
			return 0
		}
		bno := a.alloccgblk(c, bpref)
		bp := g.dtogd(bno)
		for i := frags; i < g.frag; i++ {
			setbit(a.blksfree(c), bp+i)
		}
		i := g.frag - frags
		a.cs[c].nffree += int32(i)
		a.total.nffree += i
		a.add(cgp.cgFrsum(int(i)), 1)
		a.syncCs(c)
		return bno
	}
	bno := a.mapsearch(c, bpref, allocsiz)
	if bno < 0 {
		return 0
	}
	for i := int64(0); i < frags; i++ {
		clrbit(a.blksfree(c), bno+i)
	}
	a.cs[c].nffree -= int32(frags)
	a.total.nffree -= frags
	a.add(cgp.cgFrsum(int(allocsiz)), -1)
	if frags != allocsiz {
		a.add(cgp.cgFrsum(int(allocsiz-frags)), 1)
	}
	a.syncCs(c)
	return c*g.fpg + bno
}

// alloccgblk is ffs_alloccgblk: allocate a whole block in group c.
func (a *alloc) alloccgblk(c, bpref int64) int64 {
	g, o := a.g, a.o
	cgp := a.cg(c)
	var bno int64
	base := g.cgbase(c) // dtog and dtogd without dividing
	if bpref == 0 || bpref < base || bpref >= base+g.fpg {
		bpref = int64(o.i32(cgp.cgRotor()))
	} else {
		bpref = bpref &^ (g.frag - 1) // blknum
		bno = bpref - base
		if a.isblock(cgp[g.freeoff:g.nextfreeoff], bno>>g.fragshift) {
			goto gotit
		}
	}
	bno = a.mapsearch(c, bpref, g.frag)
	if bno < 0 {
		return 0
	}
	o.put32(cgp.cgRotor(), bno)
gotit:
	blkno := bno >> g.fragshift
	a.clrblock(cgp[g.freeoff:g.nextfreeoff], blkno)
	a.clusterTake(c, blkno, 1)
	a.cs[c].nbfree--
	a.total.nbfree--
	a.syncCsIn(cgp, c)
	return c*g.fpg + bno
}

// mapsearch is ffs_mapsearch: find a run of exactly allocsiz free
// fragments in group c, starting at the byte of bpref (or of cg_frotor),
// and return its fragment number in the group, or -1.
//
// It finds the byte ffs_mapsearch finds, faster: a zero byte (no free
// fragment) never matches, so the search skips the zero bytes below the
// lowfree index of the group's slot (cgcache.go), and bytes that cannot
// match eight at a time (findByte).
func (a *alloc) mapsearch(c, bpref, allocsiz int64) int64 {
	g, o := a.g, a.o
	cgp := a.cg(c)
	var start int64
	if bpref != 0 {
		start = g.dtogd(bpref) / 8
	} else {
		start = int64(o.i32(cgp.cgFrotor())) / 8
	}
	free := a.blksfree(c)[:howmany(g.fpg, 8)]
	slot := a.cache.cur // group c's, since a.cg(c) above
	low := nextNonzero(free, slot.lowfree)
	slot.lowfree = low
	tbl := fragtbl()[g.frag]
	mask := byte(1) << (allocsiz - 1 + g.frag%8)
	wholeFF := g.frag == 8 && allocsiz == 8
	found := findByte(free, max(start, low), int64(len(free)), tbl, mask, wholeFF)
	if found < 0 {
		found = findByte(free, low, min(start+1, int64(len(free))), tbl, mask, wholeFF)
	}
	if found < 0 {
		return -1
	}
	bno := found * 8
	o.put32(cgp.cgFrotor(), bno)
	for end := bno + 8; bno < end; bno += g.frag {
		blk := int(free[bno>>3]>>(bno&7)) & (0xff >> (8 - g.frag)) // blkmap
		blk <<= 1
		field, subfield := around[allocsiz], inside[allocsiz]
		for pos := int64(0); pos <= g.frag-allocsiz; pos++ {
			if blk&field == subfield {
				return bno + pos
			}
			field <<= 1
			subfield <<= 1
		}
	}
	return -1
}

// nextNonzero returns the index of the first nonzero byte of m at or after
// i, or len(m).
func nextNonzero(m []byte, i int64) int64 {
	n := int64(len(m))
	for ; i+8 <= n; i += 8 {
		if binary.LittleEndian.Uint64(m[i:]) != 0 {
			break
		}
	}
	for ; i < n && m[i] == 0; i++ {
	}
	return i
}

// findByte returns the index of the first byte b of m[i:end] with
// tbl[b]&mask != 0, or -1. It looks at eight bytes at a time and skips
// those that cannot match: all zero (tbl[0] is 0 in every fragment
// table); only 0x00 and 0xff when tbl[0xff] lacks mask (a search for
// fewer fragments than a block); or, when wholeFF says that only 0xff
// matches (a whole block of 8 fragments), without a 0xff byte.
func findByte(m []byte, i, end int64, tbl *[256]byte, mask byte, wholeFF bool) int64 {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	skipFF := tbl[0xff]&mask == 0
	for ; i+8 <= end; i += 8 {
		w := binary.LittleEndian.Uint64(m[i:])
		if w == 0 {
			continue
		}
		if skipFF && w == (w&lsb)*0xff {
			continue
		}
		if v := ^w; wholeFF && (v-lsb)&^v&msb == 0 {
			continue
		}
		for k := i; k < i+8; k++ {
			if tbl[m[k]]&mask != 0 {
				return k
			}
		}
	}
	for ; i < end; i++ {
		if tbl[m[i]]&mask != 0 {
			return i
		}
	}
	return -1
}

// clusterTake is ffs_clusteracct for the allocation of the n blocks from
// blkno up, which are free: it clears them in the cluster map of group c
// and counts, in cg_clustersum, the maximal free run that held them as the
// runs on either side of them instead, each at most fs_contigsumsize long
// as cg_clustersum counts runs (n 1 is the block ffs_alloccgblk takes;
// allocRun takes more). It measures the free runs a byte of the map at a
// time (onesUp, onesDown). It does not keep fs_maxcluster, which
// ffs_clusteracct also sets: nothing here reads it, and the superblock
// holds only a pointer in its place.
func (a *alloc) clusterTake(c, blkno, n int64) {
	g := a.g
	if g.contigsumsize <= 0 {
		return
	}
	cgp := a.cg(c)
	m := cgp[g.clusteroff:g.nextfreeoff]
	for b := blkno; b < blkno+n; b++ {
		clrbit(m, b)
	}
	css := g.contigsumsize
	nclusterblks := int64(uint32(a.get32(cgp.cgNclusterblks())))
	last := blkno + n - 1
	forw := onesUp(m, last+1, min(last+1+css, nclusterblks))
	back := onesDown(m, max(blkno-1-css, -1)+1, blkno)
	sum := cgp[g.clustersumoff:]
	i := min(back+n+forw, css)
	a.add(sum[4*i:4*i+4], -1)
	if back > 0 {
		a.add(sum[4*back:4*back+4], 1)
	}
	if forw > 0 {
		a.add(sum[4*forw:4*forw+4], 1)
	}
}

// onesUp returns how many bits of m from bit lo upward are set in a row,
// counting no further than bit hi (exclusive).
func onesUp(m []byte, lo, hi int64) int64 {
	if i := lo >> 3; lo < hi && hi-lo <= 57 && i+8 <= int64(len(m)) {
		// One word holds the range: ffs_clusteracct counts at most
		// FS_MAXCONTIG (16) bits.
		k := int64(bits.TrailingZeros64(^(binary.LittleEndian.Uint64(m[i:]) >> (lo & 7))))
		return min(k, hi-lo)
	}
	n := int64(0)
	for lo < hi {
		s := lo & 7
		k := int64(bits.TrailingZeros8(^(m[lo>>3] >> s))) // at most 8-s
		if k >= hi-lo {
			return n + hi - lo
		}
		n += k
		if k < 8-s {
			return n
		}
		lo += k
	}
	return n
}

// onesDown returns how many bits of m from bit hi-1 downward are set in a
// row, counting no further than bit lo (inclusive).
func onesDown(m []byte, lo, hi int64) int64 {
	if i := (hi-1)>>3 - 7; lo < hi && hi-lo <= 57 && i >= 0 {
		k := int64(bits.LeadingZeros64(^(binary.LittleEndian.Uint64(m[i:]) << (7 - (hi-1)&7))))
		return min(k, hi-lo)
	}
	n := int64(0)
	for lo < hi {
		top := hi - 1
		s := 7 - top&7
		k := int64(bits.LeadingZeros8(^(m[top>>3] << s))) // at most 8-s
		if k >= hi-lo {
			return n + hi - lo
		}
		n += k
		if k < 8-s {
			return n
		}
		hi -= k
	}
	return n
}

// blkpref is ffs_blkpref_ufs1/ufs2: the preferred fragment address of
// logical block lbn of inode ino, which is entry indx of the block-pointer
// array bap (the inode's direct blocks or an indirect block).
func (a *alloc) blkpref(ino, lbn, indx int64, bap []int64) int64 {
	g := a.g
	if indx%g.maxbpg == 0 || bap[indx-1] == 0 {
		if lbn < nDAddr+g.nindir {
			cg := g.inoToCg(ino)
			return g.fpg*cg + g.frag
		}
		var startcg int64
		if indx == 0 || bap[indx-1] == 0 {
			startcg = g.inoToCg(ino) + lbn/g.maxbpg
		} else {
			startcg = g.dtog(bap[indx-1] + 1)
		}
		startcg %= g.ncg
		avgbfree := a.total.nbfree / g.ncg
		for cg := startcg; cg < g.ncg; cg++ {
			if int64(a.cs[cg].nbfree) >= avgbfree {
				return g.fpg*cg + g.frag
			}
		}
		// UFS1's loop includes startcg a second time; UFS2's does not.
		last := startcg
		if g.version == 1 {
			last++
		}
		for cg := int64(0); cg < last; cg++ {
			if int64(a.cs[cg].nbfree) >= avgbfree {
				return g.fpg*cg + g.frag
			}
		}
		return 0
	}
	return bap[indx-1] + g.frag
}
