package ffs

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// initInodes gives the inodes of fresh inode blocks their di_gen: every
// block for UFS1, the first cg_initediblk inodes of each group for UFS2
// (more are initialised as inodes are written, as makefs does). Here it
// only counts them, in inited; writeInitedInodes writes the blocks that
// no inode was stored in, at the end.
func (w *writer) initInodes() {
	g := w.g
	n := g.ipg
	if g.version == 2 {
		n = min(g.ipg, 2*g.inopb)
	}
	w.inited = initedCounts{first: roundup(n, g.inopb)}
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
	s := &w.gens
	*s = genStore{}
	keep := g.ncg <= gensResidentBytes/(4*w.firstGens())
	if keep {
		s.all = make([][]uint32, g.ncg)
	}
	carry := make([]uint32, g.inopb)
	buf := make([]uint32, w.firstGens())
	for c := int64(0); c < g.ncg; c++ {
		if !keep {
			w.markGens(c)
			w.drawGroup(w.rng, carry, buf)
			continue
		}
		s.all[c] = w.drawGroup(w.rng, carry, make([]uint32, w.firstGens()))
	}
}

// spareGen is di_gen of inode ino of an initialised inode block before
// any inode is stored in it.
func (w *writer) spareGen(ino int64) int64 {
	if w.opts.Compat == CompatDebian {
		return w.gen(ino)
	}
	return int64(w.storedGen(ino/w.g.ipg, ino%w.g.ipg))
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
		for i, inited := int64(0), w.inited.get(c); i < inited; {
			first := c*g.ipg + i
			if flushed[g.inoToFsba(first)] {
				i += g.inopb
				continue
			}
			n := int64(0)
			for i < inited && n < initRunBlocks && !flushed[g.inoToFsba(c*g.ipg+i)] {
				i += g.inopb
				n++
			}
			if int64(len(buf)) < n*g.bsize {
				buf = make([]byte, n*g.bsize) // as large as the runs need
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

// inode is an inode being built, in version-independent form.
type inode struct {
	ino    int64
	db     [nDAddr]int64
	ib     [nIAddr]int64
	blocks int64 // di_blocks, in 512-byte units
	size   int64
	// ind[i] is the indirect block not yet written at step i of the path
	// to a block (getlbns): a file's blocks are allocated in order, so
	// there is at most one at each step, found without a map lookup.
	ind [nIAddr + 1]pendingIndir

	// path[:pathLen] is getlbns's path to logical block pathLbn, the block
	// balloc allocated last (pathLen 0: none yet).
	path    [nIAddr + 1]indir
	pathLen int
	pathLbn int64
}

// A pendingIndir is an indirect block not yet written: its entries and its
// fragment address.
type pendingIndir struct {
	bap []int64
	at  int64
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
	run := &dataRun{w: w, n: n, mem: mem, off: -1}
	w.dataOwner = n
	defer func() { w.dataOwner = nil }()
	for off := int64(0); off < ip.size; off += g.bsize {
		lbn := off >> g.bshift
		if rest := (ip.size-1)>>g.bshift - lbn; rest > 0 && !w.opts.oneByOne {
			// All blocks but the last come in runs where they can.
			k, addr, err := w.ballocRun(ip, lbn, rest)
			if err != nil {
				return fmt.Errorf("%s: %w", n.Path(), err)
			}
			if k > 0 {
				if err := run.add(addr*g.fsize, k*g.bsize); err != nil {
					return err
				}
				off += (k - 1) * g.bsize
				continue
			}
		}
		chunk := min(ip.size-off, g.bsize)
		addr, nsize, err := w.balloc(ip, lbn, chunk)
		if err != nil {
			return fmt.Errorf("%s: %w", n.Path(), err)
		}
		boff := addr * g.fsize
		if err := run.add(boff, chunk); err != nil {
			return err
		}
		// makefs writes zeros after the data in the last fragment. The
		// image is created empty (all zeros), and nothing but the probe
		// sector is written to a fragment before it is allocated, so only
		// a tail over the probe sector needs them.
		if pad := nsize - chunk; pad > 0 && boff+chunk < w.probe+int64(g.sectorSize) && boff+nsize > w.probe {
			if err := run.flush(); err != nil {
				return err
			}
			if err := w.writeAt(w.zero[:pad], boff+chunk); err != nil {
				return err
			}
		}
	}
	return run.flush()
}

// A dataRun is a run of contiguous blocks of one file's data, written
// (from mem, a directory's contents) or queued (a file's) as one piece.
type dataRun struct {
	w       *writer
	n       *fstree.Node
	mem     []byte // the contents not yet written, or nil
	off     int64  // byte offset of the run in the file system, -1 for none
	len     int64  // bytes in the run
	fileOff int64  // offset in the file of the run's first byte
}

// add extends the run with chunk bytes at byte offset boff, or, when they
// do not follow it, writes the run and starts the next one with them.
func (r *dataRun) add(boff, chunk int64) error {
	if r.len > 0 && r.off+r.len == boff {
		r.len += chunk
		return nil
	}
	if err := r.flush(); err != nil {
		return err
	}
	r.off, r.len = boff, chunk
	return nil
}

// flush writes or queues the run, if any, and empties it.
func (r *dataRun) flush() error {
	if r.len == 0 {
		return nil
	}
	var err error
	switch {
	case r.w.dry:
	case r.mem != nil:
		err = r.w.writeAt(r.mem[:r.len], r.off)
		r.mem = r.mem[r.len:]
	default:
		err = r.w.queueCopy(r.n, r.off, r.len, r.fileOff)
	}
	r.fileOff += r.len
	r.off, r.len = -1, 0
	return err
}

// finishIndirect writes or queues (queueIndirect) the indirect blocks on
// the path indirs to logical block lbn of ip that lbn completes (it is
// their last block, or the file's), and forgets them. A file's blocks are
// allocated in order, so no later block needs them: a file of any size
// holds at most one indirect block per level in memory, besides those
// queued. Each fills its block, so the buffer is overwritten whole.
func (w *writer) finishIndirect(ip *inode, indirs []indir, lbn int64) error {
	g := w.g
	last := lbn == (ip.size-1)>>g.bshift
	for i := len(indirs) - 1; i >= 1; i-- {
		if !last && indirs[i].off != g.nindir-1 {
			return nil
		}
		p := &ip.ind[i]
		if !w.dry {
			if err := w.queueIndirect(p.bap, p.at*g.fsize); err != nil {
				return err
			}
		}
		w.indFree = append(w.indFree, p.bap)
		*p = pendingIndir{}
	}
	return nil
}

// queueIndirect queues the indirect block with entries bap, at byte off
// of the file system, as a copy of its own bytes (bcache.FileCopy.Data),
// so that the block goes to the image in one write with the file's pieces
// around it instead of in one of its own: a file of more than UFS_NDADDR
// blocks has its first indirect block between its direct blocks and the
// rest, and flushCopies sorts the queue by offset, which puts the block
// between them. The queued blocks' bytes are bounded (maxQueuedIndirect).
func (w *writer) queueIndirect(bap []int64, off int64) error {
	b := w.indirectBuf()
	w.encodeIndirect(b, bap)
	w.copies = append(w.copies, bcache.FileCopy{Off: w.base + off, N: int64(len(b)), Data: b})
	w.copyOwners = append(w.copyOwners, w.dataOwner)
	w.indQueued += int64(len(b))
	if len(w.copies) >= copyBatch || w.indQueued >= maxQueuedIndirect {
		return w.flushCopies()
	}
	return nil
}

// maxQueuedIndirect bounds the bytes of indirect blocks queued before
// flushCopies.
const maxQueuedIndirect = 8 << 20

// indirectBuf returns a buffer of one block for a queued indirect block:
// one that flushCopies gave back, or a new one.
func (w *writer) indirectBuf() []byte {
	if k := len(w.indBufs); k > 0 {
		b := w.indBufs[k-1]
		w.indBufs = w.indBufs[:k-1]
		return b
	}
	return make([]byte, w.g.bsize)
}

// encodeIndirect stores the entries bap of an indirect block in b, in the
// image's byte order (little-endian ones without the byte order's
// interface call for each entry).
func (w *writer) encodeIndirect(b []byte, bap []int64) {
	switch {
	case w.g.version == 1:
		for k, v := range bap {
			w.o.put32(b[4*k:], v)
		}
	case w.o.ByteOrder == binary.LittleEndian:
		for k, v := range bap {
			binary.LittleEndian.PutUint64(b[8*k:], uint64(v))
		}
	default:
		for k, v := range bap {
			w.o.put64(b[8*k:], v)
		}
	}
}

// queueCopy queues the copy of length bytes of file n, from byte fileOff
// on, to image offset off of the file system, and makes the queued copies
// once copyBatch of them are waiting.
func (w *writer) queueCopy(n *fstree.Node, off, length, fileOff int64) error {
	// The slack of the last fragment is the file's and zero: the cache
	// may write it, to copy files that follow each other in one write.
	if n.ZeroFilled() {
		// A hole where the image is fresh: nothing is read or written.
		return w.im.ZeroRange(w.base+off, length)
	}
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
	w.sortCopies()
	if i, err := w.im.CopyFiles(w.copies); err != nil {
		if i < 0 || w.copyOwners[i] == nil {
			return err
		}
		return fmt.Errorf("ffs: %s: %w", w.copyOwners[i].Path(), err)
	}
	for _, c := range w.copies {
		if c.Data != nil {
			w.indBufs = append(w.indBufs, c.Data)
		}
	}
	w.indQueued = 0
	clear(w.copies)
	clear(w.copyOwners)
	w.copies, w.copyOwners = w.copies[:0], w.copyOwners[:0]
	return nil
}

// sortCopies puts the queued copies (and their owners) in the order of
// their offsets, so that pieces that follow each other in the image are
// neighbours in the batch, which CopyFiles writes together: the tails of
// several files in the fragments of one block, queued far apart. Every
// copy has its own blocks, so the order changes no byte.
func (w *writer) sortCopies() {
	if slices.IsSortedFunc(w.copies, func(a, b bcache.FileCopy) int { return cmp.Compare(a.Off, b.Off) }) {
		return
	}
	idx := make([]int, len(w.copies))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(w.copies[a].Off, w.copies[b].Off) })
	copies := make([]bcache.FileCopy, len(idx))
	owners := make([]*fstree.Node, len(idx))
	for k, i := range idx {
		copies[k], owners[k] = w.copies[i], w.copyOwners[i]
	}
	copy(w.copies, copies)
	copy(w.copyOwners, owners)
}

// indir is one step of the path to a block: the logical number of the
// indirect block (or of the inode's ib slot) and the offset in it.
type indir struct{ lbn, off int64 }

// getlbns is ufs_getlbns: the chain of indirect blocks that leads to
// logical block bn (bn >= UFS_NDADDR), in ap, which it returns sliced:
// balloc calls it for every block of a file, and a slice of its own each
// time was most of the work (and garbage) of laying out a 1 TiB file.
func (w *writer) getlbns(bn int64, ap *[nIAddr + 1]indir) ([]indir, error) {
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
	ap[0] = indir{metalbn, nIAddr - i}
	k := 1
	for ; i <= nIAddr; i++ {
		lbc -= lognindir
		off := (bn >> lbc) & (g.nindir - 1)
		ap[k] = indir{metalbn, off}
		k++
		metalbn -= -1 + (off << lbc)
	}
	return ap[:k], nil
}

// pathTo returns getlbns's path to logical block lbn of ip. When lbn
// follows the block of the last path in the same indirect block, the path
// is that one with the last offset one further, as getlbns would make it.
func (w *writer) pathTo(ip *inode, lbn int64) ([]indir, error) {
	if n := ip.pathLen; n > 0 && lbn == ip.pathLbn+1 && ip.path[n-1].off < w.g.nindir-1 {
		ip.path[n-1].off++
		ip.pathLbn = lbn
		return ip.path[:n], nil
	}
	indirs, err := w.getlbns(lbn, &ip.path)
	ip.pathLen, ip.pathLbn = len(indirs), lbn
	return indirs, err
}

// balloc is ffs_balloc for a file whose size is already final: it
// allocates logical block lbn holding chunk bytes and returns its fragment
// address and allocated size.
func (w *writer) balloc(ip *inode, lbn, chunk int64) (addr, nsize int64, err error) {
	if lbn < nDAddr {
		return w.ballocDirect(ip, lbn, chunk)
	}
	g, a := w.g, w.a
	indirs, err := w.pathTo(ip, lbn)
	if err != nil {
		return 0, 0, err
	}
	var pref int64
	num := len(indirs) - 1
	nb := ip.ib[indirs[0].off]
	if nb == 0 {
		pref = a.blkpref(ip.ino, lbn, 0, nil)
		if nb, err = a.allocBlock(ip.ino, pref, g.bsize); err != nil {
			return 0, 0, err
		}
		w.newIndirect(ip, 1, nb)
		ip.ib[indirs[0].off] = nb
	}
	var bap []int64
	for i := 1; ; {
		bap = ip.ind[i].bap
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
		w.newIndirect(ip, i, nb)
		bap[indirs[i-1].off] = nb
	}
	pref = a.blkpref(ip.ino, lbn, indirs[num].off, bap)
	if nb, err = a.allocBlock(ip.ino, pref, g.bsize); err != nil {
		return 0, 0, err
	}
	ip.blocks += g.bsize / 512
	bap[indirs[num].off] = nb
	return nb, g.bsize, w.finishIndirect(ip, indirs, lbn)
}

// ballocRun allocates, as balloc would one at a time, up to n blocks of
// ip from lbn on, and returns how many it took and the fragment address of
// the first. It takes the blocks that ffs_blkpref prefers and
// ffs_alloccgblk finds free without a search: those that follow block
// lbn-1 in the same indirect block, the same cylinder group and the same
// section of fs_maxbpg entries (allocrun.go).
func (w *writer) ballocRun(ip *inode, lbn, n int64) (k, addr int64, err error) {
	g := w.g
	d := ip.pathLen
	if lbn <= nDAddr || d == 0 || ip.pathLbn != lbn-1 {
		return 0, 0, nil
	}
	last := &ip.path[d-1]
	indx := last.off + 1
	if indx >= g.nindir || indx%g.maxbpg == 0 {
		return 0, 0, nil
	}
	n = min(n, g.nindir-indx, g.maxbpg-indx%g.maxbpg)
	bap := ip.ind[d-1].bap
	pref := bap[indx-1] + g.frag
	if bap[indx-1] == 0 || pref >= g.size {
		return 0, 0, nil
	}
	c := g.dtog(pref)
	if k = w.a.allocRun(c, pref-g.cgbase(c), n); k == 0 {
		return 0, 0, nil
	}
	for j := range k {
		bap[indx+j] = pref + j*g.frag
	}
	ip.blocks += k * g.bsize / 512
	last.off += k
	ip.pathLbn += k
	return k, pref, w.finishIndirect(ip, ip.path[:d], ip.pathLbn)
}

// ballocDirect allocates direct block lbn of ip holding chunk bytes: a
// whole block, or for the last block of a file of at most UFS_NDADDR
// blocks the fragments chunk needs.
func (w *writer) ballocDirect(ip *inode, lbn, chunk int64) (addr, nsize int64, err error) {
	g, a := w.g, w.a
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

// newIndirect records a new indirect block of ip, at step i of the path
// to a block and fragment address at, all of its entries zero; its
// entries reuse those of an indirect block already written, if any.
func (w *writer) newIndirect(ip *inode, i int, at int64) {
	g := w.g
	var bap []int64
	if k := len(w.indFree); k > 0 {
		bap = w.indFree[k-1]
		clear(bap)
		w.indFree = w.indFree[:k-1]
	} else {
		bap = make([]int64, g.nindir)
	}
	ip.ind[i] = pendingIndir{bap: bap, at: at}
	ip.blocks += g.bsize / 512
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
	c, cgino := w.markInodeUsed(ip.ino, n)
	// FreeBSD's ffs_build_dinode draws di_gen before ffs_write_inode
	// initialises inode blocks.
	f := dinodeFields{mode: ifmtOf(n.Type) | int64(n.Mode&0o7777)}
	if w.opts.Compat != CompatDebian {
		f.gen = w.rng.next()
	}
	if w.g.version == 2 {
		w.initInodeBlocks(c, cgino)
	}
	f.setTimes(n, w.opts.Compat == CompatDebian)
	if n.Type == fstree.TypeChar || n.Type == fstree.TypeBlock {
		f.rdev = fbsdDev(n.Rdev)
	}
	if w.g.version == 1 {
		return w.putInode(ip.ino, w.dinode1(ip, n, &f))
	}
	return w.putInode(ip.ino, w.dinode2(ip, n, &f))
}

// markInodeUsed marks inode ino used in its cylinder group's map and
// counts it (and a directory) in the group's and the file system's
// summaries. It returns the group and the inode's number in it.
func (w *writer) markInodeUsed(ino int64, n *fstree.Node) (c, cgino int64) {
	g, a := w.g, w.a
	c = g.inoToCg(ino)
	cgino = ino % g.ipg
	setbit(a.inosused(c), cgino)
	a.countInode(c, n.Type == fstree.TypeDir)
	return c, cgino
}

// initInodeBlocks counts the UFS2 inode blocks of group c up to the one
// that holds cgino as initialised (writeInitedInodes writes them), drawing
// their inodes' di_gen for FreeBSD, and records the count in the group's
// cg_initediblk.
func (w *writer) initInodeBlocks(c, cgino int64) {
	g := w.g
	n := w.inited.get(c)
	for cgino+g.inopb > n && n < g.ipg {
		if w.opts.Compat != CompatDebian {
			for range g.inopb {
				w.addGen(c, uint32(w.rng.next()))
			}
		}
		n += g.inopb // written by writeInitedInodes
	}
	w.inited.set(c, n)
	w.o.put32(w.a.cg(c).cgInitediblk(), n)
}

// dinodeFields are the values of a dinode that writeInode works out
// before it lays them out for UFS1 or UFS2: the mode, the times in
// seconds and nanoseconds, the device number and di_gen.
type dinodeFields struct {
	mode             int64
	at, atn, mt, mtn int64
	ct, ctn, bt, btn int64
	rdev, gen        int64
}

// setTimes sets the access, modification, change and birth times from n;
// a zero time is 0. For Debian's makefs only the seconds of the first
// three are kept.
func (f *dinodeFields) setTimes(n *fstree.Node, debian bool) {
	ts := func(t time.Time) (int64, int64) {
		if t.IsZero() {
			return 0, 0
		}
		return t.Unix(), int64(t.Nanosecond())
	}
	f.at, f.atn = ts(n.Atime)
	f.mt, f.mtn = ts(n.Mtime)
	f.ct, f.ctn = ts(n.Ctime)
	f.bt, f.btn = ts(n.Birthtime)
	if debian {
		f.atn, f.mtn, f.ctn, f.bt, f.btn = 0, 0, 0, 0, 0
	}
}

// dinode1 lays out the UFS1 dinode of the file n that ip describes.
func (w *writer) dinode1(ip *inode, n *fstree.Node, f *dinodeFields) []byte {
	o := w.o
	var d dinode1
	o.put16(d.diMode(), f.mode)
	o.put16(d.diNlink(), int64(n.Nlink))
	o.put64(d.diSize(), ip.size)
	o.put32(d.diAtime(), f.at)
	o.put32(d.diAtimensec(), f.atn)
	o.put32(d.diMtime(), f.mt)
	o.put32(d.diMtimensec(), f.mtn)
	o.put32(d.diCtime(), f.ct)
	o.put32(d.diCtimensec(), f.ctn)
	for i, v := range ip.db {
		o.put32(d.diDb(i), v)
	}
	for i, v := range ip.ib {
		o.put32(d.diIb(i), v)
	}
	if n.Type == fstree.TypeSymlink && ip.size < maxSymlinkLen1 {
		copy(d.diShortlink(), n.Link)
	}
	if f.rdev != 0 {
		o.put32(d.diRdev(), f.rdev)
	}
	o.put32(d.diFlags(), int64(n.Flags))
	o.put32(d.diBlocks(), ip.blocks)
	o.put32(d.diGen(), f.gen)
	o.put32(d.diUID(), int64(n.UID))
	o.put32(d.diGID(), int64(n.GID))
	return d[:]
}

// dinode2 lays out the UFS2 dinode of the file n that ip describes.
func (w *writer) dinode2(ip *inode, n *fstree.Node, f *dinodeFields) []byte {
	o := w.o
	var d dinode2
	o.put16(d.diMode(), f.mode)
	o.put16(d.diNlink(), int64(n.Nlink))
	o.put32(d.diUID(), int64(n.UID))
	o.put32(d.diGID(), int64(n.GID))
	o.put64(d.diSize(), ip.size)
	o.put64(d.diBlocks(), ip.blocks)
	o.put64(d.diAtime(), f.at)
	o.put64(d.diMtime(), f.mt)
	o.put64(d.diCtime(), f.ct)
	o.put64(d.diBirthtime(), f.bt)
	o.put32(d.diMtimensec(), f.mtn)
	o.put32(d.diAtimensec(), f.atn)
	o.put32(d.diCtimensec(), f.ctn)
	o.put32(d.diBirthnsec(), f.btn)
	o.put32(d.diGen(), f.gen)
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
	if f.rdev != 0 {
		o.put64(d.diRdev(), f.rdev)
	}
	return d[:]
}
