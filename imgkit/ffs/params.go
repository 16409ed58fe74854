package ffs

import (
	"fmt"
	"math"
	"math/bits"
)

// geometry is the layout of a file system: the values mkfs computes for
// struct fs, kept as numbers until the superblock is encoded. Addresses are
// in fragments (fs_fsize units) unless the name says otherwise.
type geometry struct {
	version    int   // 1 or 2
	sectorSize int   // bytes per device block (DEV_BSIZE as makefs -S sets it)
	sblockloc  int64 // fs_sblockloc: byte offset of the superblock

	bsize, fsize, frag  int64 // fs_bsize, fs_fsize, fs_frag
	bshift, fshift      int64 // fs_bshift, fs_fshift
	fragshift, fsbtodb  int64 // fs_fragshift, fs_fsbtodb
	nindir, inopb       int64 // fs_nindir, fs_inopb
	size, dsize         int64 // fs_size, fs_dsize in fragments
	sblkno, cblkno      int64 // fs_sblkno, fs_cblkno
	iblkno, dblkno      int64 // fs_iblkno, fs_dblkno
	ncg, fpg, ipg       int64 // fs_ncg, fs_fpg, fs_ipg
	cgsize, cssize      int64 // fs_cgsize, fs_cssize in bytes
	csaddr              int64 // fs_csaddr
	maxbsize, maxcontig int64 // fs_maxbsize, fs_maxcontig
	contigsumsize       int64 // fs_contigsumsize
	maxbpg, minfree     int64 // fs_maxbpg, fs_minfree
	optim               int64 // fs_optim
	avgfilesize         int64 // fs_avgfilesize
	avgfpdir            int64 // fs_avgfpdir
	maxfilesize         int64 // fs_maxfilesize
	maxsymlinklen       int64 // fs_maxsymlinklen
	oldCpg, oldNspf     int64 // fs_old_cpg, fs_old_nspf (UFS1)
	density             int64 // bytes per inode after any reduction
	origDensity         int64 // bytes per inode before it
	raisedDensity       int64 // bytes per inode asked for, when below one fragment an inode
	cgStruct            int64 // sizeof(struct cg) as CGSIZE counts it
	sbMaxcontig         int64 // fs_maxcontig as the superblock holds it
	extentReduced       int64 // the extent asked for, when above FS_MAXCONTIG blocks

	// Offsets inside a cylinder group block (struct cg).
	iusedoff, freeoff, nextfreeoff int64
	oldBtotoff, oldBoff            int64
	clustersumoff, clusteroff      int64
}

// params are the inputs of mkfs: the validated options and the size.
type params struct {
	version              int
	sectorSize           int
	size                 int64 // bytes
	bsize, fsize         int64
	density              int64
	minfree              int64
	optim                int64
	maxcontig, maxbpg    int64
	avgfilesize, avgfpdr int64
	extent, maxbpcg      int64
	sblockloc            int64
	// freebsd selects FreeBSD's mkfs where it differs from NetBSD's: the
	// density bounds, CGSIZEFUDGE and fs_maxcontig as given.
	freebsd bool
	// clampDensity lowers the density to 2 fragments an inode, as
	// FreeBSD's mkfs does unless its min_inodes is set.
	clampDensity bool
}

func powerOf2(n int64) bool { return n > 0 && n&(n-1) == 0 }

func howmany(x, y int64) int64 { return (x + y - 1) / y }
func roundup(x, y int64) int64 { return howmany(x, y) * y }

// ilog2 is the base-2 logarithm of n, a power of 2.
func ilog2(n int64) int64 { return int64(bits.Len64(uint64(n))) - 1 }

// cgSizeFor is CGSIZE_IF: the bytes a cylinder group block needs for ipg
// inodes and fpg fragments.
func (g *geometry) cgSizeFor(ipg, fpg int64) int64 {
	n := g.cgStruct + 4 + g.oldCpg*4 + g.oldCpg*2 + howmany(ipg, 8) + howmany(fpg, 8)
	if g.contigsumsize > 0 {
		n += g.contigsumsize*4 + howmany(fpg>>g.fragshift, 8)
	}
	return n
}

// groupFits sets g.ipg and g.fpg for a group of k fragments an inode, as
// mkfs's density loop does, and reports whether its cylinder group block
// is smaller than cgLimit bytes.
func (g *geometry) groupFits(k, inopf, cgLimit int64) bool {
	minfpg := min(k*g.inopb, g.size)
	g.ipg = g.inopb
	g.fpg = roundup(g.iblkno+g.ipg/inopf, g.frag)
	g.fpg = max(g.fpg, minfpg)
	g.ipg = roundup(howmany(g.fpg, k), g.inopb)
	g.fpg = roundup(g.iblkno+g.ipg/inopf, g.frag)
	g.fpg = max(g.fpg, minfpg)
	g.ipg = roundup(howmany(g.fpg, k), g.inopb)
	return g.cgSizeFor(g.ipg, g.fpg) < cgLimit
}

