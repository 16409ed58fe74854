package ext

import (
	"fmt"
	"sort"
)

// Quota files as e2fsprogs' lib/support writes them (quotaio_v2.h,
// quotaio_tree.h): the vfsv1 format, a radix tree of 1 KiB quota blocks
// over the 32-bit ids.
const (
	qtBlockSize   = 1024       // QT_BLKSIZE
	qtTreeOff     = 1          // QT_TREEOFF: the tree's root block
	qtTreeDepth   = 4          // QT_TREEDEPTH
	qtHeaderSize  = 16         // struct qt_disk_dqdbheader
	qtEntrySize   = 72         // struct v2r1_disk_dqblk
	qtInfoOff     = 8          // V2_DQINFOOFF, after struct v2_disk_dqheader
	qtVersionR1   = 1          // V2_VERSION_R1
	qtMaxGrace    = 604800     // MAX_DQ_TIME and MAX_IQ_TIME: a week
	immutableFL   = 0x00000010 // EXT2_IMMUTABLE_FL
	usrQuotaIno   = 3          // EXT4_USR_QUOTA_INO
	grpQuotaIno   = 4          // EXT4_GRP_QUOTA_INO
	qtEntriesInBl = (qtBlockSize - qtHeaderSize) / qtEntrySize
)

// quotaMagics are INITQMAGICS, dqh_magic of each quota type's file.
var quotaMagics = [3]uint32{0xd9c01f11, 0xd9c01927, 0xd9c03f14}

// dquot is one id's usage: bytes of blocks and inodes.
type dquot struct {
	id     uint32
	space  uint64
	inodes uint64
}

