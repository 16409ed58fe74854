package ext

import (
	"fmt"
	"slices"
)

// This file is the file system under construction: bitmaps, inodes and
// metadata blocks in memory, and the allocation rules of lib/ext2fs
// (alloc.c, bmap.c, mkdir.c, link.c, expanddir.c, symlink.c) that
// mke2fs -d follows, so that every inode and block lands where mke2fs
// puts it.

// full reports a file system out of what (blocks or inodes), with its
// size.
func (f *fsys) full(what string) error {
	g := f.g
	return fmt.Errorf("%w: out of %s (%d blocks of %d bytes, %d inodes)", ErrNoSpace, what, g.blocks, g.bs, g.inodes)
}

// fsys is the file system being made.
type fsys struct {
	g      *mkGeometry
	now    uint32
	bmap   *bitmap // block bitmap, bit b for block b, chunked by group
	imap   *bitmap // inode bitmap, bit i for inode i, chunked by group
	inodes map[uint32]inode
	meta   map[uint64][]byte // metadata blocks (directories, indirect blocks, symbolic links, resize inode)
	data   []dataRun         // file data to copy at write time
	dirs   []uint32          // used_dirs per group
	bbmLoc []uint64          // bg_block_bitmap per group
	ibmLoc []uint64
	itLoc  []uint64

	orphan []uint64 // the orphan file's blocks, whose tails hold checksums
	// packed is -E packed_meta_blocks with flex_bg: the tables follow
	// group 0's descriptors.
	packed  bool
	stride  uint32 // fs->stride: -E stride, which staggers bitmaps without flex_bg
	extents bool   // ext4's extent feature: inodes map their blocks with extent trees
	csum    bool   // metadata_csum: directory blocks end in a checksum tail
	// noFiletype leaves directory entries' file_type 0 (^filetype).
	noFiletype bool
	// groupCsum is metadata_csum or uninit_bg: group flags and
	// bg_itable_unused.
	groupCsum bool
	// dirOwner and extOwner name the inode of each directory block and
	// extent tree block, whose checksums are seeded by it.
	dirOwner map[uint64]uint32
	extOwner map[uint64]uint32
	// xattrBlocks are the attribute blocks, whose checksums are seeded
	// by their block number.
	xattrBlocks []uint64
	// inline is inline_data: new directories, small files and
	// symbolic links keep their bytes in the inode.
	inline bool
	// ibody holds the attributes in each inode's body (after
	// i_extra_isize) that later ones are added to: system.data, set
	// before the others. An inode listed with none keeps the magic.
	ibody map[uint32][]eaEntry
	// io replays mke2fs's block I/O for s_kbytes_written (nil: not
	// counted).
	io *ioModel
	// clustered is set once the tables are placed with bigalloc
	// (ext2fs_convert_subcluster_bitmap): from then on a block marked
	// or cleared is its whole cluster.
	clustered bool
}

// dataRun is a run of a file's blocks that follow each other both in the
// file and on disk: where it goes, which file and from which byte.
type dataRun struct {
	phys   uint64
	blocks uint64
	file   int   // index into writer.files
	off    int64 // byte offset in the file
}

// addDataRun records that the n blocks at byte off of file idx go to the
// blocks from phys on, growing the last run when they follow it.
func (f *fsys) addDataRun(phys, n uint64, idx int, off int64) {
	if k := len(f.data); k > 0 {
		r := &f.data[k-1]
		if r.file == idx && r.phys+r.blocks == phys && r.off+int64(r.blocks)*int64(f.g.bs) == off {
			r.blocks += n
			return
		}
	}
	f.data = append(f.data, dataRun{phys: phys, blocks: n, file: idx, off: off})
}

func newFsys(g *mkGeometry, now uint32) *fsys {
	return &fsys{
		g: g, now: now,
		bmap:   newBitmap(g.firstData, g.blocks-g.firstData, g.bpg),
		imap:   newBitmap(1, uint64(g.inodes), uint64(g.ipg)),
		inodes: map[uint32]inode{},
		meta:   map[uint64][]byte{},
		dirs:   make([]uint32, g.groups),
		bbmLoc: make([]uint64, g.groups),
		ibmLoc: make([]uint64, g.groups),
		itLoc:  make([]uint64, g.groups),

		dirOwner: map[uint64]uint32{},
		ibody:    map[uint32][]eaEntry{},
		extOwner: map[uint64]uint32{},
	}
}

// ft is the file_type a directory entry gets: 0 without filetype.
func (f *fsys) ft(t byte) byte {
	if f.noFiletype {
		return 0
	}
	return t
}

// dirTailSize is the room a directory block keeps for its checksum tail
// (struct ext2_dir_entry_tail) with metadata_csum.
func (f *fsys) dirTailSize() int {
	if f.csum {
		return dirTailLen
	}
	return 0
}

func (f *fsys) used(b uint64) bool { return f.bmap.test(b) }

// mark marks block b used: its cluster once the bitmap counts clusters.
func (f *fsys) mark(b uint64) {
	if f.clustered {
		c := b &^ f.g.cmask()
		f.bmap.setRange(c, c+f.g.ratio())
		return
	}
	f.bmap.set(b)
}

// unmark frees block b (its cluster once the bitmap counts clusters).
func (f *fsys) unmark(b uint64) {
	if !f.clustered {
		f.bmap.clear(b)
		return
	}
	for c := b &^ f.g.cmask(); c <= b|f.g.cmask(); c++ {
		f.bmap.clear(c)
	}
}

// toClusters turns the block bitmap into a cluster bitmap
// (ext2fs_convert_subcluster_bitmap): a cluster holding a used block is
// used whole.
func (f *fsys) toClusters() {
	if f.g.cbits == 0 {
		return
	}
	f.bmap.roundRuns(f.g.ratio())
	f.clustered = true
}

// usedIn counts the used blocks from start to end (exclusive).
func (f *fsys) usedIn(start, end uint64) uint64 { return f.bmap.count(start, end) }

