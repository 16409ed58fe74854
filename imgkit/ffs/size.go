package ffs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"time"
	"unsafe"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// explainSize rewrites an error that says the tree does not fit the
// image to say the smallest size that holds it: "the tree needs an image
// of at least N bytes (Options.Size = M given)". It keeps the sentinel
// (ErrNoSpace or ErrTooLarge); other errors are returned as they are.
func explainSize(t *fstree.Tree, o *Options, err error) error {
	sentinel := ErrNoSpace
	switch {
	case errors.Is(err, ErrTooLarge):
		sentinel = ErrTooLarge
	case !errors.Is(err, ErrNoSpace):
		return err
	}
	need, ok := neededSize(t, o)
	if !ok || o.Size > 0 && need <= o.Size {
		return err // the tree is not what does not fit
	}
	switch {
	case o.Size > 0:
		return fmt.Errorf("%w: the tree needs an image of at least %d bytes (Options.Size = %d given)", sentinel, need, o.Size)
	case o.MaxSize > 0 && sentinel == ErrTooLarge:
		return fmt.Errorf("%w: the tree needs an image of at least %d bytes (Options.MaxSize = %d given)", sentinel, need, o.MaxSize)
	}
	return fmt.Errorf("%w: the tree needs an image of at least %d bytes, more than makefs's estimate (give it with Options.Size)", sentinel, need)
}