// firstFit returns the largest k from k0 down to 1 for which fits holds,
// the count mkfs's density loop stops at, in time logarithmic in k0. For
// every k with min(k*inopb, size) at least the group's minimum
// (roundup(iblkno+inopb/inopf, frag)) the loop's groups have inopb inodes
// and min(k*inopb, size) fragments, so fits holds for every such k up to
// some bound and for none above it (cgSizeFor grows with the fragments):
// there a binary search finds the same k as the loop. Below that range
// the loop itself runs, over at most that minimum's fragments.
func (g *geometry) firstFit(k0, inopf int64, fits func(int64) bool) (int64, error) {
	k1 := howmany(roundup(g.iblkno+g.inopb/inopf, g.frag), g.inopb) // the range starts here
	if g.size < roundup(g.iblkno+g.inopb/inopf, g.frag) {
		k1 = k0 + 1 // no such range: loop over every k
	}
	k := k0
	switch {
	case k1 > k0:
	case fits(k0):
		return k0, nil
	case fits(k1):
		lo, hi := k1, k0 // fits(lo), !fits(hi)
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if fits(mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
		return lo, nil
	default:
		k = k1 - 1
	}
	for ; k >= 1; k-- {
		if fits(k) {
			return k, nil
		}
	}
	return 0, fmt.Errorf("%w: no density fits a cylinder group block", ErrParams)
}

// mkfs computes the geometry as makefs's ffs/mkfs.c does (after newfs(8)).
func mkfs(p *params) (*geometry, error) {
	g := &geometry{version: p.version, sectorSize: p.sectorSize, cgStruct: cgStructSz}
	if p.freebsd {
		g.cgStruct = cgSpaceOff
	}
	fssize := p.size / int64(p.sectorSize) // in sectors
	if fssize <= 0 {
		return nil, fmt.Errorf("%w: size %d is too small", ErrParams, p.size)
	}
	if p.avgfilesize <= 0 || p.avgfpdr <= 0 {
		return nil, fmt.Errorf("%w: avgfilesize and avgfpdir must be positive", ErrParams)
	}
	if err := g.blocks(p, fssize); err != nil {
		return nil, err
	}
	// Blocks per cylinder group: enough for the density, then as many as
	// the cylinder group block can map.
	inopf := g.inopb / g.frag // INOPF
	cgLimit := g.bsize        // the cylinder group block must stay below it
	if p.freebsd {
		cgLimit -= cgSizeFudge
	}
	fragsperinode, err := g.groupDensity(p, inopf, cgLimit)
	if err != nil {
		return nil, err
	}
	g.growGroups(p, fragsperinode, cgLimit)
	if err := g.fitLastGroup(fragsperinode, inopf); err != nil {
		return nil, err
	}
	if err := g.summary(p, inopf); err != nil {
		return nil, err
	}
	if err := g.cgOffsets(); err != nil {
		return nil, err
	}
	return g, nil
}

// blocks sets the block and fragment sizes and what follows from them for
// a file system of fssize sectors: the extent and contiguity limits, the
// shifts, the size in fragments, the per-version inode and indirect
// counts, the superblock, cylinder group and inode block addresses, and
// the largest file.
func (g *geometry) blocks(p *params, fssize int64) error {
	g.avgfilesize, g.avgfpdir = p.avgfilesize, p.avgfpdr
	g.bsize, g.fsize = p.bsize, p.fsize
	// prepare has checked bsize and fsize: powers of 2, fsize from the
	// sector size to bsize, at most MAXFRAG fragments a block.
	if p.extent < g.bsize || !powerOf2(p.extent) {
		g.maxbsize = g.bsize
	} else if p.extent > fsMaxContg*g.bsize {
		g.maxbsize = fsMaxContg * g.bsize
		g.extentReduced = p.extent
	} else {
		g.maxbsize = p.extent
	}
	g.maxcontig = p.maxcontig
	g.sbMaxcontig = p.maxcontig
	if g.maxcontig < g.maxbsize/g.bsize {
		g.maxcontig = g.maxbsize / g.bsize
	}
	if !p.freebsd {
		g.sbMaxcontig = g.maxcontig // NetBSD's mkfs keeps the raised value
	}
	if g.maxcontig > 1 {
		g.contigsumsize = min(g.maxcontig, fsMaxContg)
	}
	g.bshift, g.fshift = ilog2(g.bsize), ilog2(g.fsize)
	g.frag = g.bsize / g.fsize
	g.fragshift = ilog2(g.frag)
	g.fsbtodb = ilog2(g.fsize / int64(p.sectorSize))
	g.size = fssize >> g.fsbtodb
	if g.version == 1 && g.size > math.MaxInt32 {
		// ufs1_daddr_t and fs_old_size are 32 bits.
		return fmt.Errorf("%w: %d fragments; UFS1 addresses at most %d (use Options.Version 2 or a larger fragment)", ErrParams, g.size, math.MaxInt32)
	}
	g.sblockloc = p.sblockloc
	if g.version == 1 {
		g.nindir = g.bsize / 4
		g.inopb = g.bsize / dinode1Size
		g.maxsymlinklen = maxSymlinkLen1
		g.oldNspf = g.fsize / int64(p.sectorSize)
		g.oldCpg = 1
	} else {
		g.nindir = g.bsize / 8
		g.inopb = g.bsize / dinode2Size
		g.maxsymlinklen = maxSymlinkLen2
	}
	g.sblkno = roundup(howmany(g.sblockloc+sblockSize, g.fsize), g.frag)
	g.cblkno = g.sblkno + roundup(howmany(sblockSize, g.fsize), g.frag)
	g.iblkno = g.cblkno + g.frag
	g.maxfilesize = g.bsize*nDAddr - 1
	sizepb := g.bsize
	for i := 0; i < nIAddr; i++ {
		sizepb *= g.nindir
		g.maxfilesize += sizepb
	}
	return nil
}

// groupDensity settles the inode density and returns the fragments per
// inode of the first cylinder group size whose block fits below cgLimit,
// setting g.ipg, g.fpg and the densities asked for, raised to and used.
func (g *geometry) groupDensity(p *params, inopf, cgLimit int64) (int64, error) {
	density := p.density
	g.origDensity = density
	if p.freebsd {
		// At most 2^32 inodes, and 2 fragments an inode unless the
		// tree sets the size.
		minfragsperinode := 1 + g.size/(1<<32-g.inopb)
		if mindensity := minfragsperinode * g.fsize; density < mindensity {
			g.raisedDensity = density
			density = mindensity
		}
		g.origDensity = density
		if p.clampDensity {
			density = min(density, max(2, minfragsperinode)*g.fsize)
		}
	}
	// mkfs lowers the density one fragment at a time until the cylinder
	// group block fits: the first fragments-per-inode count k, from
	// k0 = max(density/fsize, 1) down to 1, for which fits holds. The
	// densities it tries are density - (k0-k)*fsize.
	fits := func(k int64) bool { return g.groupFits(k, inopf, cgLimit) }
	if density <= 0 {
		return 0, fmt.Errorf("%w: no density fits a cylinder group block", ErrParams)
	}
	k0 := max(g.numfrags(density), 1)
	fragsperinode, err := g.firstFit(k0, inopf, fits)
	if err != nil {
		return 0, err
	}
	fits(fragsperinode) // sets g.ipg and g.fpg
	g.density = density - (k0-fragsperinode)*g.fsize
	return fragsperinode, nil
}

// growGroups grows the cylinder groups a block at a time, up to
// Options.MaxBPCG, while their block still fits below cgLimit.
func (g *geometry) growGroups(p *params, fragsperinode, cgLimit int64) {
	maxblkspercg := p.maxbpcg
	if maxblkspercg <= 0 || maxblkspercg >= g.size {
		maxblkspercg = g.size - 1
	}
	for ; g.fpg < maxblkspercg; g.fpg += g.frag {
		g.ipg = roundup(howmany(g.fpg, fragsperinode), g.inopb)
		if g.size/g.fpg < 1 {
			break
		}
		cs := g.cgSizeFor(g.ipg, g.fpg)
		if cs < cgLimit {
			continue
		}
		if cs == cgLimit {
			break
		}
		g.fpg -= g.frag
		g.ipg = roundup(howmany(g.fpg, fragsperinode), g.inopb)
		break
	}
}

// fitLastGroup counts the cylinder groups and shrinks them a block at a
// time until the last one is empty or holds its own metadata.
func (g *geometry) fitLastGroup(fragsperinode, inopf int64) error {
	for {
		g.ncg = howmany(g.size, g.fpg)
		lastminfpg := roundup(g.iblkno+g.ipg/inopf, g.frag)
		if g.size < lastminfpg {
			return fmt.Errorf("%w: file system size %d fragments is below the minimum %d", ErrNoSpace, g.size, lastminfpg)
		}
		if g.size%g.fpg >= lastminfpg || g.size%g.fpg == 0 {
			break
		}
		g.fpg -= g.frag
		g.ipg = roundup(howmany(g.fpg, fragsperinode), g.inopb)
	}
	return nil
}

// summary sets the cylinder group block size, the data and summary
// addresses and the data size, and checks that the first group holds its
// metadata and the summary and that the inodes can be counted in 32 bits.
func (g *geometry) summary(p *params, inopf int64) error {
	g.cgsize = roundup(g.cgSizeFor(g.ipg, g.fpg), g.fsize)
	g.dblkno = g.iblkno + g.ipg/inopf
	g.csaddr = g.cgdmin(0)
	g.cssize = roundup(g.ncg*csumSize, g.fsize)
	csfrags := howmany(g.cssize, g.fsize)
	// The first group must hold its metadata and the summary area up to a
	// block boundary; makefs does not check this, and with a group that
	// small its initcg marks fragments past the group's end free.
	if d0 := roundup(g.dblkno+csfrags, g.frag); d0 > g.fpg && g.ncg > 1 {
		// Not a small size but a large one: the summary of so many
		// groups outgrows a whole group.
		return fmt.Errorf("%w: %d fragments is too large: the summary of its %d cylinder groups and the first group's metadata need %d fragments, more than a group's %d",
			ErrParams, g.size, g.ncg, d0, g.fpg)
	} else if d0 > min(g.fpg, g.size) {
		return fmt.Errorf("%w: file system size %d fragments leaves no room for the first group's %d fragments of metadata", ErrNoSpace, g.size, d0)
	}
	g.dsize = g.size - g.sblkno - g.ncg*(g.dblkno-g.sblkno) - csfrags
	g.minfree, g.maxbpg, g.optim = p.minfree, p.maxbpg, p.optim
	if g.ncg*g.ipg > 1<<32-1 {
		return fmt.Errorf("%w: too many inodes (%d)", ErrParams, g.ncg*g.ipg)
	}
	return nil
}

// cgOffsets sets the offsets of the maps in the cylinder group block, as
// initcg lays them out, and checks that they fit in it.
func (g *geometry) cgOffsets() error {
	start := int64(cgSpaceOff)
	if g.version == 2 {
		g.iusedoff = start
	} else {
		g.oldBtotoff = start
		g.oldBoff = start + g.oldCpg*4
		g.iusedoff = g.oldBoff + g.oldCpg*2
	}
	g.freeoff = g.iusedoff + howmany(g.ipg, 8)
	if g.contigsumsize <= 0 {
		g.nextfreeoff = g.freeoff + howmany(g.fpg, 8)
	} else {
		g.clustersumoff = roundup(g.freeoff+howmany(g.fpg, 8)-4, 4)
		g.clusteroff = g.clustersumoff + (g.contigsumsize+1)*4
		g.nextfreeoff = g.clusteroff + howmany(g.fpg>>g.fragshift, 8)
	}
	if g.nextfreeoff > g.cgsize {
		return fmt.Errorf("%w: cylinder group too big", ErrParams)
	}
	return nil
}

// Address arithmetic of fs.h. UFS1's fs_old_cgoffset is 0, so cgstart is
// cgbase for both versions.
func (g *geometry) cgbase(c int64) int64   { return g.fpg * c }
func (g *geometry) cgsblock(c int64) int64 { return g.cgbase(c) + g.sblkno }
func (g *geometry) cgtod(c int64) int64    { return g.cgbase(c) + g.cblkno }
func (g *geometry) cgimin(c int64) int64   { return g.cgbase(c) + g.iblkno }
func (g *geometry) cgdmin(c int64) int64   { return g.cgbase(c) + g.dblkno }
func (g *geometry) dtog(d int64) int64     { return d / g.fpg }
func (g *geometry) dtogd(d int64) int64    { return d % g.fpg }
func (g *geometry) inoToCg(ino int64) int64 {
	return ino / g.ipg
}

// inoToFsba is ino_to_fsba: the fragment address of the block holding ino.
func (g *geometry) inoToFsba(ino int64) int64 {
	return g.cgimin(g.inoToCg(ino)) + ((ino%g.ipg)/g.inopb)<<g.fragshift
}

// inodeOff is the byte offset in the file system of inode ino.
func (g *geometry) inodeOff(ino int64) int64 {
	return g.inoToFsba(ino)*g.fsize + (ino%g.inopb)*g.dinodeSize()
}

func (g *geometry) dinodeSize() int64 {
	if g.version == 1 {
		return dinode1Size
	}
	return dinode2Size
}

func (g *geometry) fragroundup(n int64) int64 { return roundup(n, g.fsize) }
func (g *geometry) numfrags(n int64) int64    { return n >> g.fshift }