// reserveSuper marks a group's superblock, descriptors and reserved GDT
// blocks (ext2fs_reserve_super_and_bgd). With 1 KiB blocks block 0 lies
// before group 0 and has no bit.
func (f *fsys) reserveSuper(group uint32) {
	g := f.g
	first := g.groupFirst(uint64(group))
	if first == 0 && g.bs == 1024 {
		// with 1 KiB blocks and bigalloc block 0 is group 0's, marked
		// with the superblock at 1
		f.mark(0)
		first = g.sbBlock()
	}
	if g.hasSuper(group) {
		f.mark(first)
	}
	blk, ok := g.descBlock(group)
	if !ok {
		return
	}
	n := uint64(1)
	if !g.metaBg {
		n = g.descBlocks + g.rsvGDT
	}
	for b := blk; b < blk+n && b < g.blocks; b++ {
		f.mark(b)
	}
}

// firstFreeRun is ext2fs_get_free_blocks2: the first block from start
// that begins num free blocks, searching up to finish (wrapping to the
// first data block past the end).
func (f *fsys) firstFreeRun(start, finish uint64, num uint64) (uint64, bool) {
	b := start
	if b == 0 {
		b = f.g.firstData
	}
	if finish == 0 {
		finish = start
	}
	for {
		if b+num-1 >= f.g.blocks {
			if finish > start {
				return 0, false
			}
			b = f.g.firstData
		}
		if f.usedIn(b, b+num) == 0 {
			return b, true
		}
		b++
		if b == finish {
			return 0, false
		}
	}
}

// allocateTables is ext2fs_allocate_tables without flex_bg: each group's
// block bitmap, inode bitmap and inode table at its first free blocks.
func (f *fsys) allocateTables() error {
	g := f.g
	if f.packed {
		return f.allocatePackedTables()
	}
	if g.logFlex != 0 {
		return f.allocateFlexTables()
	}
	for i := uint32(0); i < g.groups; i++ {
		groupBlk, last := g.groupFirst(uint64(i)), g.groupLast(uint64(i))
		start := groupBlk
		if f.stride != 0 {
			// the stride staggers the bitmaps past the inode table's room
			b, ok := f.firstFreeRun(groupBlk, last, 1)
			if !ok {
				return f.full("blocks")
			}
			b += g.itbPerGroup
			b += uint64(f.stride*i) % (last - b + 1) // the product wraps at 32 bits, as in C
			if start = b; start >= last {
				start = groupBlk
			}
		}
		for _, loc := range []*uint64{&f.bbmLoc[i], &f.ibmLoc[i]} {
			b, ok := f.firstFreeRun(start, last, 1)
			if !ok {
				b, ok = f.firstFreeRun(groupBlk, last, 1)
			}
			if !ok {
				return f.full("blocks")
			}
			f.mark(b)
			*loc = b
		}
		b, ok := f.firstFreeRun(groupBlk, last, g.itbPerGroup)
		if !ok {
			return f.full("blocks")
		}
		for j := uint64(0); j < g.itbPerGroup; j++ {
			f.mark(b + j)
		}
		f.itLoc[i] = b
	}
	return nil
}

// allocatePackedTables is mke2fs's packed_allocate_tables: every
// group's block bitmap, each at the first free block after the one
// before, then the inode bitmaps, then the inode tables, from the start
// of the file system.
func (f *fsys) allocatePackedTables() error {
	g := f.g
	goal := uint64(0)
	for _, locs := range [][]uint64{f.bbmLoc, f.ibmLoc} {
		for i := range locs {
			b, err := f.allocBlock(goal)
			if err != nil {
				return err
			}
			locs[i], goal = b, b
		}
	}
	for i := range f.itLoc {
		b, ok := f.firstFreeRun(goal, g.blocks-1, g.itbPerGroup)
		if !ok {
			return f.full("blocks")
		}
		for j := uint64(0); j < g.itbPerGroup; j++ {
			f.mark(b + j)
		}
		f.itLoc[i], goal = b, b
	}
	return nil
}

// allocateFlexTables is ext2fs_allocate_group_table with flex_bg: the
// block bitmaps of a flex group's groups side by side from its first
// group's start, then its inode bitmaps table_offset blocks after them,
// then its inode tables, each search starting where the previous
// group's element ended.
func (f *fsys) allocateFlexTables() error {
	g := f.g
	size := uint32(1) << g.logFlex
	for i := uint32(0); i < g.groups; i++ {
		lastGrp := min(i|(size-1), g.groups-1)
		rem := lastGrp - i + 1
		lastBlk := g.groupLast(uint64(lastGrp))
		groupBlk := g.groupFirst(uint64(i))
		tableOffset := uint64(size)
		var prev uint64
		if i%size != 0 {
			prev = f.bbmLoc[i-1] + 1
		} else if lastGrp == g.groups-1 {
			// the last flex group keeps its tables contiguous
			if tableOffset = uint64(lastGrp & (size - 1)); tableOffset == 0 {
				tableOffset = uint64(size)
			} else {
				tableOffset++
			}
		}
		// one pass per element: block bitmap, inode bitmap, inode table
		for elem := 0; elem < 3; elem++ {
			n := uint64(1)
			if elem == 2 {
				n = g.itbPerGroup
			}
			switch {
			case elem == 1 && i%size != 0:
				prev = f.ibmLoc[i-1] + 1
			case elem == 1:
				prev = f.bbmLoc[i] + tableOffset
			case elem == 2 && i%size != 0:
				prev = f.itLoc[i-1] + g.itbPerGroup
			case elem == 2:
				prev = f.ibmLoc[i] + tableOffset
			}
			start := f.flexbgOffset(i, prev, uint64(rem), n)
			var b uint64
			var ok bool
			if elem == 2 {
				b, ok = f.firstFreeRun(start, lastBlk, n)
			} else if b, ok = f.firstFreeRun(start, lastBlk, 1); !ok {
				b, ok = f.firstFreeRun(groupBlk, lastBlk, 1)
			}
			if !ok {
				return f.full("blocks")
			}
			for j := uint64(0); j < n; j++ {
				f.mark(b + j)
			}
			*[]*uint64{&f.bbmLoc[i], &f.ibmLoc[i], &f.itLoc[i]}[elem] = b
		}
	}
	return nil
}