// neededSize is the smallest image size, a multiple of the block size,
// that holds the tree with the options o but for their size limits. It
// assumes that a size that fits stays fitting when it grows, which holds
// for makefs's geometry within the range searched: up to the size the
// automatic sizing settles on, doubled until it fits with the density a
// given size brings. The answer is checked.
func neededSize(t *fstree.Tree, o *Options) (int64, bool) {
	fits := func(size int64) (int64, bool) {
		x := *o
		x.Size, x.MinSize, x.MaxSize, x.Warn = size, 0, 0, nil
		w, err := plan(t, &x)
		if err == nil && size > 0 {
			err = w.dryRun()
		}
		if err != nil {
			return 0, false
		}
		return w.fsBytes, true
	}
	hiOpts := *o
	hiOpts.Size, hiOpts.MinSize, hiOpts.MaxSize, hiOpts.Warn = 0, 0, 0, nil
	w, err := planGrow(t, &hiOpts, true)
	if err != nil {
		return 0, false
	}
	hi := w.fsBytes
	bs := w.p.bsize
	// With a size given, FreeBSD's mkfs lowers the density to 2
	// fragments an inode, so the automatic size may be too small for
	// the inodes that brings; double it until the tree fits.
	for i := 0; ; i++ {
		if _, ok := fits(hi); ok {
			break
		}
		if i == 20 {
			return 0, false
		}
		hi *= 2
	}
	lo := int64(0) // known not to fit
	for hi-lo > bs {
		mid := lo + (hi-lo)/2/bs*bs
		if mid <= lo {
			mid = lo + bs
		}
		if _, ok := fits(mid); ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

// plan sizes the image. When the size is left to the writer (no
// Options.Size) and makefs's estimate turns out too small for the
// geometry or for the tree, as it can with large blocks, the size grows
// until a dry run of the layout fits (CompatFreeBSD only: Debian's makefs
// fails there, and so does CompatDebian).
func plan(t *fstree.Tree, o *Options) (*writer, error) {
	return planGrow(t, o, o.Size == 0 && o.Compat != CompatDebian)
}

// planGrow is plan, growing the size when auto is set.
func planGrow(t *fstree.Tree, o *Options, auto bool) (*writer, error) {
	var extra int64
	for i := 0; ; i++ {
		w, err := prepare(t, o, extra)
		if err == nil && auto {
			err = w.dryRun()
		}
		if err == nil || !auto || !errors.Is(err, ErrNoSpace) || i == 40 {
			return w, err
		}
		extra = max(2*extra, maxBSize)
	}
}

// dryRun lays the tree out without writing anything.
func (w *writer) dryRun() error {
	w.dry = true
	defer func() { w.dry = false }()
	return w.write(nil)
}

// prepare validates the options, sizes the tree as makefs's ffs_validate
// does and computes the geometry.
func prepare(t *fstree.Tree, opts *Options, extra int64) (*writer, error) {
	if t == nil || t.Root == nil {
		return nil, fmt.Errorf("%w: empty tree", ErrParams)
	}
	if err := checkRanges(opts); err != nil {
		return nil, err
	}
	w := &writer{t: t, opts: opts, o: order{binary.LittleEndian}}
	if opts.ByteOrder != nil {
		w.o = order{opts.ByteOrder}
	}
	if err := w.blockOptions(); err != nil {
		return nil, err
	}
	if err := w.tuningOptions(); err != nil {
		return nil, err
	}
	size, inodes, err := w.treeNeeds()
	if err != nil {
		return nil, err
	}
	size, minSize, maxSize, err := w.imageSize(size, extra)
	if err != nil {
		return nil, err
	}
	if err := w.layoutImage(size, inodes, minSize, maxSize); err != nil {
		return nil, err
	}
	w.setTimes()
	return w, nil
}

// blockOptions takes the UFS version, the sector size, the fragment size
// and the block size from the options, with the defaults of the makefs
// that Options.Compat names, and checks them.
func (w *writer) blockOptions() error {
	opts, p := w.opts, &w.p
	p.version = opts.Version
	if p.version == 0 {
		p.version = 1
	}
	if p.version != 1 && p.version != 2 {
		return fmt.Errorf("%w: Options.Version = %d (want 1 or 2)", ErrOption, p.version)
	}
	p.sectorSize = opts.SectorSize
	if p.sectorSize == 0 {
		p.sectorSize = 512
	}
	if !powerOf2(int64(p.sectorSize)) || p.sectorSize < 512 || p.sectorSize > maxBSize {
		return fmt.Errorf("%w: Options.SectorSize = %d (want a power of 2 from 512 to %d)", ErrParams, p.sectorSize, maxBSize)
	}
	dfrag, dblk := int64(4096), int64(32768)
	if opts.Compat == CompatDebian {
		dfrag, dblk = 1024, 8192
	}
	p.fsize = int64(opts.FSize)
	if p.fsize == 0 {
		p.fsize = max(dfrag, int64(p.sectorSize))
	}
	p.bsize = int64(opts.BSize)
	if p.bsize == 0 {
		p.bsize = min(dblk, 8*p.fsize)
		if opts.FSize == 0 {
			p.bsize = dblk
		}
	}
	if !powerOf2(p.bsize) || p.bsize < minBSize || p.bsize > maxBSize {
		return fmt.Errorf("%w: Options.BSize = %d (want a power of 2 from %d to %d)", ErrParams, p.bsize, minBSize, maxBSize)
	}
	if !powerOf2(p.fsize) || p.fsize < int64(p.sectorSize) || p.fsize > p.bsize || p.bsize/p.fsize > maxFrag {
		return fmt.Errorf("%w: Options.FSize = %d (want a power of 2 from %d to %d, and at least the sector size %d)",
			ErrParams, p.fsize, max(p.bsize/maxFrag, int64(p.sectorSize)), p.bsize, p.sectorSize)
	}
	return nil
}

// tuningOptions takes the free-space reserve, the optimization, the
// allocation limits, the expected file and directory sizes, the
// superblock's place and the label from the options, and checks them.
func (w *writer) tuningOptions() error {
	opts, p := w.opts, &w.p
	p.minfree = minFreeDefault
	if opts.Compat == CompatDebian {
		p.minfree = minFreeNetBSD
	}
	if opts.MinFree != nil {
		p.minfree = int64(*opts.MinFree)
	}
	if p.minfree < 0 || p.minfree > 99 {
		return fmt.Errorf("%w: Options.MinFree = %d (want 0 to 99)", ErrParams, p.minfree)
	}
	switch opts.Optimization {
	case "", "time":
		p.optim = fsOptTime
	case "space":
		p.optim = fsOptSpace
	default:
		return fmt.Errorf("%w: Options.Optimization = %q (want time or space)", ErrOption, opts.Optimization)
	}
	p.maxcontig = max(1, min(maxPhys, maxBSize)/p.bsize)
	p.maxbpg = int64(opts.MaxBPG)
	if p.maxbpg == 0 {
		p.maxbpg = p.bsize / 4
	}
	p.avgfilesize, p.avgfpdr = int64(opts.AvgFileSize), int64(opts.AvgFPDir)
	if p.avgfilesize == 0 {
		p.avgfilesize = avgFileSizeDflt
	}
	if p.avgfpdr == 0 {
		p.avgfpdr = avgFPDirDflt
	}
	p.extent, p.maxbpcg = int64(opts.Extent), int64(opts.MaxBPCG)
	p.sblockloc = sblockUFS1
	if p.version == 2 && opts.Compat != CompatDebian {
		p.sblockloc = sblockUFS2
	}
	if opts.Label != "" && len(opts.Label) >= maxVolLen {
		return fmt.Errorf("%w: Options.Label %q is longer than %d bytes", ErrOption, opts.Label, maxVolLen-1)
	}
	return nil
}

// treeNeeds sizes the tree as ffs_size_dir and ffs_validate do: the bytes
// and inodes it needs with the free space and inodes asked for, the
// superblocks, the inode blocks and the minfree reserve. It refuses free
// space or inodes asked for that would take the counts past what UFS can
// number, before the arithmetic could overflow.
func (w *writer) treeNeeds() (size, inodes int64, err error) {
	opts, p := w.opts, &w.p
	size, inodes, err = w.sizeTree()
	if err != nil {
		return 0, 0, err
	}
	if inodes, err = freeInodes(inodes+rootIno, opts); err != nil {
		return 0, 0, err
	}
	if size, err = freeBytes(size, opts); err != nil {
		return 0, 0, err
	}
	dsz := int64(dinode1Size)
	if p.version == 2 {
		dsz = dinode2Size
	}
	if opts.Compat == CompatDebian {
		size += sblockUFS1 + sblockSize
	} else {
		// FreeBSD's: the boot area and superblock, the superblock copy
		// and the cylinder group block, each in whole blocks.
		size += roundup(p.sblockloc+sblockSize, p.bsize) + roundup(sblockSize, p.bsize) + p.bsize
	}
	size += dsz * roundup(inodes, p.bsize/dsz)
	if p.minfree > 0 {
		size = size * (100 + p.minfree) / 100
	}
	return size, inodes, nil
}

// maxFreeBytes bounds the bytes the tree needs with Options.FreeBlocks and
// Options.FreeBlocksPct, so that what treeNeeds and imageSize add to it
// cannot overflow; such an image is refused as too large anyway.
const maxFreeBytes = math.MaxInt64 / 4

// freeInodes adds Options.FreeFiles and Options.FreeFilesPct to the
// inodes the tree needs, refusing more than UFS's 32-bit inode numbers
// count.
func freeInodes(inodes int64, opts *Options) (int64, error) {
	const limit = 1<<32 - 1
	if opts.FreeFiles > limit-inodes {
		return 0, fmt.Errorf("%w: Options.FreeFiles = %d: more inodes than UFS numbers (%d)", ErrParams, opts.FreeFiles, int64(limit))
	}
	inodes += opts.FreeFiles
	if opts.FreeFilesPct > 0 {
		n, ok := addPercent(inodes, opts.FreeFilesPct)
		if !ok || n > limit {
			return 0, fmt.Errorf("%w: Options.FreeFilesPct %d%%: more inodes than UFS numbers (%d)", ErrParams, opts.FreeFilesPct, int64(limit))
		}
		inodes = n
	}
	return inodes, nil
}

// freeBytes adds Options.FreeBlocks and Options.FreeBlocksPct to the bytes
// the tree needs, refusing a total past maxFreeBytes.
func freeBytes(size int64, opts *Options) (int64, error) {
	if opts.FreeBlocks > maxFreeBytes-size {
		return 0, fmt.Errorf("%w: Options.FreeBlocks = %d is too large (the image size is a 64-bit count of bytes)", ErrParams, opts.FreeBlocks)
	}
	size += opts.FreeBlocks
	if opts.FreeBlocksPct > 0 {
		n, ok := addPercent(size, opts.FreeBlocksPct)
		if !ok || n > maxFreeBytes {
			return 0, fmt.Errorf("%w: Options.FreeBlocksPct %d%% is too large (the image size is a 64-bit count of bytes)", ErrParams, opts.FreeBlocksPct)
		}
		size = n
	}
	return size, nil
}

// addPercent returns v*(100+pct)/100 for v and pct at least 0, and false
// when the product does not fit in 64 bits.
func addPercent(v int64, pct int) (int64, bool) {
	if int64(pct) > math.MaxInt64-100 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(v), uint64(100+int64(pct)))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo) / 100, true
}

