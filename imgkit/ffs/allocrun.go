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

// clusterTake is n calls of clusteracct(c, b, -1) for the blocks b from
// blkno up, which are free in the cluster map: the maximal free run
// holding them is counted as the runs on either side of them instead,
// each at most fs_contigsumsize long as cg_clustersum counts runs.
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