// flexbgOffset is alloc_tables.c's flexbg_offset: where to look for a
// flex group's next element of elemSize blocks, given where the
// previous one ended (startBlk, 0 for none).
func (f *fsys) flexbgOffset(group uint32, startBlk, remGrp, elemSize uint64) uint64 {
	g := f.g
	size := uint64(1) << g.logFlex
	flexbg := uint64(group) / size
	want := min(remGrp*elemSize, g.bpg/4)
	if startBlk != 0 && startBlk < g.blocks {
		if b, ok := f.firstFreeRun(startBlk, startBlk+want, elemSize); ok {
			return b
		}
	}
	start := g.groupFirst(flexbg * size)
	lastGrp := min(uint64(group)|(size-1), uint64(g.groups)-1)
	lastBlk := g.groupLast(lastGrp)
	if b, ok := f.firstFreeRun(start, lastBlk, want); ok {
		return b
	}
	if b, ok := f.firstFreeRun(start, lastBlk, elemSize); ok {
		return b
	}
	b, _ := f.firstFreeRun(0, lastBlk, elemSize)
	return b
}

// newBlock is ext2fs_new_block2: the first free block from goal, else
// from the first data block. It does not mark it.
func (f *fsys) newBlock(goal uint64) (uint64, error) {
	g := f.g
	if goal == 0 || goal >= g.blocks {
		goal = g.firstData
	}
	goal &^= g.cmask()
	if b, ok := f.bmap.firstZero(goal, g.blocks); ok {
		return b, nil
	}
	if b, ok := f.bmap.firstZero(g.firstData, goal); ok {
		return b, nil
	}
	return 0, f.full("blocks")
}

// newRange is ext2fs_new_range without flags: the first free block from
// goal (wrapping to the first data block once) and the free blocks after
// it, at most n in all. It marks nothing.
func (f *fsys) newRange(goal, n uint64) (uint64, uint64, error) {
	g := f.g
	if goal == 0 || goal >= g.blocks {
		goal = g.firstData
	}
	start, err := f.newBlock(goal)
	if err != nil {
		return 0, 0, err
	}
	end := start
	for end < start+n && end < g.blocks && !f.used(end) {
		end++
	}
	return start, end - start, nil
}

// allocBlock is ext2fs_alloc_block: newBlock, marked.
func (f *fsys) allocBlock(goal uint64) (uint64, error) {
	b, err := f.newBlock(goal)
	if err == nil {
		f.mark(b)
	}
	return b, err
}

// newInode is ext2fs_new_inode: the first free inode from the start of
// the directory's group. It does not mark it.
func (f *fsys) newInode(dir uint32) (uint32, error) {
	g := f.g
	start := uint32(0)
	if dir > 0 {
		start = uint32(g.groupOfIno(dir))*g.ipg + 1
	}
	if start < firstIno {
		start = firstIno
	}
	if i, ok := f.imap.firstZero(uint64(start), uint64(g.inodes)+1); ok {
		return uint32(i), nil
	}
	if i, ok := f.imap.firstZero(firstIno, uint64(start)); ok {
		return uint32(i), nil
	}
	return 0, f.full("inodes")
}

// inodeAllocStats is ext2fs_inode_alloc_stats2(+1).
func (f *fsys) inodeAllocStats(ino uint32, isDir bool) {
	f.imap.set(uint64(ino))
	if isDir {
		f.dirs[f.g.groupOfIno(ino)]++
	}
}

// newInodeRecord returns a zeroed inode as ext2fs_write_new_inode fills
// it: times now where zero, and in a large inode i_extra_isize and
// i_crtime.
func (f *fsys) newInodeRecord(ino uint32) inode {
	n := make(inode, f.g.inodeSize)
	for _, t := range [][]byte{n.iAtime(), n.iCtime(), n.iMtime()} {
		le.PutUint32(t, f.now)
	}
	if f.g.inodeSize > goodOldInodeSize {
		le.PutUint16(n.iExtraIsize(), largeExtra)
		le.PutUint32(n.iCrtime(), f.now)
	}
	f.inodes[ino] = n
	return n
}

// addIBlocks is ext2fs_iblk_add_blocks: units are blocks, or with
// bigalloc clusters.
func (f *fsys) addIBlocks(n inode, units uint64) {
	le.PutUint32(n.iBlocksLo(), le.Uint32(n.iBlocksLo())+uint32(units<<f.g.cbits*uint64(f.g.bs/512)))
}

func iblock(n inode, i int) uint64 { return uint64(le.Uint32(n.iBlockWord(i))) }

// findInodeGoal is ext2fs_find_inode_goal: the block of logical block
// 0, else the first block of the inode's (flex) group.
func (f *fsys) findInodeGoal(ino uint32, n inode) uint64 {
	if n != nil && !isFastSymlink(n) && !isInline(n) {
		if hasExtents(n) {
			if b := f.extLookup(n, 0); b != 0 {
				return b
			}
		} else if b := iblock(n, 0); b != 0 {
			return b
		}
	}
	return f.g.groupFirst(f.g.flexFirst(f.g.groupOfIno(ino)))
}

func isFastSymlink(n inode) bool {
	return le.Uint16(n.iMode())&sIFMT == sIFLNK && le.Uint32(n.iBlocksLo()) == 0
}

// newDirBlock is ext2fs_new_dir_block: "." and ".." for a new directory,
// or one empty entry spanning the block.
func (f *fsys) newDirBlock(ino, parent uint32) []byte {
	b := make([]byte, f.g.bs)
	end := f.g.bs - f.dirTailSize()
	if f.csum {
		t := dirEntry(b[end:])
		le.PutUint16(t.recLen(), dirTailLen)
		t.fileType()[0] = dirTailFT
	}
	if ino == 0 {
		f.setRecLen(dirEntry(b), end)
		return b
	}
	d := dirEntry(b)
	le.PutUint32(d.inode(), ino)
	le.PutUint16(d.recLen(), 12)
	d.nameLen()[0] = 1
	d.fileType()[0] = f.ft(ftDir)
	b[8] = '.'
	d = dirEntry(b[12:])
	le.PutUint32(d.inode(), parent)
	f.setRecLen(d, end-12)
	d.nameLen()[0] = 2
	d.fileType()[0] = f.ft(ftDir)
	b[20], b[21] = '.', '.'
	return b
}

