package ffs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unsafe"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// WriteFile builds the FFS image of src with opts, as makefs -t ffs does,
// in the file path, through the block cache (Options.Cache). The image is
// made in a temporary file beside path and renamed over it only when it is
// complete, so that on an error path is left as it was. A nil opts is the
// zero Options.
func WriteFile(path string, src fstree.Source, opts *Options) error {
	_, err := writeImage(src, opts, func(size int64, c *bcache.Options) (*bcache.Image, error) {
		return bcache.Create(path, size, c)
	})
	return err
}

// Write builds the FFS image of src with opts, the same bytes as WriteFile
// makes, and writes all of it to w, at offsets 0 up to its size, which it
// returns: Options.Offset zero bytes, then the file system. The image is
// built in memory first; nothing is written to w before it is complete,
// and then every byte is, zeros included. On an error writing to w, w may
// hold part of the image.
func Write(w io.WriterAt, src fstree.Source, opts *Options) (int64, error) {
	im, err := writeImage(src, opts, func(size int64, c *bcache.Options) (*bcache.Image, error) {
		return bcache.CreateWriterAt(w, size, c)
	})
	if err != nil {
		return 0, err
	}
	return im.Size(), nil
}

// Build builds the FFS image of src with opts in memory and returns it,
// the same bytes as WriteFile makes.
func Build(src fstree.Source, opts *Options) ([]byte, error) {
	im, err := writeImage(src, opts, bcache.CreateMemory)
	if err != nil {
		return nil, err
	}
	return im.Bytes(), nil
}

// writeImage is the one path of WriteFile, Write and Build: it reads the
// tree of src with the time rule of opts, sizes the image, lays the tree
// out in the image that create makes and commits it.
func writeImage(src fstree.Source, opts *Options, create func(size int64, c *bcache.Options) (*bcache.Image, error)) (*bcache.Image, error) {
	if opts == nil {
		opts = &Options{}
	}
	if src == nil {
		return nil, fmt.Errorf("%w: no source", ErrParams)
	}
	t, err := src.Tree(&fstree.Options{Timestamp: opts.Timestamp, ClampTimes: opts.ClampTimes})
	if err == nil {
		err = t.CheckPaths() // bounds the depth, so the layout is linear
	}
	if err != nil {
		return nil, err
	}
	w, err := plan(t, opts)
	if err != nil {
		return nil, explainSize(t, opts, err)
	}
	w.warnLayout()
	im, err := create(opts.Offset+w.fsBytes, opts.Cache)
	if err != nil {
		return nil, err
	}
	defer im.Abort()
	if err := im.Guard(func() error { return w.write(im) }); err != nil {
		return nil, explainSize(t, opts, err)
	}
	if err := im.Commit(); err != nil {
		return nil, err
	}
	return im, nil
}

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

// writer holds the state of one image being written.
type writer struct {
	t     *fstree.Tree
	opts  *Options
	o     order
	g     *geometry
	a     *alloc
	p     params
	utime int64  // fs_time, fs_id[0], cg_time
	seed  uint64 // of fs_id[1] and di_gen (CompatDebian)
	// With CompatFreeBSD, fs_id[1] and di_gen come from FreeBSD's
	// random(3) (initGens): rng is the generator, id1 fs_id[1] and gens
	// the di_gen of the initialised inodes of each group, by index.
	rng  *bsdRandom
	id1  int64
	gens [][]uint32
	inos int64 // inodes the tree needs, with the two reserved ones
	im   *bcache.Image
	base int64 // byte offset of the file system in the image file
	dry  bool  // lay out only: no reads of file data, no writes

	ino     map[*fstree.Node]int64 // inode numbers, by hard-link primary
	written map[*fstree.Node]bool
	next    int64 // next inode number
	inited  []int64
	fsBytes int64
	zero    []byte
	indbuf  []byte // one block: an indirect block as it is written
	probe   int64  // byte offset of the probe sector (see write)

	// File contents are copied in batches (bcache.Image.CopyFiles), after
	// the layout has placed them: one entry per run of contiguous blocks of
	// a file, owners naming the node of each entry.
	copies     []bcache.FileCopy
	copyOwners []*fstree.Node

	icache inodeCache
}

// copyBatch is how many file copies are queued before they are made, which
// bounds the memory the queue takes.
const copyBatch = 4096

func (w *writer) warnf(format string, args ...any) {
	if w.opts.Warn != nil {
		fmt.Fprintf(w.opts.Warn, format+"\n", args...)
	}
}

// primary returns the node whose inode a name uses.
func primary(n *fstree.Node) *fstree.Node {
	if n.HardLink != nil {
		return n.HardLink
	}
	return n
}

// skip reports whether a node is left out of the image: sockets, which
// FreeBSD's and Debian's makefs both skip as they walk a directory (and
// FreeBSD's mtree reader has no type for).
func (w *writer) skip(n *fstree.Node) bool {
	return n.Type == fstree.TypeSocket
}