// imageSize turns the size the tree needs into the image size: at least
// Options.MinSize (or Options.Size), plus extra bytes, rounded up to the
// block size and to Options.Roundup. It returns the minimum and maximum
// sizes asked for too, and refuses sizes that do not fit in 64 bits.
func (w *writer) imageSize(size, extra int64) (_, minSize, maxSize int64, err error) {
	opts, p := w.opts, &w.p
	minSize, maxSize = opts.MinSize, opts.MaxSize
	if opts.Size > 0 {
		minSize, maxSize = opts.Size, opts.Size
	}
	// makefs refuses a minimum that the block size rounds past the
	// maximum, before it sizes the tree.
	if maxSize > 0 && roundup(minSize, p.bsize) > maxSize {
		if opts.Size > 0 {
			return 0, 0, 0, fmt.Errorf("%w: Options.Size %d is not a multiple of the block size %d", ErrParams, opts.Size, p.bsize)
		}
		return 0, 0, 0, fmt.Errorf("%w: Options.MinSize %d rounded up to the block size %d exceeds Options.MaxSize %d", ErrParams, minSize, p.bsize, maxSize)
	}
	if limit := int64(math.MaxInt64) - extra - p.bsize - max(opts.Roundup, 0); max(size, minSize) > limit {
		return 0, 0, 0, fmt.Errorf("%w: Options.Size or Options.MinSize %d is too large (the image size is a 64-bit count of bytes)", ErrParams, max(size, minSize))
	}
	size = max(size, minSize) + extra
	size = roundup(size, p.bsize)
	if opts.Roundup > 0 {
		size = roundup(size, opts.Roundup)
	}
	return size, minSize, maxSize, nil
}