// mkdir is ext2fs_mkdir2 for a directory without inline data: the inode
// (ino, or a new one in parent's group), its block, and the entry in
// parent (expanding it when full).
func (f *fsys) mkdir(parent, ino uint32, name string) (uint32, error) {
	if f.inline && (ino == 0 || ino >= firstIno) {
		return f.mkdirInline(parent, ino, name)
	}
	var err error
	if ino == 0 {
		if ino, err = f.newInode(parent); err != nil {
			return 0, err
		}
	}
	blk, err := f.newBlock(f.findInodeGoal(ino, nil))
	if err != nil {
		return 0, err
	}
	p := parent
	if parent == ino {
		p = ino
	}
	f.meta[blk] = f.newDirBlock(ino, p)
	f.dirOwner[blk] = ino
	n := f.newInodeRecord(ino)
	le.PutUint16(n.iMode(), sIFDIR|0o755)
	if name == "lost+found" && parent == rootIno {
		le.PutUint16(n.iMode(), sIFDIR|0o700)
	}
	if parent != ino {
		f.io.ri(parent)
	}
	f.io.wiFull(ino)
	if f.csum && !f.extents {
		// the block's checksum reads the new inode (its generation),
		// which the buffer holds: it is cached without a read (with
		// extents, the extent insert's reads do the same)
		f.io.ri(ino)
	}
	f.io.w(blk)
	if err := f.mapFirst(ino, n, blk); err != nil {
		return 0, err
	}
	le.PutUint32(n.iSizeLo(), uint32(f.g.bs))
	f.addIBlocks(n, 1)
	le.PutUint16(n.iLinksCount(), 2)
	f.mark(blk)
	return ino, f.linkNewDir(parent, name, ino)
}

// linkNewDir ends ext2fs_mkdir: the new folder ino's allocation counted,
// its entry name in parent (none for the root), and the parent's link
// count raised.
func (f *fsys) linkNewDir(parent uint32, name string, ino uint32) error {
	f.inodeAllocStats(ino, true)
	if name != "" {
		f.lookupIO(parent, "")
		if err := f.link(parent, name, ino, ftDir, true); err != nil {
			return err
		}
	}
	if parent != ino {
		pn := f.inodes[parent]
		le.PutUint16(pn.iLinksCount(), le.Uint16(pn.iLinksCount())+1)
		f.io.ri(parent)
		f.io.wi(parent)
	}
	return nil
}

// mapFirst maps a new inode's logical block 0 to blk: the first extent
// of its tree with extents, else i_block[0].
func (f *fsys) mapFirst(ino uint32, n inode, blk uint64) error {
	if !f.extents {
		le.PutUint32(n.iBlockWord(0), uint32(blk))
		return nil
	}
	initExtents(n)
	return f.extInsert(ino, n, 0, blk, 1)
}

// dirBlocks returns a directory's blocks in logical order.
func (f *fsys) dirBlocks(n inode) []uint64 {
	size := uint64(le.Uint32(n.iSizeLo()))
	nb := size / uint64(f.g.bs)
	out := make([]uint64, 0, nb)
	for l := uint64(0); l < nb; l++ {
		out = append(out, f.lookupBlock(n, l))
	}
	return out
}

// iterBlock is a block ext2fs_block_iterate3 reaches: a directory block,
// or an indirect block it reads before the blocks it maps.
type iterBlock struct {
	blk uint64
	ind bool
}

// iterOrder is the blocks ext2fs_block_iterate3 reaches in a directory,
// in its order: an extent tree's blocks below the inode are read as
// ext2fs_extent_get goes down to them, depth first, indirect blocks
// before the blocks they map.
func (f *fsys) iterOrder(n inode) []iterBlock {
	var out []iterBlock
	if hasExtents(n) {
		var walk func(node []byte)
		walk = func(node []byte) {
			for i := range extEntries(node) {
				e := extEntry(node, i)
				if extDepth(node) > 0 {
					blk := leafStart(e, true)
					out = append(out, iterBlock{blk: blk, ind: true})
					walk(f.meta[blk])
					continue
				}
				p := leafStart(e, false)
				for k := range uint64(le.Uint16(e[4:])) {
					out = append(out, iterBlock{blk: p + k})
				}
			}
		}
		walk(n.iBlock())
		return out
	}
	// the directory's blocks up to its size: block_iterate3 stops at
	// none of them, but a directory maps nothing past its size
	left := uint64(le.Uint32(n.iSizeLo())) / uint64(f.g.bs)
	var walk func(blk uint64, level int)
	walk = func(blk uint64, level int) {
		if blk == 0 || left == 0 {
			return
		}
		if level == 0 {
			out = append(out, iterBlock{blk: blk})
			left--
			return
		}
		out = append(out, iterBlock{blk: blk, ind: true})
		buf := f.meta[blk]
		for i := 0; i < f.g.bs/4 && left > 0; i++ {
			walk(uint64(le.Uint32(buf[4*i:])), level-1)
		}
	}
	for i := range nDirect {
		walk(iblock(n, i), 0)
	}
	walk(iblock(n, indBlock), 1)
	walk(iblock(n, dindBlock), 2)
	walk(iblock(n, tindBlock), 3)
	return out
}

// lookupBlock maps a logical block through the direct and indirect
// blocks (0 for a hole).
func (f *fsys) lookupBlock(n inode, l uint64) uint64 {
	if hasExtents(n) {
		return f.extLookup(n, l)
	}
	apb := uint64(f.g.bs / 4)
	if l < nDirect {
		return iblock(n, int(l))
	}
	l -= nDirect
	word := func(blk, i uint64) uint64 {
		if blk == 0 {
			return 0
		}
		return uint64(le.Uint32(f.meta[blk][4*i:]))
	}
	if l < apb {
		return word(iblock(n, indBlock), l)
	}
	l -= apb
	if l < apb*apb {
		return word(word(iblock(n, dindBlock), l/apb), l%apb)
	}
	l -= apb * apb
	return word(word(word(iblock(n, tindBlock), l/(apb*apb)), l/apb%apb), l%apb)
}