// quotaUsage is quota_compute_usage at the time mke2fs calls it, before
// the tree is copied: of the inodes in use, the root and those from
// s_first_ino on (neither the project quota file nor the orphan file,
// which do not exist yet), which are the root and lost+found. Each adds
// its i_blocks in bytes and one inode to its user, group and project
// (i_projid is 0 for both; none with 128-byte inodes). The ids come
// sorted, as libsupport's dictionary gives them.
func (w *writer) quotaUsage(qtype int) []dquot {
	f := w.f
	if qtype == prjQuota && w.g.inodeSize <= goodOldInodeSize {
		return nil
	}
	byID := map[uint32]*dquot{}
	for ino, n := range f.inodes { // the few made so far; the ids sorted below
		if le.Uint16(n.iLinksCount()) == 0 || (ino != rootIno && ino < firstIno) {
			continue
		}
		var id uint32
		switch qtype {
		case usrQuota:
			id = uint32(le.Uint16(n.iUID())) | uint32(le.Uint16(n.lIUIDHigh()))<<16
		case grpQuota:
			id = uint32(le.Uint16(n.iGID())) | uint32(le.Uint16(n.lIGIDHigh()))<<16
		}
		d := byID[id]
		if d == nil {
			d = &dquot{id: id}
			byID[id] = d
		}
		d.space += uint64(le.Uint32(n.iBlocksLo())) * 512
		d.inodes++
	}
	out := make([]dquot, 0, len(byID))
	for _, d := range byID {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// quotaFile is a quota file being written as quotaio_tree.c writes it:
// its 1 KiB blocks and the reads and writes that make it, in order, as
// ext2fs_file_read and ext2fs_file_write get them.
type quotaFile struct {
	blocks    [][]byte
	ops       []quotaOp
	nBlocks   uint32 // dqi_blocks
	freeEntry uint32 // dqi_free_entry
}

// quotaOp is a read or write of n bytes at byte off of the file.
type quotaOp struct {
	write  bool
	off, n uint64
}

func (q *quotaFile) write(off, n uint64) { q.ops = append(q.ops, quotaOp{true, off, n}) }

func (q *quotaFile) readBlock(b uint32) {
	q.ops = append(q.ops, quotaOp{false, uint64(b) * qtBlockSize, qtBlockSize})
}

// block returns quota block b, zeros when never written.
func (q *quotaFile) block(b uint32) []byte {
	for uint32(len(q.blocks)) <= b {
		q.blocks = append(q.blocks, make([]byte, qtBlockSize))
	}
	return q.blocks[b]
}

func (q *quotaFile) writeBlock(b uint32) { q.write(uint64(b)*qtBlockSize, qtBlockSize) }

// freeBlock is get_free_dqblk with an empty free list: a new block at
// the end, written as zeros.
func (q *quotaFile) freeBlock() uint32 {
	b := q.nBlocks
	q.block(b)
	q.writeBlock(b)
	q.nBlocks++
	return b
}

// freeEntry is find_free_dqentry: a slot in the block of the free
// entries list, or in a new one; a block that fills leaves the list.
// It returns the block and the slot's byte offset in the file.
func (q *quotaFile) freeEntrySlot() (uint32, uint64) {
	var blk uint32
	if q.freeEntry != 0 {
		blk = q.freeEntry
		q.readBlock(blk)
	} else {
		blk = q.freeBlock()
		q.freeEntry = blk
	}
	buf := q.block(blk)
	entries := le.Uint16(buf[8:])
	if int(entries)+1 >= qtEntriesInBl {
		// remove_free_dqentry: the block was the list's only one
		q.freeEntry = le.Uint32(buf[0:])
		le.PutUint32(buf[0:], 0)
		le.PutUint32(buf[4:], 0)
		q.writeBlock(blk)
	}
	le.PutUint16(buf[8:], entries+1)
	i := 0
	for ; i < qtEntriesInBl; i++ {
		e := buf[qtHeaderSize+i*qtEntrySize:][:qtEntrySize]
		if !allZero(e) {
			continue
		}
		break
	}
	q.writeBlock(blk)
	return blk, uint64(blk)*qtBlockSize + qtHeaderSize + uint64(i)*qtEntrySize
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// insert is do_insert_tree from tree block *tb at depth: the path of
// the id's bytes, a tree block allocated where the path is missing and
// written once its reference below is set. It returns the entry's byte
// offset.
func (q *quotaFile) insert(id uint32, tb *uint32, depth int) uint64 {
	if *tb == 0 {
		*tb = q.freeBlock()
	} else {
		q.readBlock(*tb)
	}
	buf := q.block(*tb)
	idx := (id >> ((qtTreeDepth - depth - 1) * 8)) & 0xff
	next := le.Uint32(buf[4*idx:])
	newSon := next == 0
	var off uint64
	if depth == qtTreeDepth-1 {
		next, off = q.freeEntrySlot()
	} else {
		off = q.insert(id, &next, depth+1)
	}
	if newSon {
		le.PutUint32(buf[4*idx:], next)
		q.writeBlock(*tb)
	}
	return off
}

// newQuotaFile is quota_file_create, v2_new_io, write_dquots and
// quota_file_close for one type's usage.
func newQuotaFile(qtype int, usage []dquot) *quotaFile {
	q := &quotaFile{nBlocks: qtTreeOff + 1}
	hdr := q.block(0)
	le.PutUint32(hdr[0:], quotaMagics[qtype]) // dqh_magic
	le.PutUint32(hdr[4:], qtVersionR1)        // dqh_version
	q.write(0, 8)
	q.write(qtInfoOff, 24) // the info as v2_new_io writes it first
	for _, d := range usage {
		// v2_commit_dquot: every id here has an inode, so none is deleted
		root := uint32(qtTreeOff)
		off := q.insert(d.id, &root, 0)
		e := q.block(uint32(off / qtBlockSize))[off%qtBlockSize:][:qtEntrySize]
		le.PutUint32(e[0:], d.id)      // dqb_id
		le.PutUint64(e[24:], d.inodes) // dqb_curinodes
		le.PutUint64(e[48:], d.space)  // dqb_curspace
		q.write(off, qtEntrySize)
	}
	// v2_write_info, as quota_file_close finds the info dirty
	le.PutUint32(hdr[qtInfoOff+0:], qtMaxGrace) // dqi_bgrace
	le.PutUint32(hdr[qtInfoOff+4:], qtMaxGrace) // dqi_igrace
	le.PutUint32(hdr[qtInfoOff+12:], q.nBlocks) // dqi_blocks
	le.PutUint32(hdr[qtInfoOff+20:], q.freeEntry)
	q.write(qtInfoOff, 24)
	return q
}

// quotaFiles is create_quota_inodes: for each quota type asked for, in
// the order user, group, project, the usage of the file system so far
// written to its quota inode (3, 4, or for the project a new inode from
// the root's group), whose blocks ext2fs_file_write allocates in the
// order the writes first reach them.
func (w *writer) quotaFiles() error {
	f, g := w.f, w.g
	w.scanIO()
	for qtype := usrQuota; qtype <= prjQuota; qtype++ {
		if w.ft.quotaTypes&(1<<qtype) == 0 {
			continue
		}
		usage := w.quotaUsage(qtype)
		ino := uint32(usrQuotaIno)
		switch qtype {
		case grpQuota:
			ino = grpQuotaIno
		case prjQuota:
			var err error
			if ino, err = f.newInode(rootIno); err != nil {
				return err
			}
			f.inodeAllocStats(ino, false)
		}
		q := newQuotaFile(qtype, usage)
		// quota_inode_init_new, then ext2fs_file_open
		f.io.ri(ino)
		n := f.newInodeRecord(ino)
		le.PutUint16(n.iMode(), sIFREG|0o600)
		le.PutUint16(n.iLinksCount(), 1)
		le.PutUint32(n.iFlags(), immutableFL)
		if f.extents {
			initExtents(n)
		}
		f.io.wiFull(ino)
		f.io.ri(ino)
		qf := &quotaInode{f: f, ino: ino, n: n, blockno: 0}
		for _, op := range q.ops {
			var err error
			if op.write {
				err = qf.write(op.off, op.n)
			} else {
				qf.read(op.off)
			}
			if err != nil {
				return err
			}
		}
		if err := qf.flush(); err != nil { // ext2fs_file_close
			return err
		}
		for l, p := range qf.phys {
			buf := make([]byte, g.bs)
			for k := range max(g.bs/qtBlockSize, 1) {
				if b := int(l)*max(g.bs/qtBlockSize, 1) + k; b < len(q.blocks) {
					copy(buf[k*qtBlockSize:], q.blocks[b])
				}
			}
			f.meta[p] = buf
		}
		le.PutUint32(n.iSizeLo(), uint32(qf.size))
		w.quotaIno[qtype] = ino
	}
	w.bitmapsIO() // quota_write_inode's ext2fs_write_bitmaps
	return nil
}

// scanIO is the reads of quota_compute_usage's inode scan: the bad
// blocks inode (ext2fs_read_bb_inode), then each group's inode table
// 8 blocks at a time, up to its last used inode with group checksums
// (none of a group with INODE_UNINIT); a read of more than 4 blocks
// flushes the cache and goes past it.
func (w *writer) scanIO() {
	f, g := w.f, w.g
	if f.io == nil {
		return
	}
	f.io.ri(badIno)
	f.io.ri(badIno)
	for i := uint64(0); i < uint64(g.groups); i++ {
		left := g.itbPerGroup
		if f.groupCsum {
			first := i*uint64(g.ipg) + 1
			last, ok := f.imap.last(first, first+uint64(g.ipg))
			if !ok {
				continue // INODE_UNINIT
			}
			used := last - first + 1
			per := uint64(g.bs / g.inodeSize)
			left = (used + per - 1) * uint64(g.inodeSize) / uint64(g.bs)
		}
		for b := f.itLoc[i]; left > 0; {
			k := min(left, 8)
			if k > 4 {
				f.io.sim.flush(false)
			} else {
				f.io.sim.read(b, int(k))
			}
			b += k
			left -= k
		}
	}
}

// bitmapsIO is ext2fs_write_bitmaps: each group's block bitmap (but a
// BLOCK_UNINIT one's) and inode bitmap (but an INODE_UNINIT one's).
func (w *writer) bitmapsIO() {
	f, g := w.f, w.g
	if f.io == nil {
		return
	}
	for i := uint32(0); i < g.groups; i++ {
		first, last := g.groupFirst(uint64(i)), g.groupLast(uint64(i))
		used := f.usedIn(first, last+1)
		if g.logFlex == 0 {
			used -= 2 + g.itbPerGroup
		}
		if !(f.groupCsum && used == 0 && i != g.groups-1 && !g.hasSuper(i)) {
			f.io.w(f.bbmLoc[i])
		}
		ifirst := uint64(i)*uint64(g.ipg) + 1
		if _, ok := f.imap.last(ifirst, ifirst+uint64(g.ipg)); ok || !f.groupCsum {
			f.io.w(f.ibmLoc[i])
		}
	}
}

// quotaInode is the ext2_file_t quota_write_nomount and
// quota_read_nomount write and read a quota file through: the block in
// its buffer, and the inode's size; its blocks are allocated as the
// writes reach them, the first free block from the inode's (flex)
// group each, and the I/O goes to the model of mke2fs's.
type quotaInode struct {
	f            *fsys
	ino          uint32
	n            inode
	blockno      uint64
	bufPhys      uint64
	valid, dirty bool
	size         uint64
	phys         map[uint64]uint64
}

// lookup is ext2fs_bmap2 without allocation.
func (q *quotaInode) lookup(l uint64) uint64 {
	if q.phys == nil {
		return 0
	}
	return q.phys[l]
}

// sync is sync_buffer_position.
func (q *quotaInode) sync(pos uint64) error {
	if b := pos / uint64(q.f.g.bs); b != q.blockno {
		if err := q.flush(); err != nil {
			return err
		}
		q.valid = false
		q.blockno = b
	}
	return nil
}

// load is load_buffer.
func (q *quotaInode) load(dontfill bool) {
	if q.valid {
		return
	}
	q.bufPhys = q.lookup(q.blockno)
	if !dontfill && q.bufPhys != 0 {
		q.f.io.r(q.bufPhys)
	}
	q.valid = true
}

// alloc is ext2fs_bmap2 with BMAP_ALLOC for the buffer's block.
func (q *quotaInode) alloc() error {
	f := q.f
	var p uint64
	var err error
	if f.extents {
		if p = q.impliedCluster(); p == 0 {
			if p, err = f.allocBlock(f.findInodeGoal(q.ino, nil)); err != nil {
				return err
			}
			f.io.w(p) // ext2fs_alloc_block3 zeroes it
			f.addIBlocks(q.n, 1)
			p += q.blockno & f.g.cmask() // bigalloc: its place in the cluster
		}
		merged, err := quotaExtent(q.n, q.blockno, p)
		if err != nil {
			return err
		}
		f.leafUpdateIO(q.ino, q.n) // set_bmap's replace, or insert's two
		if !merged {
			f.leafUpdateIO(q.ino, q.n)
		}
		f.io.ri(q.ino)
		f.io.wi(q.ino)
	} else if p, err = f.mapBlock(q.ino, q.n, q.blockno); err != nil {
		return err
	}
	if q.phys == nil {
		q.phys = map[uint64]uint64{}
	}
	q.phys[q.blockno] = p
	q.bufPhys = p
	return nil
}

// impliedCluster is implied_cluster_alloc for the buffer's block: with
// bigalloc, its place in the physical cluster of another block of its
// logical cluster, or 0.
func (q *quotaInode) impliedCluster() uint64 {
	g := q.f.g
	base := q.blockno &^ g.cmask()
	for i := uint64(0); g.cbits != 0 && i < g.ratio(); i++ {
		if p := q.lookup(base + i); p != 0 && base+i != q.blockno {
			return p - i + (q.blockno - base)
		}
	}
	return 0
}

// flush is ext2fs_file_flush.
func (q *quotaInode) flush() error {
	if !q.valid || !q.dirty {
		return nil
	}
	if q.bufPhys == 0 {
		if err := q.alloc(); err != nil {
			return err
		}
	}
	q.f.io.w(q.bufPhys)
	q.dirty = false
	return nil
}

// write is ext2fs_file_write of n bytes at off (within one block), then
// ext2fs_file_set_size2 when it ends past the size: the inode written,
// the rest of a last partial block zeroed on disk.
func (q *quotaInode) write(off, n uint64) error {
	f, bs := q.f, uint64(q.f.g.bs)
	if err := q.sync(off); err != nil {
		return err
	}
	q.load(n == bs)
	q.dirty = true
	if q.bufPhys == 0 {
		if err := q.alloc(); err != nil {
			return err
		}
	}
	if end := off + n; end > q.size {
		q.size = end
		f.io.wi(q.ino)
		if end%bs != 0 {
			if err := q.sync(end); err != nil {
				return err
			}
			f.io.ri(q.ino)
			if p := q.lookup(end / bs); p != 0 {
				f.io.r(p)
				f.io.w(p)
			}
		}
	}
	return nil
}

// read is ext2fs_file_read of a quota block at off: nothing past the
// size.
func (q *quotaInode) read(off uint64) {
	if off >= q.size {
		return
	}
	if err := q.sync(off); err != nil {
		return
	}
	q.load(false)
}

// quotaExtent maps logical block l to p in the extent tree in the inode
// as ext2fs_extent_set_bmap does for the few blocks of a quota file: the
// extent ending just before both grows (merged), else a new one goes in
// logical order.
func quotaExtent(n inode, l, p uint64) (merged bool, err error) {
	b := n.iBlock()
	k := extEntries(b)
	for i := range k {
		e := extEntry(b, i)
		start, length := uint64(le.Uint32(e)), uint64(le.Uint16(e[4:]))
		if start+length == l && leafStart(e, false)+length == p {
			le.PutUint16(e[4:], uint16(length+1))
			return true, nil
		}
	}
	if k >= extMax(b) {
		return false, fmt.Errorf("%w: a quota file of more than %d extents", ErrOption, extMax(b))
	}
	i := 0
	for i < k && uint64(le.Uint32(extEntry(b, i))) < l {
		i++
	}
	copy(b[extHeaderSize+extentEntrySize*(i+1):extHeaderSize+extentEntrySize*(k+1)], b[extHeaderSize+extentEntrySize*i:extHeaderSize+extentEntrySize*k])
	putExtent(extEntry(b, i), uint32(l), 1, p)
	le.PutUint16(b[2:], uint16(k+1))
	return false, nil
}