// layoutImage sets the inode density, computes the geometry of an image
// of size bytes (mkfs) and checks that it fits in maxSize, in memory and
// holds the tree's inodes.
func (w *writer) layoutImage(size, inodes, minSize, maxSize int64) error {
	opts, p := w.opts, &w.p
	p.density = int64(opts.Density)
	if p.density == 0 {
		p.density = size/inodes + 1
	}
	// FreeBSD's makefs keeps the density (its min_inodes) only when no
	// free space is asked for: no -s, -M or -b.
	p.clampDensity = opts.Compat != CompatDebian &&
		(minSize > 0 || opts.FreeBlocks > 0 || opts.FreeBlocksPct > 0)
	p.freebsd = opts.Compat != CompatDebian
	if maxSize > 0 && size > maxSize {
		return fmt.Errorf("%w: the tree needs %d bytes, more than the maximum size %d", ErrTooLarge, size, maxSize)
	}
	p.size = size
	w.inos = inodes
	g, err := mkfs(p)
	if err != nil {
		return err
	}
	w.g = g
	if need, limit := w.bookkeeping(), memoryBudget(); need > limit {
		return fmt.Errorf("%w: an image of %d bytes with %d cylinder groups of %d inodes needs %d MiB of memory to build, more than the %d MiB available (raise Options.Density or lower Options.Size)",
			ErrParams, p.size, g.ncg, g.ipg, need>>20, limit>>20)
	}
	if free := g.ncg * g.ipg; free < inodes {
		return fmt.Errorf("%w: the image has %d free inodes; %d are required (raise Options.Size or lower Options.Density)", ErrNoSpace, free, inodes)
	}
	w.fsBytes = size // makefs's image is size bytes, whatever fs_size rounds down to
	return nil
}

// sizeTree is ffs_size_dir: the bytes and inodes makefs estimates for the
// tree, before the reserved inodes and the slop are added.
func (w *writer) sizeTree() (size, inodes int64, err error) {
	maxLink := int64(maxSymlinkLen1)
	if w.p.version == 2 {
		maxLink = maxSymlinkLen2
	}
	sized := map[*fstree.Node]bool{}
	var dir func(d *fstree.Node)
	dir = func(d *fstree.Node) {
		cur := int64(0)
		add := func(name string) {
			this := int64(direntSize(len(name)))
			if this+cur > roundup(cur, dirBlkSiz) {
				cur = roundup(cur, dirBlkSiz)
			}
			cur += this
		}
		add(".")
		add("..")
		for _, n := range d.Children {
			if w.skip(n) {
				continue
			}
			if err == nil {
				err = w.checkName(n)
			}
			add(n.Name)
			if p := primary(n); !sized[p] {
				sized[p] = true
				if err == nil {
					err = w.checkNode(p)
				}
				inodes++
				switch p.Type {
				case fstree.TypeFile:
					size += w.addSize(p.Size)
				case fstree.TypeSymlink:
					if l := int64(len(p.Link)) + 1; l >= maxLink {
						size += w.addSize(l)
					}
				}
			}
			if n.Type == fstree.TypeDir {
				dir(n)
			}
		}
		size += w.addSize(cur)
	}
	if err = w.checkNode(w.t.Root); err != nil {
		return 0, 0, err
	}
	dir(w.t.Root)
	return size, inodes, err
}