func dirRecLen(nameLen int) int { return (nameLen + 8 + 3) &^ 3 }

// recLen and setRecLen read and write an entry's rec_len as
// ext2fs_get_rec_len and ext2fs_set_rec_len do (recLenFromDisk).
func (f *fsys) recLen(d dirEntry) int { return recLenFromDisk(le.Uint16(d.recLen()), f.g.bs) }

func (f *fsys) setRecLen(d dirEntry, n int) {
	v := uint16(n)
	switch {
	case n < 65536:
	case n == f.g.bs && n == 65536:
		v = 65535
	case n == f.g.bs:
		v = 0
	default:
		v = uint16(n&65532 | n>>16&3)
	}
	le.PutUint16(d.recLen(), v)
}

// link is ext2fs_link for a linear directory. With appendMode (mke2fs
// -d's EXT2FS_LINK_APPEND|EXT2FS_LINK_EXPAND, which every name but a
// symbolic link's is linked with) only the directory's last block may
// take the name, and a full one gets a new block; without it (a symbolic
// link) the first entry, block by block, with room after its name (or an
// empty one large enough) takes it, and a full directory is an error.
func (f *fsys) link(dir uint32, name string, ino uint32, ft byte, appendMode bool) error {
	for {
		n := f.inodes[dir]
		f.io.ri(dir)
		if isInline(n) {
			// ext2fs_dir_iterate2 over the inline entries, with or
			// without EXT2FS_LINK_APPEND
			f.io.ri(dir)
			f.io.ri(dir)
			if f.linkInline(n, name, ino, ft) {
				f.io.wi(dir)
				return nil
			}
			if !appendMode {
				return errDirNoSpace
			}
		} else if appendMode {
			l := uint64(le.Uint32(n.iSizeLo()))/uint64(f.g.bs) - 1
			if hasExtents(n) {
				f.pathReadIO(n) // ext2fs_bmap2's goto to the last block
			} else {
				f.bmapIO(n, l)
			}
			last := f.lookupBlock(n, l)
			f.io.r(last)
			if f.linkBlock(f.meta[last], name, ino, ft) {
				f.io.w(last)
				return nil
			}
		} else {
			f.io.ri(dir) // ext2fs_dir_iterate2's check and block_iterate3
			f.io.ri(dir)
			for _, it := range f.iterOrder(n) {
				blk := it.blk
				f.io.r(blk)
				if it.ind {
					continue
				}
				if f.linkBlock(f.meta[blk], name, ino, ft) {
					f.io.w(blk)
					return nil
				}
			}
			return errDirNoSpace
		}
		if err := f.expandDir(dir); err != nil {
			return err
		}
	}
}

var errDirNoSpace = fmt.Errorf("%w: directory full", ErrOption)

// lookupIO is the I/O of ext2fs_lookup of name in dir: the directory's
// blocks read up to the one that holds the name, all of them for "" or a
// name it does not hold.
func (f *fsys) lookupIO(dir uint32, name string) {
	if f.io == nil {
		return
	}
	f.io.ri(dir)
	f.io.ri(dir)
	for _, it := range f.iterOrder(f.inodes[dir]) {
		blk := it.blk
		f.io.r(blk)
		if !it.ind && name != "" && dirBlockHolds(f.meta[blk], name, f.g.bs-f.dirTailSize(), f) {
			return
		}
	}
}

// dirBlockHolds reports whether a directory block has an entry name.
func dirBlockHolds(buf []byte, name string, end int, f *fsys) bool {
	for off := 0; off < end; {
		d := dirEntry(buf[off:])
		nl := int(d.nameLen()[0])
		if le.Uint32(d.inode()) != 0 && string(buf[off+8:off+8+nl]) == name {
			return true
		}
		rl := f.recLen(d)
		if rl == 0 {
			return false
		}
		off += rl
	}
	return false
}

// linkBlock is link_proc over one block; it reports whether the name was
// placed.
func (f *fsys) linkBlock(buf []byte, name string, ino uint32, ft byte) bool {
	bs := len(buf) - f.dirTailSize()
	return f.linkIn(buf, name, ino, ft, bs, bs, bs-8)
}

// linkIn is link_proc over the entries of buf that start before stop
// (ext2fs_process_dir_block's end), within end bytes; an empty entry
// after one that ends before absorb is merged into it.
func (f *fsys) linkIn(buf []byte, name string, ino uint32, ft byte, end, stop, absorb int) bool {
	recLen := dirRecLen(len(name))
	for off := 0; off < stop; {
		d := dirEntry(buf[off:])
		cur := f.recLen(d)
		if off+cur < absorb {
			next := dirEntry(buf[off+cur:])
			if le.Uint32(next.inode()) == 0 && off+cur+f.recLen(next) <= end {
				cur += f.recLen(next)
				f.setRecLen(d, cur)
			}
		}
		if le.Uint32(d.inode()) != 0 {
			minLen := dirRecLen(int(d.nameLen()[0]))
			if cur >= minLen+recLen {
				f.setRecLen(d, minLen)
				next := dirEntry(buf[off+minLen:])
				le.PutUint32(next.inode(), 0)
				next.nameLen()[0] = 0
				next.fileType()[0] = 0
				f.setRecLen(next, cur-minLen)
			}
			off += f.recLen(d)
			continue
		}
		if cur >= recLen {
			le.PutUint32(d.inode(), ino)
			d.nameLen()[0] = byte(len(name))
			d.fileType()[0] = f.ft(ft)
			copy(buf[off+8:], name)
			return true
		}
		off += cur
	}
	return false
}

