package ffs

// This file allocates a run of blocks at once where ffs_balloc would
// allocate them one by one with the same result: a file's next block is
// preferred right after its last one (ffs_blkpref), and while that block
// is free in the same cylinder group ffs_alloccgblk takes it without a
// search. Taking n such blocks together changes the maps and counts as n
// calls would, without n passes through ffs_alloc.

// allocRun allocates up to n whole blocks of cylinder group c, starting
// at fragment bno of the group (block aligned) and stopping at the first
// block that is not free or at the end of the group. It returns how many
// it took; the first address is c*fpg+bno.
func (a *alloc) allocRun(c, bno, n int64) int64 {
	g := a.g
	n = min(n, a.total.nbfree, int64(a.cs[c].nbfree))
	if n <= 0 || bno < 0 || bno+g.frag > g.fpg {
		return 0
	}
	cgp := a.cg(c)
	free := cgp[g.freeoff:g.nextfreeoff]
	blk := bno >> g.fragshift
	end := min(blk+n, g.fpg>>g.fragshift)
	k := blk
	for k < end && a.isblock(free, k) {
		a.clrblock(free, k)
		k++
	}
	if k == blk {
		return 0
	}
	a.clusterTake(c, blk, k-blk)
	taken := k - blk
	a.cs[c].nbfree -= int32(taken)
	a.total.nbfree -= taken
	a.syncCsIn(cgp, c)
	return taken
}