// checkName refuses a name that a directory entry cannot hold: d_namlen
// is one byte and UFS names are at most UFS_MAXNAMLEN (255) bytes, without
// NUL or '/'. FreeBSD's makefs writes the length mod 256 and leaves a
// corrupt directory.
func (w *writer) checkName(n *fstree.Node) error {
	if len(n.Name) > maxNamLen {
		return fmt.Errorf("%w: %s: a name of %d bytes; UFS names are at most %d", ErrName, n.Path(), len(n.Name), maxNamLen)
	}
	if n.Name == "" || strings.ContainsAny(n.Name, "/\x00") {
		return fmt.Errorf("%w: %s: a name %q; UFS names are not empty and hold no '/' or NUL", ErrName, n.Path(), n.Name)
	}
	return nil
}

// checkNode refuses a node whose values the inode cannot hold: more links
// than UFS_LINK_MAX (65500), UFS1 times outside its 32-bit
// seconds, a device number past UFS1's 32-bit di_rdev. FreeBSD's makefs
// writes them truncated.
func (w *writer) checkNode(n *fstree.Node) error {
	if n.Nlink > linkMax {
		return fmt.Errorf("%w: %s: %d links; an inode counts at most %d", ErrParams, n.Path(), n.Nlink, linkMax)
	}
	if w.p.version != 1 {
		return nil
	}
	for _, t := range []struct {
		name string
		t    time.Time
	}{{"access", n.Atime}, {"modification", n.Mtime}, {"change", n.Ctime}} {
		if s := t.t.Unix(); !t.t.IsZero() && (s < math.MinInt32 || s > math.MaxInt32) {
			return fmt.Errorf("%w: %s: %s time %s is outside UFS1's range (1901 to 2038; use Options.Version 2)",
				ErrParams, n.Path(), t.name, t.t.UTC().Format(time.RFC3339))
		}
	}
	if (n.Type == fstree.TypeChar || n.Type == fstree.TypeBlock) && fbsdDev(n.Rdev) > math.MaxUint32 {
		return fmt.Errorf("%w: %s: device %d,%d does not fit UFS1's 32-bit di_rdev (use Options.Version 2)",
			ErrParams, n.Path(), fstree.Major(n.Rdev), fstree.Minor(n.Rdev))
	}
	return nil
}

// cgPackedEstimate is what a packed cylinder group takes in memory, its
// flate stream and slice header, as cgcache.go keeps the groups it does
// not hold unpacked: a fresh group's maps are long runs of the same byte.
const cgPackedEstimate = 512

// bookkeeping estimates the memory the writer holds besides the image:
// for every cylinder group its records and a packed copy, the groups
// cgcache.go keeps unpacked (cgResidentBytes, at least two), and the
// di_gen values gens.go keeps (at most gensResidentBytes; CompatDebian
// draws none ahead).
func (w *writer) bookkeeping() int64 {
	g := w.g
	// cs and packedAt (alloc.go, cgcache.go), and a packed copy.
	perGroup := int64(unsafe.Sizeof(cgFree{})) + 4 + int64(unsafe.Sizeof([]byte(nil))) + cgPackedEstimate
	if g.ncg > math.MaxInt64/(2*perGroup) {
		return math.MaxInt64
	}
	need := g.ncg*perGroup + min(g.ncg, max(2, cgResidentBytes/g.cgsize))*g.cgsize
	if w.opts.Compat != CompatDebian {
		need += min(g.ncg*4*w.firstGens(), gensResidentBytes)
	}
	return need
}

// addSize is ffs_size_dir's estimate of the bytes a file of n bytes
// takes: its fragments; with CompatFreeBSD a file past the direct blocks
// counts whole blocks, and a block for every UFS_NDADDR blocks past the
// first UFS_NDADDR, for its indirect blocks.
func (w *writer) addSize(n int64) int64 {
	bsize, fsize := w.p.bsize, w.p.fsize
	if w.opts.Compat == CompatDebian || n < nDAddr*bsize {
		return roundup(n, fsize)
	}
	return bsize*(howmany(n, nDAddr*bsize)-1) + roundup(n, bsize)
}