// expandDir is ext2fs_expand_dir for a directory mapped by direct and
// single indirect blocks: one more block after its last one.
func (f *fsys) expandDir(dir uint32) error {
	n := f.inodes[dir]
	if isInline(n) {
		return f.expandInlineDir(dir, n)
	}
	size := uint64(le.Uint32(n.iSizeLo()))
	l := size / uint64(f.g.bs)
	if hasExtents(n) {
		// ext2fs_expand_dir through block_iterate3's append: the block
		// after the last one, mapped by set_bmap.
		goal := f.extLastBlock(n)
		if goal == 0 {
			goal = f.findInodeGoal(dir, n)
		}
		var b uint64
		newClusters := uint64(0)
		if l > 0 && goal>>f.g.cbits == (goal+1)>>f.g.cbits {
			b = goal + 1 // bigalloc: the next block of the last one's cluster
		} else {
			var err error
			if b, err = f.allocBlock(goal); err != nil {
				return err
			}
			newClusters = 1
		}
		f.io.ri(dir) // ext2fs_check_directory, the read, block_iterate3's
		f.io.ri(dir)
		f.firstPathIO(n) // ext2fs_find_inode_goal's goto to block 0
		f.io.ri(dir)
		for _, it := range f.iterOrder(n) {
			if it.ind {
				f.io.r(it.blk) // block_iterate3 going down the tree
			}
		}
		f.meta[b] = f.newDirBlock(0, 0)
		f.dirOwner[b] = dir
		f.io.w(b)
		f.addIBlocks(n, newClusters)
		if err := f.extAppend(dir, n, l, b, true, true); err != nil {
			return err
		}
		le.PutUint32(n.iSizeLo(), uint32(size)+uint32(f.g.bs))
		f.io.ri(dir)
		f.io.wi(dir)
		return nil
	}
	goal := f.findInodeGoal(dir, n)
	if l > 0 {
		goal = f.lookupBlock(n, l-1)
	}
	newBlocks := uint64(0)
	// block_iterate3's append order: a missing indirect block at each
	// level from the top, then the directory block, all from the same
	// goal (the last directory block).
	var fresh []uint64
	alloc := func() (uint64, error) {
		b, err := f.allocBlock(goal)
		if err == nil {
			newBlocks++
			fresh = append(fresh, b)
		}
		return b, err
	}
	slot, err := f.dirSlot(n, l, alloc)
	if err != nil {
		return err
	}
	b, err := alloc()
	if err != nil {
		return err
	}
	f.meta[b] = f.newDirBlock(0, 0)
	f.dirOwner[b] = dir
	le.PutUint32(slot, uint32(b))
	f.io.ri(dir) // ext2fs_check_directory, the read, block_iterate3's
	f.io.ri(dir)
	f.io.ri(dir)
	if f.appendIO(n, l, b, fresh[:len(fresh)-1]) {
		f.io.wi(dir) // block_iterate3: i_block changed
	}
	le.PutUint32(n.iSizeLo(), uint32(size)+uint32(f.g.bs))
	f.addIBlocks(n, newBlocks)
	f.io.ri(dir)
	f.io.wi(dir)
	return nil
}

// appendIO is the I/O of ext2fs_block_iterate3 with BLOCK_FLAG_APPEND
// that expand_dir_proc ends at logical block l, mapped to the new
// directory block b, the indirect blocks in fresh made on its way
// (zeroed with ext2fs_zero_blocks2, which punches them out of the
// file, past the cache): every indirect block before l's read, l's
// read, b written, then each indirect block an entry of which was set.
// It reports whether i_block changed (the inode is then written).
func (f *fsys) appendIO(n inode, l, b uint64, fresh []uint64) bool {
	if f.io == nil {
		return false
	}
	if l < nDirect {
		f.io.w(b)
		return true
	}
	isFresh := func(blk uint64) bool { return slices.Contains(fresh, blk) }
	apb := uint64(f.g.bs / 4)
	// full reads an indirect block of level lv and, below it, all of
	// its blocks: iterated, nothing changed.
	var full func(blk uint64, lv int)
	full = func(blk uint64, lv int) {
		f.io.r(blk)
		if lv == 1 {
			return
		}
		for i := range apb {
			full(uint64(le.Uint32(f.meta[blk][4*i:])), lv-1)
		}
	}
	// down reads the indirect block blk of level lv, the ones before
	// entry idx[0] below it in full, then goes down that entry; it
	// reports whether blk is new (so its parent is written).
	var down func(blk uint64, lv int, idx []uint64) bool
	down = func(blk uint64, lv int, idx []uint64) bool {
		f.io.r(blk)
		if lv == 1 {
			f.io.w(b)
			f.io.w(blk)
			return isFresh(blk)
		}
		for i := range idx[0] {
			full(uint64(le.Uint32(f.meta[blk][4*i:])), lv-1)
		}
		if down(uint64(le.Uint32(f.meta[blk][4*idx[0]:])), lv-1, idx[1:]) {
			f.io.w(blk)
		}
		return isFresh(blk)
	}
	l -= nDirect
	if l < apb {
		return down(iblock(n, indBlock), 1, []uint64{l})
	}
	full(iblock(n, indBlock), 1)
	l -= apb
	if l < apb*apb {
		return down(iblock(n, dindBlock), 2, []uint64{l / apb, l % apb})
	}
	full(iblock(n, dindBlock), 2)
	l -= apb * apb
	return down(iblock(n, tindBlock), 3, []uint64{l / (apb * apb), l / apb % apb, l % apb})
}

// dirSlot returns the 4 bytes that map logical block l of a block-mapped
// inode: a word of i_block or of an indirect block, making the indirect
// blocks on its way with alloc.
func (f *fsys) dirSlot(n inode, l uint64, alloc func() (uint64, error)) ([]byte, error) {
	apb := uint64(f.g.bs / 4)
	if l < nDirect {
		return n.iBlockWord(int(l)), nil
	}
	// ensure returns the block a word names, made zero when missing.
	ensure := func(word []byte) (uint64, error) {
		if b := uint64(le.Uint32(word)); b != 0 {
			return b, nil
		}
		b, err := alloc()
		if err != nil {
			return 0, err
		}
		f.meta[b] = make([]byte, f.g.bs)
		le.PutUint32(word, uint32(b))
		return b, nil
	}
	l -= nDirect
	top, levels := indBlock, 1
	switch {
	case l < apb:
	case l-apb < apb*apb:
		l -= apb
		top, levels = dindBlock, 2
	default:
		l -= apb + apb*apb
		top, levels = tindBlock, 3
	}
	blk, err := ensure(n.iBlockWord(top))
	if err != nil {
		return nil, err
	}
	for lv := levels - 1; lv > 0; lv-- {
		span := uint64(1)
		for range lv {
			span *= apb
		}
		if blk, err = ensure(f.meta[blk][4*(l/span%apb):][:4]); err != nil {
			return nil, err
		}
	}
	return f.meta[blk][4*(l%apb):][:4], nil
}