// prepare validates the options, sizes the tree as makefs's ffs_validate
// does and computes the geometry.
func prepare(t *fstree.Tree, opts *Options, extra int64) (*writer, error) {
	if t == nil || t.Root == nil {
		return nil, fmt.Errorf("%w: empty tree", ErrParams)
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
		return fmt.Errorf("%w: version %d (want 1 or 2)", ErrOption, p.version)
	}
	p.sectorSize = opts.SectorSize
	if p.sectorSize == 0 {
		p.sectorSize = 512
	}
	if !powerOf2(int64(p.sectorSize)) || p.sectorSize < 512 || p.sectorSize > maxBSize {
		return fmt.Errorf("%w: sector size %d (want a power of 2 from 512 to %d)", ErrParams, p.sectorSize, maxBSize)
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
		return fmt.Errorf("%w: bsize %d (want a power of 2 from %d to %d)", ErrParams, p.bsize, minBSize, maxBSize)
	}
	if !powerOf2(p.fsize) || p.fsize < int64(p.sectorSize) || p.fsize > p.bsize || p.bsize/p.fsize > maxFrag {
		return fmt.Errorf("%w: fsize %d (want a power of 2 from %d to %d, and at least sector size %d)",
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
		return fmt.Errorf("%w: minfree %d (want 0 to 99)", ErrParams, p.minfree)
	}
	switch opts.Optimization {
	case "", "time":
		p.optim = fsOptTime
	case "space":
		p.optim = fsOptSpace
	default:
		return fmt.Errorf("%w: optimization %q (want time or space)", ErrOption, opts.Optimization)
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
		return fmt.Errorf("%w: label %q is longer than %d bytes", ErrOption, opts.Label, maxVolLen-1)
	}
	return nil
}

// treeNeeds sizes the tree as ffs_size_dir and ffs_validate do: the bytes
// and inodes it needs with the free space and inodes asked for, the
// superblocks, the inode blocks and the minfree reserve.
func (w *writer) treeNeeds() (size, inodes int64, err error) {
	opts, p := w.opts, &w.p
	size, inodes, err = w.sizeTree()
	if err != nil {
		return 0, 0, err
	}
	inodes += rootIno
	size += opts.FreeBlocks
	inodes += opts.FreeFiles
	if opts.FreeFilesPct > 0 {
		inodes = inodes * int64(100+opts.FreeFilesPct) / 100
	}
	if opts.FreeBlocksPct > 0 {
		size = size * int64(100+opts.FreeBlocksPct) / 100
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

// setTimes sets the image's time, Options.Timestamp or else the tree's
// latest modification time, and the seed of its ids, which follows from
// it.
func (w *writer) setTimes() {
	if !w.opts.Timestamp.IsZero() {
		w.utime = w.opts.Timestamp.Unix()
	} else {
		w.utime = latestMtime(w.t)
	}
	w.seed = splitmix(uint64(w.utime) ^ 0x4646535f49445f31) // "FFS_ID_1"
}

// warnLayout says what makefs says of the geometry, and where the image
// departs from FreeBSD's makefs because its layout would be invalid.
func (w *writer) warnLayout() {
	g := w.g
	if g.sectorSize != 512 && w.opts.Compat != CompatDebian {
		w.warnf("sectorsize %d may produce nonfunctional image", g.sectorSize)
	}
	if w.opts.SoftUpdates && g.version == 1 && w.opts.Compat != CompatDebian {
		w.warnf("softupdates ignored: FreeBSD's makefs marks soft updates in UFS2 only")
	}
	if g.extentReduced != 0 {
		msg := ""
		if w.opts.Compat != CompatDebian {
			msg = fmt.Sprintf("; FreeBSD's makefs writes fs_maxbsize %d, past the FS_MAXCONTIG blocks FreeBSD's superblock check allows", g.extentReduced)
		}
		w.warnf("extent size reduced from %d to %d%s", g.extentReduced, g.maxbsize, msg)
	}
	if g.raisedDensity != 0 {
		w.warnf("density increased from %d to %d", g.raisedDensity, g.origDensity)
	}
	if g.density != g.origDensity {
		w.warnf("density reduced from %d to %d", g.origDensity, g.density)
	}
	w.t.Walk(func(_ string, n *fstree.Node) error {
		if n != w.t.Root && w.skip(n) {
			w.warnf("%s: socket left out, as makefs leaves sockets out", n.Path())
		}
		return nil
	})
	if w.clusterSumFixed() {
		w.warnf("cg_clustersum written big-endian; FreeBSD's makefs leaves it little-endian in a big-endian UFS2 image, which is invalid")
	}
}

// clusterSumFixed reports whether the image departs from FreeBSD's makefs
// in cg_clustersum: in a big-endian UFS2 image its ffs_cg_swap leaves the
// cluster summary in the host's byte order (and ffs_clusteracct then
// adds to it as if it were swapped); the writer stores it big-endian.
func (w *writer) clusterSumFixed() bool {
	return w.opts.Compat != CompatDebian && w.g.version == 2 && w.g.contigsumsize > 0 &&
		w.o.ByteOrder == binary.BigEndian
}

// latestMtime is the latest modification time in the tree, the default
// fs_time: a function of the inputs, not of the clock.
func latestMtime(t *fstree.Tree) int64 {
	var m int64
	t.Walk(func(_ string, n *fstree.Node) error {
		if s := n.Mtime.Unix(); s > m {
			m = s
		}
		return nil
	})
	return m
}

// splitmix is the SplitMix64 finaliser, the pseudo-random function behind
// fs_id[1] and di_gen.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// fsID1 is fs_id[1]: makefs takes it from random(); here it is a function
// of the time stamp, in random()'s range (31 bits).
func (w *writer) fsID1() int64 { return int64(w.seed & 0x7fffffff) }

// gen is di_gen of inode ino: a function of fs_id[1] and the inode number
// in 1..2^31-1, as makefs takes it from random().
func (w *writer) gen(ino int64) int64 {
	return int64(splitmix(w.seed^uint64(ino))%0x7fffffff) + 1
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

// bookkeeping is the memory the writer's per-group state takes, which
// grows with the size of the image rather than of the tree: the
// allocator's cylinder group blocks and records and the generation numbers of the inodes
// initialised up front (initInodes, initGens).
func (w *writer) bookkeeping() int64 {
	g := w.g
	perGroup := g.cgsize + int64(unsafe.Sizeof(cylGroup{})+unsafe.Sizeof(csum{})) + 2*8 + 8 + 24
	if w.opts.Compat != CompatDebian {
		gens := g.ipg
		if g.version == 2 {
			gens = min(g.ipg, roundup(2*g.inopb, g.inopb))
		}
		perGroup += 4 * gens
	}
	if g.ncg > math.MaxInt64/perGroup {
		return math.MaxInt64
	}
	return g.ncg * perGroup
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

// write builds the image: cylinder groups, the tree, then the superblocks.
func (w *writer) write(im *bcache.Image) error {
	w.im = im
	w.base = w.opts.Offset
	g := w.g
	w.a = newAlloc(g, w.o, w.utime)
	w.zero = make([]byte, g.bsize)

	// makefs probes the last sector by writing the start of the
	// superblock under construction there: only fs_old_flags is set.
	probe := make([]byte, g.sectorSize)
	probe[211] = fsFlagsUpdated
	if w.opts.Compat != CompatDebian && g.sectorSize > sbStructSz {
		// FreeBSD's mkfs has set the label, fs_maxsymlinklen and
		// fs_old_inodefmt by then, which a sector larger than 512
		// bytes shows, in the host's byte order.
		var s superblock
		copy(s.fsVolname(), w.opts.Label)
		binary.LittleEndian.PutUint32(s.fsMaxsymlinklen(), uint32(g.maxsymlinklen))
		binary.LittleEndian.PutUint32(s.fsOldInodefmt(), fs44InodeFmt)
		s.fsOldFlags()[0] = fsFlagsUpdated
		copy(probe, s[:])
	}
	w.probe = w.fsBytes/int64(g.sectorSize)*int64(g.sectorSize) - int64(g.sectorSize)
	if err := w.writeAt(probe, w.probe); err != nil {
		return err
	}
	w.copies, w.copyOwners = nil, nil
	w.icache = inodeCache{addr: -1}
	w.initInodes()
	w.ino = map[*fstree.Node]int64{}
	w.written = map[*fstree.Node]bool{}
	w.next = rootIno
	if err := w.populate(w.t.Root, nil); err != nil {
		return err
	}
	if err := w.flushCopies(); err != nil {
		return err
	}
	if err := w.flushInodes(); err != nil {
		return err
	}
	if err := w.writeInitedInodes(); err != nil {
		return err
	}
	return w.writeMeta()
}

func (w *writer) writeAt(b []byte, off int64) error {
	if w.dry {
		return nil
	}
	_, err := w.im.WriteAt(b, w.base+off)
	return err
}

// initInodes gives the inodes of fresh inode blocks their di_gen: every
// block for UFS1, the first cg_initediblk inodes of each group for UFS2
// (more are initialised as inodes are written, as makefs does). Here it
// only counts them, in inited; writeInitedInodes writes the blocks that
// no inode was stored in, at the end.
func (w *writer) initInodes() {
	g := w.g
	w.inited = make([]int64, g.ncg)
	for c := int64(0); c < g.ncg; c++ {
		n := g.ipg
		if g.version == 2 {
			n = min(g.ipg, 2*g.inopb)
		}
		w.inited[c] = roundup(n, g.inopb)
	}
	if w.opts.Compat != CompatDebian {
		w.initGens()
	}
}

// initGens draws fs_id[1] and the di_gen of the inodes that mkfs
// initialises from FreeBSD's random(3) seeded with the time stamp, in
// the order FreeBSD's mkfs draws them: fs_id[1], then group by group,
// for UFS2 the first cg_initediblk inodes; for UFS1 the inode blocks from
// the third on. initcg writes the first two inode blocks of every UFS1
// group from a buffer that it fills only for the later blocks, so the
// first block of a group repeats the last block drawn for an earlier
// group (zeros in the first) and the second is always zeros.
func (w *writer) initGens() {
	g := w.g
	w.rng = newBSDRandom(uint32(w.utime))
	w.id1 = w.rng.next()
	w.gens = make([][]uint32, g.ncg)
	carry := make([]uint32, g.inopb)
	for c := int64(0); c < g.ncg; c++ {
		if g.version == 2 {
			gens := make([]uint32, w.inited[c], g.ipg)
			for i := range gens {
				gens[i] = uint32(w.rng.next())
			}
			w.gens[c] = gens
			continue
		}
		gens := make([]uint32, g.ipg)
		copy(gens, carry)
		for i := 2 * g.inopb; i < g.ipg; i++ {
			gens[i] = uint32(w.rng.next())
		}
		if g.ipg > 2*g.inopb {
			copy(carry, gens[g.ipg-g.inopb:])
		}
		w.gens[c] = gens
	}
}

// spareGen is di_gen of inode ino of an initialised inode block before
// any inode is stored in it.
func (w *writer) spareGen(ino int64) int64 {
	if w.opts.Compat == CompatDebian {
		return w.gen(ino)
	}
	if gens := w.gens[ino/w.g.ipg]; ino%w.g.ipg < int64(len(gens)) {
		return int64(gens[ino%w.g.ipg])
	}
	return 0
}

// initRunBlocks bounds the inode blocks writeInitedInodes writes at once.
const initRunBlocks = 64

// writeInitedInodes writes the initialised inode blocks (initInodes and
// writeInode's lazy initialisation) that hold no stored inode, as
// fillInodeBlock makes them, each run of consecutive ones of a group with
// one write. The blocks that hold inodes were written whole by
// flushInodes from the same filling, and nothing else writes inode
// blocks, so the image is the same as if every block had been written
// when it was initialised, as makefs does.
func (w *writer) writeInitedInodes() error {
	if w.dry {
		return nil
	}
	g := w.g
	flushed := w.icache.flushed
	var buf []byte
	for c := int64(0); c < g.ncg; c++ {
		for i := int64(0); i < w.inited[c]; {
			first := c*g.ipg + i
			if flushed[g.inoToFsba(first)] {
				i += g.inopb
				continue
			}
			n := int64(0)
			for i < w.inited[c] && n < initRunBlocks && !flushed[g.inoToFsba(c*g.ipg+i)] {
				i += g.inopb
				n++
			}
			if buf == nil {
				buf = make([]byte, initRunBlocks*g.bsize)
			}
			run := buf[:n*g.bsize]
			for k := int64(0); k < n; k++ {
				w.fillInodeBlock(run[k*g.bsize:][:g.bsize], first+k*g.inopb)
			}
			if err := w.writeAt(run, g.inoToFsba(first)*g.fsize); err != nil {
				return err
			}
		}
	}
	return nil
}

// fillInodeBlock sets blk to the inode block starting at inode first as
// initInodeBlock writes it.
func (w *writer) fillInodeBlock(blk []byte, first int64) {
	g := w.g
	clear(blk)
	ds := g.dinodeSize()
	for i := int64(0); i < g.inopb; i++ {
		d := blk[i*ds:][:ds]
		if g.version == 1 {
			w.o.put32((*dinode1)(d).diGen(), w.spareGen(first+i))
		} else {
			w.o.put32((*dinode2)(d).diGen(), w.spareGen(first+i))
		}
	}
}

// inodeCache holds the inode block that inodes are being written into, so
// that the inodes of a directory, numbered and written one after another,
// cost one write of their block rather than one each.
type inodeCache struct {
	addr    int64 // fragment address of the block; -1 when none
	buf     []byte
	flushed map[int64]bool // blocks written with inodes in them
}

// putInode stores the encoded inode d of number ino through the cache. The
// block it lives in counts as initialised (initInodes or writeInode's lazy
// initialisation) before any inode of it is stored.
func (w *writer) putInode(ino int64, d []byte) error {
	if w.dry {
		return nil
	}
	g, c := w.g, &w.icache
	addr := g.inoToFsba(ino)
	if addr != c.addr {
		if err := w.flushInodes(); err != nil {
			return err
		}
		if c.buf == nil {
			c.buf = make([]byte, g.bsize)
			c.flushed = map[int64]bool{}
		}
		if c.flushed[addr] {
			b, err := w.im.Bread(w.base+addr*g.fsize, int(g.bsize))
			if err != nil {
				return err
			}
			copy(c.buf, b.Data())
			w.im.Brelse(b)
		} else {
			w.fillInodeBlock(c.buf, ino-ino%g.inopb)
		}
		c.addr = addr
	}
	copy(c.buf[(ino%g.inopb)*g.dinodeSize():], d)
	return nil
}

// flushInodes writes the cached inode block.
func (w *writer) flushInodes() error {
	c := &w.icache
	if c.addr < 0 || w.dry {
		return nil
	}
	if err := w.writeAt(c.buf, c.addr*w.g.fsize); err != nil {
		return err
	}
	c.flushed[c.addr] = true
	c.addr = -1
	return nil
}

// dirent is one entry of a directory being built.
type dirent struct {
	name string
	ino  int64
	typ  byte
}

// dirBytes lays the entries out as makefs's ffs_make_dirbuf does: entries
// packed, a new DIRBLKSIZ chunk when one does not fit, the last entry of
// each chunk taking up its rest.
func (w *writer) dirBytes(ents []dirent) []byte {
	var buf []byte
	cur, llen := 0, 0
	for _, e := range ents {
		reclen := direntSize(len(e.name))
		if reclen+cur+llen > len(buf) {
			buf = append(buf, make([]byte, dirBlkSiz)...)
			cur = len(buf) - dirBlkSiz
		} else if llen > 0 {
			w.o.put16(dReclen(buf[cur:]), int64(llen))
			cur += llen
		}
		d := buf[cur:]
		w.o.put32(dIno(d), e.ino)
		dType(d)[0] = e.typ
		dNamlen(d)[0] = byte(len(e.name))
		copy(dName(d), e.name)
		w.o.put16(dReclen(d), int64(len(buf)-cur))
		llen = reclen
	}
	return buf
}

// dtype is the d_type of a node of type t: IFTODT (dir.h) of its di_mode
// type bits, dtUnknown for none.
func dtype(t fstree.Type) byte { return byte(ifmtOf(t) >> 12) }

// ifmtOf is the IFMT bits of di_mode for a node of type t.
func ifmtOf(t fstree.Type) int64 {
	switch t {
	case fstree.TypeFile:
		return ifreg
	case fstree.TypeDir:
		return ifdir
	case fstree.TypeSymlink:
		return iflnk
	case fstree.TypeFIFO:
		return ififo
	case fstree.TypeSocket:
		return ifsock
	case fstree.TypeChar:
		return ifchr
	case fstree.TypeBlock:
		return ifblk
	}
	return 0
}

// populate is ffs_populate_dir: number the entries of directory d, write
// d and its non-directory entries, then descend into its subdirectories.
func (w *writer) populate(d *fstree.Node, parent *fstree.Node) error {
	if parent == nil {
		w.ino[d] = w.next
		w.next++
	}
	dino := w.ino[d]
	pino := dino
	if parent != nil {
		pino = w.ino[parent]
	}
	ents := []dirent{{".", dino, dtDir}, {"..", pino, dtDir}}
	var kids []*fstree.Node
	for _, n := range d.Children {
		if w.skip(n) {
			continue
		}
		p := primary(n)
		if _, ok := w.ino[p]; !ok {
			if w.next >= w.g.ncg*w.g.ipg {
				return fmt.Errorf("%w: out of inodes at %s", ErrNoSpace, n.Path())
			}
			w.ino[p] = w.next
			w.next++
		}
		ents = append(ents, dirent{n.Name, w.ino[p], dtype(p.Type)})
		kids = append(kids, n)
	}
	if err := w.writeNode(d, w.dirBytes(ents)); err != nil {
		return err
	}
	for _, n := range kids {
		p := primary(n)
		if n.Type == fstree.TypeDir || w.written[p] {
			continue
		}
		w.written[p] = true
		if err := w.writeNode(p, nil); err != nil {
			return err
		}
	}
	for _, n := range kids {
		if n.Type == fstree.TypeDir {
			if err := w.populate(n, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// inode is an inode being built, in version-independent form.
type inode struct {
	ino    int64
	db     [nDAddr]int64
	ib     [nIAddr]int64
	blocks int64 // di_blocks, in 512-byte units
	size   int64
	ind    map[int64][]int64 // indirect blocks by logical (negative) number
	indAt  map[int64]int64   // their fragment addresses
	indOrd []int64
}

// writeNode writes the inode of n and its data: dir is the directory's
// contents for a directory.
func (w *writer) writeNode(n *fstree.Node, dir []byte) error {
	ip := &inode{ino: w.ino[n]}
	var err error
	switch n.Type {
	case fstree.TypeDir:
		ip.size = int64(len(dir))
		err = w.writeData(ip, n, dir)
	case fstree.TypeFile:
		ip.size = n.Size
		if n.Size > 0 {
			err = w.writeData(ip, n, nil)
		}
	case fstree.TypeSymlink:
		ip.size = int64(len(n.Link))
		if ip.size >= w.g.maxsymlinklen {
			err = w.writeData(ip, n, []byte(n.Link))
		}
	}
	if err != nil {
		return err
	}
	return w.writeInode(ip, n)
}

// writeData allocates the blocks of a file as makefs's ffs_write_file and
// ffs_balloc do (whole blocks, the last of a file of at most UFS_NDADDR
// blocks cut to fragments) and writes its contents: mem, or the file's,
// which are queued for flushCopies.
func (w *writer) writeData(ip *inode, n *fstree.Node, mem []byte) error {
	g := w.g
	// Runs of contiguous blocks are written or queued as one piece.
	var runOff, runLen, fileOff int64 = -1, 0, 0
	flush := func() error {
		if runLen == 0 {
			return nil
		}
		var err error
		switch {
		case w.dry:
		case mem != nil:
			err = w.writeAt(mem[:runLen], runOff)
			mem = mem[runLen:]
		default:
			err = w.queueCopy(n, runOff, runLen, fileOff)
		}
		fileOff += runLen
		runOff, runLen = -1, 0
		return err
	}
	for off := int64(0); off < ip.size; off += g.bsize {
		chunk := min(ip.size-off, g.bsize)
		lbn := off >> g.bshift
		addr, nsize, err := w.balloc(ip, lbn, chunk)
		if err != nil {
			return fmt.Errorf("%s: %w", n.Path(), err)
		}
		boff := addr * g.fsize
		if runLen > 0 && runOff+runLen == boff {
			runLen += chunk
		} else {
			if err := flush(); err != nil {
				return err
			}
			runOff, runLen = boff, chunk
		}
		// makefs writes zeros after the data in the last fragment. The
		// image is created empty (all zeros), and nothing but the probe
		// sector is written to a fragment before it is allocated, so only
		// a tail over the probe sector needs them.
		if pad := nsize - chunk; pad > 0 && boff+chunk < w.probe+int64(g.sectorSize) && boff+nsize > w.probe {
			if err := flush(); err != nil {
				return err
			}
			if err := w.writeAt(w.zero[:pad], boff+chunk); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	// Indirect blocks, in the order they were allocated. Each fills its
	// block, so the buffer is overwritten whole.
	if len(ip.indOrd) > 0 && w.indbuf == nil {
		w.indbuf = make([]byte, g.bsize)
	}
	buf := w.indbuf
	for _, lbn := range ip.indOrd {
		bap := ip.ind[lbn]
		for i, v := range bap {
			if g.version == 1 {
				w.o.put32(buf[4*i:], v)
			} else {
				w.o.put64(buf[8*i:], v)
			}
		}
		if err := w.writeAt(buf, ip.indAt[lbn]*g.fsize); err != nil {
			return err
		}
	}
	return nil
}

// queueCopy queues the copy of length bytes of file n, from byte fileOff
// on, to image offset off of the file system, and makes the queued copies
// once copyBatch of them are waiting.
func (w *writer) queueCopy(n *fstree.Node, off, length, fileOff int64) error {
	// The slack of the last fragment is the file's and zero: the cache
	// may write it, to copy files that follow each other in one write.
	pad := (w.g.fsize - length%w.g.fsize) % w.g.fsize
	fc := bcache.FileCopy{Off: w.base + off, N: length, SrcOff: fileOff, Pad: pad, Path: n.SourcePath}
	if n.SourcePath == "" {
		fc.Open = func() (io.ReadCloser, error) { return n.Open() }
	}
	w.copies = append(w.copies, fc)
	w.copyOwners = append(w.copyOwners, n)
	if len(w.copies) >= copyBatch {
		return w.flushCopies()
	}
	return nil
}

// flushCopies makes the queued file copies. They may run concurrently:
// each has its own blocks, so the bytes do not depend on the order.
func (w *writer) flushCopies() error {
	if len(w.copies) == 0 {
		return nil
	}
	if i, err := w.im.CopyFiles(w.copies); err != nil {
		if i < 0 {
			return err
		}
		return fmt.Errorf("ffs: %s: %w", w.copyOwners[i].Path(), err)
	}
	clear(w.copyOwners)
	w.copies, w.copyOwners = w.copies[:0], w.copyOwners[:0]
	return nil
}

// indir is one step of the path to a block: the logical number of the
// indirect block (or of the inode's ib slot) and the offset in it.
type indir struct{ lbn, off int64 }

// getlbns is ufs_getlbns: the chain of indirect blocks that leads to
// logical block bn (bn >= UFS_NDADDR).
func (w *writer) getlbns(bn int64) ([]indir, error) {
	g := w.g
	realbn := bn
	lognindir := ilog2(g.nindir)
	bn -= nDAddr
	var lbc, blockcnt int64
	i := int64(nIAddr)
	for {
		if i == 0 {
			return nil, fmt.Errorf("%w: file too large", ErrParams)
		}
		lbc += lognindir
		blockcnt = 1 << lbc
		if bn < blockcnt {
			break
		}
		i--
		bn -= blockcnt
	}
	metalbn := -(realbn - bn + nIAddr - i)
	ap := []indir{{metalbn, nIAddr - i}}
	for ; i <= nIAddr; i++ {
		lbc -= lognindir
		off := (bn >> lbc) & (g.nindir - 1)
		ap = append(ap, indir{metalbn, off})
		metalbn -= -1 + (off << lbc)
	}
	return ap, nil
}

// balloc is ffs_balloc for a file whose size is already final: it
// allocates logical block lbn holding chunk bytes and returns its fragment
// address and allocated size.
func (w *writer) balloc(ip *inode, lbn, chunk int64) (addr, nsize int64, err error) {
	g, a := w.g, w.a
	if lbn < nDAddr {
		nsize = g.bsize
		if ip.size < (lbn+1)*g.bsize {
			nsize = g.fragroundup(chunk)
		}
		pref := a.blkpref(ip.ino, lbn, lbn, ip.db[:])
		addr, err = a.allocBlock(ip.ino, pref, nsize)
		if err != nil {
			return 0, 0, err
		}
		ip.blocks += nsize / 512
		ip.db[lbn] = addr
		return addr, nsize, nil
	}
	indirs, err := w.getlbns(lbn)
	if err != nil {
		return 0, 0, err
	}
	if ip.ind == nil {
		ip.ind, ip.indAt = map[int64][]int64{}, map[int64]int64{}
	}
	newInd := func(l, at int64) {
		ip.ind[l] = make([]int64, g.nindir)
		ip.indAt[l] = at
		ip.indOrd = append(ip.indOrd, l)
		ip.blocks += g.bsize / 512
	}
	var pref int64
	num := len(indirs) - 1
	nb := ip.ib[indirs[0].off]
	if nb == 0 {
		pref = a.blkpref(ip.ino, lbn, 0, nil)
		if nb, err = a.allocBlock(ip.ino, pref, g.bsize); err != nil {
			return 0, 0, err
		}
		newInd(indirs[1].lbn, nb)
		ip.ib[indirs[0].off] = nb
	}
	var bap []int64
	for i := 1; ; {
		bap = ip.ind[indirs[i].lbn]
		nb = bap[indirs[i].off]
		if i == num {
			break
		}
		i++
		if nb != 0 {
			continue
		}
		if pref == 0 {
			pref = a.blkpref(ip.ino, lbn, 0, nil)
		}
		if nb, err = a.allocBlock(ip.ino, pref, g.bsize); err != nil {
			return 0, 0, err
		}
		newInd(indirs[i].lbn, nb)
		bap[indirs[i-1].off] = nb
	}
	pref = a.blkpref(ip.ino, lbn, indirs[num].off, bap)
	if nb, err = a.allocBlock(ip.ino, pref, g.bsize); err != nil {
		return 0, 0, err
	}
	ip.blocks += g.bsize / 512
	bap[indirs[num].off] = nb
	return nb, g.bsize, nil
}

// fbsdDev encodes a device number as FreeBSD's makedev does; for major
// and minor numbers below 256 it equals the old Linux encoding.
func fbsdDev(rdev uint64) int64 {
	maj, mnr := uint64(fstree.Major(rdev)), uint64(fstree.Minor(rdev))
	return int64((maj&0xffffff00)<<32 | (maj&0xff)<<8 | (mnr&0xff00)<<24 | mnr&0xffff00ff)
}

// writeInode is ffs_write_inode: mark the inode used in its group and
// store it.
func (w *writer) writeInode(ip *inode, n *fstree.Node) error {
	g, a, o := w.g, w.a, w.o
	ino := ip.ino
	c := g.inoToCg(ino)
	cgino := ino % g.ipg
	setbit(a.inosused(c), cgino)
	a.cs[c].nifree--
	a.total.nifree--
	if n.Type == fstree.TypeDir {
		a.cs[c].ndir++
		a.total.ndir++
	}
	a.syncCs(c)
	debian := w.opts.Compat == CompatDebian
	// FreeBSD's ffs_build_dinode draws di_gen before ffs_write_inode
	// initialises inode blocks.
	gen := int64(0)
	if !debian {
		gen = w.rng.next()
	}
	if g.version == 2 {
		for cgino+g.inopb > w.inited[c] && w.inited[c] < g.ipg {
			if !debian {
				for range g.inopb {
					w.gens[c] = append(w.gens[c], uint32(w.rng.next()))
				}
			}
			w.inited[c] += g.inopb // written by writeInitedInodes
		}
		o.put32(a.cgs[c].cgInitediblk(), w.inited[c])
	}

	mode := ifmtOf(n.Type) | int64(n.Mode&0o7777)
	ts := func(t time.Time) (int64, int64) {
		if t.IsZero() {
			return 0, 0
		}
		return t.Unix(), int64(t.Nanosecond())
	}
	at, atn := ts(n.Atime)
	mt, mtn := ts(n.Mtime)
	ct, ctn := ts(n.Ctime)
	bt, btn := ts(n.Birthtime)
	if debian {
		atn, mtn, ctn, bt, btn = 0, 0, 0, 0, 0
	}
	var rdev int64
	if n.Type == fstree.TypeChar || n.Type == fstree.TypeBlock {
		rdev = fbsdDev(n.Rdev)
	}
	if g.version == 1 {
		var d dinode1
		o.put16(d.diMode(), mode)
		o.put16(d.diNlink(), int64(n.Nlink))
		o.put64(d.diSize(), ip.size)
		o.put32(d.diAtime(), at)
		o.put32(d.diAtimensec(), atn)
		o.put32(d.diMtime(), mt)
		o.put32(d.diMtimensec(), mtn)
		o.put32(d.diCtime(), ct)
		o.put32(d.diCtimensec(), ctn)
		for i, v := range ip.db {
			o.put32(d.diDb(i), v)
		}
		for i, v := range ip.ib {
			o.put32(d.diIb(i), v)
		}
		if n.Type == fstree.TypeSymlink && ip.size < maxSymlinkLen1 {
			copy(d.diShortlink(), n.Link)
		}
		if rdev != 0 {
			o.put32(d.diRdev(), rdev)
		}
		o.put32(d.diFlags(), int64(n.Flags))
		o.put32(d.diBlocks(), ip.blocks)
		o.put32(d.diGen(), gen)
		o.put32(d.diUID(), int64(n.UID))
		o.put32(d.diGID(), int64(n.GID))
		return w.putInode(ino, d[:])
	}
	var d dinode2
	o.put16(d.diMode(), mode)
	o.put16(d.diNlink(), int64(n.Nlink))
	o.put32(d.diUID(), int64(n.UID))
	o.put32(d.diGID(), int64(n.GID))
	o.put64(d.diSize(), ip.size)
	o.put64(d.diBlocks(), ip.blocks)
	o.put64(d.diAtime(), at)
	o.put64(d.diMtime(), mt)
	o.put64(d.diCtime(), ct)
	o.put64(d.diBirthtime(), bt)
	o.put32(d.diMtimensec(), mtn)
	o.put32(d.diAtimensec(), atn)
	o.put32(d.diCtimensec(), ctn)
	o.put32(d.diBirthnsec(), btn)
	o.put32(d.diGen(), gen)
	o.put32(d.diFlags(), int64(n.Flags))
	for i, v := range ip.db {
		o.put64(d.diDb(i), v)
	}
	for i, v := range ip.ib {
		o.put64(d.diIb(i), v)
	}
	if n.Type == fstree.TypeSymlink && ip.size < maxSymlinkLen2 {
		copy(d.diShortlink(), n.Link)
	}
	if rdev != 0 {
		o.put64(d.diRdev(), rdev)
	}
	return w.putInode(ino, d[:])
}

// writeMeta writes the cylinder groups, the summary area and every copy of
// the superblock (ffs_write_superblock).
func (w *writer) writeMeta() error {
	g, a := w.g, w.a
	for c := int64(0); c < g.ncg; c++ {
		if err := w.writeAt(a.cgs[c], g.cgtod(c)*g.fsize); err != nil {
			return err
		}
	}
	cs := make([]byte, g.cssize)
	for c := int64(0); c < g.ncg; c++ {
		copy(cs[c*csumSize:], a.cgs[c].cgCs())
	}
	if err := w.writeAt(cs, g.csaddr*g.fsize); err != nil {
		return err
	}
	sb := w.superblock()
	if err := w.writeAt(sb[:], g.sblockloc); err != nil {
		return err
	}
	for c := int64(0); c < g.ncg; c++ {
		if err := w.writeAt(sb[:], g.cgsblock(c)*g.fsize); err != nil {
			return err
		}
	}
	return nil
}

// superblock encodes struct fs as makefs leaves it at the end.
func (w *writer) superblock() *superblock {
	g, a, o := w.g, w.a, w.o
	s := new(superblock)
	v1 := g.version == 1
	o.put32(s.fsSblkno(), g.sblkno)
	o.put32(s.fsCblkno(), g.cblkno)
	o.put32(s.fsIblkno(), g.iblkno)
	o.put32(s.fsDblkno(), g.dblkno)
	o.put32(s.fsNcg(), g.ncg)
	o.put32(s.fsBsize(), g.bsize)
	o.put32(s.fsFsize(), g.fsize)
	o.put32(s.fsFrag(), g.frag)
	o.put32(s.fsMinfree(), g.minfree)
	o.put32(s.fsBmask(), ^(g.bsize - 1))
	o.put32(s.fsFmask(), ^(g.fsize - 1))
	o.put32(s.fsBshift(), g.bshift)
	o.put32(s.fsFshift(), g.fshift)
	o.put32(s.fsMaxcontig(), g.sbMaxcontig)
	o.put32(s.fsMaxbpg(), g.maxbpg)
	o.put32(s.fsFragshift(), g.fragshift)
	o.put32(s.fsFsbtodb(), g.fsbtodb)
	o.put32(s.fsSbsize(), min(g.fragroundup(sbStructSz), sblockSize))
	o.put32(s.fsNindir(), g.nindir)
	o.put32(s.fsInopb(), g.inopb)
	o.put32(s.fsOptim(), g.optim)
	o.put32(s.fsID0(), w.utime)
	if w.opts.Compat == CompatDebian {
		o.put32(s.fsID1(), w.fsID1())
	} else {
		o.put32(s.fsID1(), w.id1)
	}
	o.put32(s.fsCssize(), g.cssize)
	o.put32(s.fsCgsize(), g.cgsize)
	o.put32(s.fsIpg(), g.ipg)
	o.put32(s.fsFpg(), g.fpg)
	if v1 {
		spc := g.fpg * g.oldNspf
		o.put32(s.fsOldCgmask(), -1)
		o.put32(s.fsOldTime(), w.utime)
		o.put32(s.fsOldSize(), g.size)
		o.put32(s.fsOldDsize(), g.dsize)
		o.put32(s.fsOldRps(), 60)
		o.put32(s.fsOldNspf(), g.oldNspf)
		o.put32(s.fsOldNpsect(), spc)
		o.put32(s.fsOldInterleave(), 1)
		o.put32(s.fsOldCsaddr(), g.csaddr)
		o.put32(s.fsOldNsect(), spc)
		o.put32(s.fsOldSpc(), spc)
		o.put32(s.fsOldNcyl(), g.ncg)
		o.put32(s.fsOldCpg(), g.oldCpg)
		o.put32(s.fsOldPostblformat(), fsDynPostblFmt)
		o.put32(s.fsOldNrpos(), 1)
	}
	oc := s.fsOldCstotal()
	o.put32(oc[0:], a.total.ndir)
	o.put32(oc[4:], a.total.nbfree)
	o.put32(oc[8:], a.total.nifree)
	o.put32(oc[12:], a.total.nffree)
	s.fsClean()[0] = fsIsClean
	s.fsOldFlags()[0] = fsFlagsUpdated
	copy(s.fsVolname(), w.opts.Label)
	o.put32(s.fsMaxbsize(), g.maxbsize)
	o.put64(s.fsSblockloc(), g.sblockloc)
	ct := s.fsCstotal()
	o.put64(ct[0:], a.total.ndir)
	o.put64(ct[8:], a.total.nbfree)
	o.put64(ct[16:], a.total.nifree)
	o.put64(ct[24:], a.total.nffree)
	o.put64(s.fsTime(), w.utime)
	o.put64(s.fsSize(), g.size)
	o.put64(s.fsDsize(), g.dsize)
	o.put64(s.fsCsaddr(), g.csaddr)
	o.put32(s.fsAvgfilesize(), g.avgfilesize)
	o.put32(s.fsAvgfpdir(), g.avgfpdir)
	// FreeBSD's mkfs sets FS_DOSOFTDEP for UFS2 only.
	if w.opts.SoftUpdates && (!v1 || w.opts.Compat == CompatDebian) {
		o.put32(s.fsFlags(), fsDoSoftDep)
	}
	if w.opts.Compat != CompatDebian {
		// FreeBSD's mkfs sets fs_providersize to fs_size, and its
		// ffs_sb_swap leaves it out: it is in the byte order of the host
		// that made the image, little-endian on the hosts makefs runs on.
		binary.LittleEndian.PutUint64(s.fsProvidersize(), uint64(g.size))
	}
	o.put32(s.fsContigsumsize(), g.contigsumsize)
	o.put32(s.fsMaxsymlinklen(), g.maxsymlinklen)
	o.put32(s.fsOldInodefmt(), fs44InodeFmt)
	o.put64(s.fsMaxfilesize(), g.maxfilesize)
	o.put64(s.fsQbmask(), g.bsize-1)
	o.put64(s.fsQfmask(), g.fsize-1)
	o.put32(s.fsMagic(), map[bool]int64{true: fsUFS1Magic, false: fsUFS2Magic}[v1])
	return s
}