// mapData is ext2fs_bmap2 with BMAP_ALLOC for logical block l of a file:
// through its extent tree (the block after logical block l-1's, else the
// first free block of the file system, then set_bmap) or its block map.
func (f *fsys) mapData(ino uint32, n inode, l uint64) (uint64, error) {
	if !hasExtents(n) {
		f.bmapIO(n, l) // load_buffer's lookup
		return f.mapBlock(ino, n, l)
	}
	if b, ok := f.growLast(ino, n, l); ok {
		return b, nil
	}
	// load_buffer's lookup, then extent_bmap's goto to l
	f.pathReadIO(n)
	f.pathReadIO(n)
	if b, ok := f.impliedCluster(n, l); ok {
		// bigalloc: l's logical cluster has a block, so l takes its
		// place in that block's physical cluster, with no allocation
		if err := f.extAppend(ino, n, l, b, true, false); err != nil {
			return 0, err
		}
		f.io.ri(ino)
		f.io.wi(ino)
		return b, nil
	}
	var goal uint64
	if e := f.lastExtent(n); l > 0 && e != nil && uint64(le.Uint32(e))+uint64(le.Uint16(e[4:])) == l {
		goal = leafStart(e, false) + l - 1 - uint64(le.Uint32(e)) // l-1 ends the last extent
	} else if l > 0 {
		goal = f.extLookup(n, l-1)
	}
	f.pathReadIO(n) // extent_bmap's goto to l-1
	b, err := f.allocBlock(goal)
	if err != nil {
		return 0, err
	}
	f.io.w(b) // ext2fs_alloc_block3 zeroes it through the cache
	f.addIBlocks(n, 1)
	b += l & f.g.cmask() // bigalloc: l's place in its cluster
	if err := f.extAppend(ino, n, l, b, true, false); err != nil {
		return 0, err
	}
	f.io.ri(ino) // extent_bmap reads the inode back, ext2fs_bmap2 writes it
	f.io.wi(ino)
	return b, nil
}

// growLast is mapData of a file's next block in its most common case,
// made without the walks that find it is that case: logical block l
// right after the last extent of a tree that lies in the inode, and the
// block after that extent's end free. The goal (l-1's block) is taken,
// so ext2fs_alloc_block finds the block after it; ext2fs_extent_set_bmap
// grows the extent over it. Its I/O is mapData's: the gotos read no tree
// block. It reports false, changing nothing, in any other case.
func (f *fsys) growLast(ino uint32, n inode, l uint64) (uint64, bool) {
	if !hasExtents(n) {
		return 0, false
	}
	b, room := f.growRoom(n, l)
	if room == 0 {
		return 0, false
	}
	f.growBy(n, l, b, 1)
	f.io.steadyCalls(b, ino)
	return b, true
}

// growRoom reports where and by how many blocks (none: it cannot) a
// file's data could go on from logical block l as mapData would place
// each of them, block after block, with no other allocation between:
// with extents, growLast's case (the last extent, in the inode, grown);
// without, the words after l-1's in i_block or in an indirect block that
// is there, each taking the block after the one before (ext2fs_bmap2's
// goal), when the I/O model is off (the indirect blocks' I/O is not
// modelled here). It changes nothing.
func (f *fsys) growRoom(n inode, l uint64) (uint64, uint64) {
	if f.g.cbits != 0 || l == 0 {
		return 0, 0
	}
	if !hasExtents(n) {
		return f.mappedRoom(n, l)
	}
	if extDepth(n.iBlock()) != 0 {
		return 0, 0
	}
	e := f.lastExtent(n)
	if e == nil {
		return 0, 0
	}
	start, length := uint64(le.Uint32(e)), uint64(le.Uint16(e[4:]))
	b := leafStart(e, false) + length
	if l != start+length || length >= extInitMaxLen-1 || b >= f.g.blocks {
		return 0, 0
	}
	return b, f.bmap.clearRun(b, min(extInitMaxLen-1-length, f.g.blocks-b))
}

// mappedRoom is growRoom of a file without extents.
func (f *fsys) mappedRoom(n inode, l uint64) (uint64, uint64) {
	words, i := f.mappedWords(n, l)
	if f.io != nil || words == nil || i == 0 {
		return 0, 0
	}
	prev := uint64(le.Uint32(words[4*(i-1):]))
	b := prev + 1
	if prev == 0 || b >= f.g.blocks {
		return 0, 0
	}
	room := f.bmap.clearRun(b, min(uint64(len(words)/4)-i, f.g.blocks-b))
	for k := range room {
		if le.Uint32(words[4*(i+k):]) != 0 {
			return b, k // mapped already: mapBlock's to find
		}
	}
	return b, room
}

// mappedWords returns the words that map logical block l of a file
// without extents and the ones after it in the same place (i_block's
// direct words, or an indirect block), and l's index among them: nil
// when an indirect block on the way is not there yet.
func (f *fsys) mappedWords(n inode, l uint64) ([]byte, uint64) {
	if l < nDirect {
		return n.iBlock()[:4*nDirect], l
	}
	apb := uint64(f.g.bs / 4)
	levels := 3
	switch r := l - nDirect; {
	case r < apb:
		levels = 1
	case r-apb < apb*apb:
		levels = 2
	}
	path := f.indPath(n, l)
	if len(path) != levels {
		return nil, 0
	}
	return f.meta[path[levels-1]], (l - nDirect) % apb
}

// growBy places logical blocks l to l+k-1 of a file in the k blocks from
// b that growRoom found room for: k of mapData's allocations at once,
// without their I/O, which the caller records (copyWrites.tookSteady).
func (f *fsys) growBy(n inode, l, b, k uint64) {
	f.bmap.extend(b, b+k)
	f.addIBlocks(n, k)
	if !hasExtents(n) {
		words, i := f.mappedWords(n, l)
		for j := range k {
			le.PutUint32(words[4*(i+j):], uint32(b+j))
		}
		return
	}
	e := f.lastExtent(n)
	le.PutUint16(e[4:], le.Uint16(e[4:])+uint16(k))
}

// impliedCluster is bmap.c's implied_cluster_alloc: with bigalloc, the
// physical block of logical block l when another block of its logical
// cluster is mapped (looked up in order, each a goto).
func (f *fsys) impliedCluster(n inode, l uint64) (uint64, bool) {
	if f.g.cbits == 0 {
		return 0, false
	}
	base := l &^ f.g.cmask()
	for i := uint64(0); i < f.g.ratio(); i++ {
		if base+i == l {
			continue
		}
		f.pathReadIO(n)
		if p := f.extLookup(n, base+i); p != 0 {
			return p - i + (l - base), true
		}
	}
	return 0, false
}

// indPath is the indirect blocks ext2fs_bmap2 reads to map logical block
// l of a block-mapped inode without allocating (load_buffer's lookup):
// from the top one down, up to the first missing one.
func (f *fsys) indPath(n inode, l uint64) []uint64 {
	apb := uint64(f.g.bs / 4)
	if l < nDirect {
		return nil
	}
	l -= nDirect
	top, idx := indBlock, []uint64{l}
	switch {
	case l < apb:
	case l-apb < apb*apb:
		l -= apb
		top, idx = dindBlock, []uint64{l / apb, l % apb}
	default:
		l -= apb + apb*apb
		top, idx = tindBlock, []uint64{l / (apb * apb), l / apb % apb, l % apb}
	}
	var out []uint64
	blk := iblock(n, top)
	for _, i := range idx {
		if blk == 0 {
			break
		}
		out = append(out, blk)
		blk = uint64(le.Uint32(f.meta[blk][4*i:]))
	}
	return out
}

// indirectGap reports whether the blocks [from, to) of a file without
// extents are indirect blocks on the way to its logical block l, which
// ext2fs_bmap2 allocated just before l's own: metadata of the file that
// lies between two of its data runs, complete once the file is.
func (f *fsys) indirectGap(n inode, l, from, to uint64) bool {
	if hasExtents(n) || to <= from || to-from > 3 {
		return false
	}
	path := f.indPath(n, l)
	for b := from; b < to; b++ {
		if !slices.Contains(path, b) {
			return false
		}
	}
	return true
}

// bmapIO is the reads of ext2fs_bmap2 without BMAP_ALLOC of logical
// block l: the indirect blocks on its way (none with extents, whose
// lookups the callers make).
func (f *fsys) bmapIO(n inode, l uint64) {
	if f.io == nil || hasExtents(n) {
		return
	}
	for _, b := range f.indPath(n, l) {
		f.io.r(b)
	}
}

// mapBlock is ext2fs_bmap2 with BMAP_ALLOC for a file without extents:
// the physical block of logical block l, allocated (with the indirect
// blocks on its way) when missing, with bmap.c's goals. Its I/O is
// bmap.c's: each block allocated zeroed through the cache
// (ext2fs_alloc_block3), each indirect block on the way read, and
// written when an entry of it was set (block_ind_bmap), then the inode
// written.
func (f *fsys) mapBlock(ino uint32, n inode, l uint64) (uint64, error) {
	apb := uint64(f.g.bs / 4)
	alloc := 0
	defer func() {
		f.addIBlocks(n, uint64(alloc))
		if alloc > 0 {
			f.io.wi(ino)
		}
	}()
	// ind resolves entry i of the indirect block blk, allocating it
	// with the goal of the entry before it (or blk itself).
	ind := func(blk, i uint64) (uint64, error) {
		f.io.r(blk)
		buf := f.meta[blk]
		if b := uint64(le.Uint32(buf[4*i:])); b != 0 {
			return b, nil
		}
		goal := blk
		if i > 0 {
			goal = uint64(le.Uint32(buf[4*(i-1):]))
		}
		b, err := f.allocBlock(goal)
		if err != nil {
			return 0, err
		}
		alloc++
		f.io.w(b)
		le.PutUint32(buf[4*i:], uint32(b))
		f.io.w(blk)
		return b, nil
	}
	// top returns i_block[slot], allocating it with the goal of
	// i_block[slot-1].
	top := func(slot int) (uint64, error) {
		if b := iblock(n, slot); b != 0 {
			return b, nil
		}
		b, err := f.allocBlock(iblock(n, slot-1))
		if err != nil {
			return 0, err
		}
		alloc++
		f.io.w(b)
		f.meta[b] = make([]byte, f.g.bs)
		le.PutUint32(n.iBlockWord(slot), uint32(b))
		return b, nil
	}
	// sub allocates an indirect block as an entry of blk.
	sub := func(blk, i uint64) (uint64, error) {
		had := le.Uint32(f.meta[blk][4*i:]) != 0
		b, err := ind(blk, i)
		if err == nil && !had {
			f.meta[b] = make([]byte, f.g.bs)
		}
		return b, err
	}
	if l < nDirect {
		if b := iblock(n, int(l)); b != 0 {
			return b, nil
		}
		goal := f.findInodeGoal(ino, n)
		if l > 0 {
			goal = iblock(n, int(l)-1)
		}
		b, err := f.allocBlock(goal)
		if err != nil {
			return 0, err
		}
		alloc++
		f.io.w(b)
		le.PutUint32(n.iBlockWord(int(l)), uint32(b))
		return b, nil
	}
	l -= nDirect
	if l < apb {
		ib, err := top(indBlock)
		if err != nil {
			return 0, err
		}
		return ind(ib, l)
	}
	l -= apb
	if l < apb*apb {
		db, err := top(dindBlock)
		if err != nil {
			return 0, err
		}
		ib, err := sub(db, l/apb)
		if err != nil {
			return 0, err
		}
		return ind(ib, l%apb)
	}
	l -= apb * apb
	tb, err := top(tindBlock)
	if err != nil {
		return 0, err
	}
	db, err := sub(tb, l/(apb*apb))
	if err != nil {
		return 0, err
	}
	ib, err := sub(db, l/apb%apb)
	if err != nil {
		return 0, err
	}
	return ind(ib, l%apb)
}
