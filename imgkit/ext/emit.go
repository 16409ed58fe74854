package ext

import (
	"io"
	"maps"
	"slices"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// This file writes the laid-out file system as ext2fs_close does: the
// bitmaps, the inode tables, the metadata and data blocks, and the
// superblock and descriptors in group 0 and in each backup group.

// groupState is what ext2fs_close writes of a group besides its tables'
// locations: free counts, flags and bitmap checksums.
type groupState struct {
	freeBlocks, freeInodes uint32
	flags                  uint16
	itableUnused           uint32
	bbmCsum, ibmCsum       uint32
}

// Group descriptor flags (EXT2_BG_*).
const (
	bgInodeUninit = 0x1
	bgBlockUninit = 0x2
	bgInodeZeroed = 0x4
)

// write fills im.
func (w *writer) write(im *bcache.Image) error {
	base := w.o.Offset // -E offset: where the file system starts in the image
	g, f := w.g, w.f
	bs := int64(g.bs)
	put := func(blk uint64, b []byte) error {
		_, err := im.WriteAt(b, base+int64(blk)*bs)
		return err
	}
	seed := w.csumSeed()
	states := make([]groupState, g.groups)
	bmBuf, ibmBuf := make([]byte, g.bs), make([]byte, g.bs) // reused: WriteAt copies them
	var totalFreeB uint64
	var totalFreeI uint32
	for i := uint32(0); i < g.groups; i++ {
		st := &states[i]
		bm, used := w.blockBitmap(i, st, bmBuf)
		totalFreeB += uint64(st.freeBlocks) << g.cbits
		// A group that holds no superblock copy keeps the BLOCK_UNINIT
		// ext2fs_initialize gave it until a block of it is allocated
		// (its own bitmaps and inode table do not count without flex_bg,
		// where ext2fs_allocate_group_table does not clear the flag), and
		// its bitmap is not written (write_bitmaps skips it).
		if g.logFlex == 0 {
			used -= w.tableClusters(i)
		}
		if f.groupCsum && used == 0 && i != g.groups-1 && !g.hasSuper(i) {
			st.flags |= bgBlockUninit
		} else {
			if f.csum {
				st.bbmCsum = crc32c(seed, bm[:g.cpg()/8])
			}
			if err := put(f.bbmLoc[i], bm); err != nil {
				return err
			}
			f.io.w(f.bbmLoc[i]) // write_bitmaps
		}
		ibm, lastUsed := w.inodeBitmap(i, st, ibmBuf)
		totalFreeI += st.freeInodes
		if f.groupCsum && lastUsed == 0 {
			st.flags |= bgInodeUninit
			st.itableUnused = g.ipg
			continue
		}
		if f.groupCsum {
			if i == 0 {
				lastUsed = max(lastUsed, firstIno)
			}
			st.itableUnused = g.ipg - lastUsed
		}
		if f.csum {
			st.ibmCsum = crc32c(seed, ibm[:(g.ipg+7)/8])
		}
		if err := put(f.ibmLoc[i], ibm); err != nil {
			return err
		}
		f.io.w(f.ibmLoc[i])
	}
	f.io.close()
	if f.csum {
		w.setBlockCsums(seed)
	}
	// inodes and metadata blocks in the order of their numbers, those
	// that follow each other in one write
	runs := runWriter{im: im, buf: w.spare[:0]}
	for _, ino := range slices.Sorted(maps.Keys(f.inodes)) {
		n := f.inodes[ino]
		if f.csum {
			setInodeCsum(seed, ino, n)
		}
		grp := (ino - 1) / g.ipg
		idx := uint64((ino - 1) % g.ipg)
		off := int64(f.itLoc[grp])*bs + int64(idx)*int64(g.inodeSize)
		if err := runs.put(base+off, n); err != nil {
			return err
		}
	}
	for _, blk := range slices.Sorted(maps.Keys(f.meta)) {
		if w.metaDone[blk] {
			continue // written with its file's data
		}
		if err := runs.put(base+int64(blk)*bs, f.meta[blk]); err != nil {
			return err
		}
	}
	if err := runs.flush(); err != nil {
		return err
	}
	if w.im == nil { // else the layout wrote the files' data
		if err := w.writeData(im); err != nil {
			return err
		}
	}
	gdt := w.descriptors(states, seed)
	sb := w.superblock(totalFreeB, totalFreeI)
	if f.csum {
		le.PutUint32(sb.sChecksum(), superblockCsum(&sb))
	}
	if _, err := im.WriteAt(sb[:], base+superblockOff); err != nil {
		return err
	}
	for _, grp := range g.backups() {
		bk := sb
		le.PutUint16(bk.sBlockGroupNr(), uint16(min(grp, 65535)))
		le.PutUint16(bk.sState(), 0)
		if f.csum {
			le.PutUint32(bk.sChecksum(), superblockCsum(&bk))
		}
		if err := put(g.groupFirst(uint64(grp)), bk[:]); err != nil {
			return err
		}
	}
	// the descriptors, in every group that holds a copy: the whole table,
	// or with meta_bg the meta group's block
	for i := uint32(0); i < g.groups; i++ {
		blk, ok := g.descBlock(i)
		if !ok {
			continue
		}
		b := gdt
		if g.metaBg {
			b = gdt[uint64(i)/g.descPerBlock()*uint64(g.bs):][:g.bs]
		}
		if err := put(blk, b); err != nil {
			return err
		}
	}
	return nil
}

// blockBitmap is group i's block bitmap as write_bitmaps writes it
// (padded with ones past the group and past the last block), with its
// free count set in st; used counts the used blocks of the group.
func (w *writer) blockBitmap(i uint32, st *groupState, buf []byte) (bm []byte, used uint64) {
	g, f := w.g, w.f
	first, last := g.groupFirst(uint64(i)), g.groupLast(uint64(i))
	bm = buf
	cpg := g.cpg()
	if g.cbits == 0 {
		f.bmap.chunkBytes(uint64(i), bm[:cpg/8])
	} else {
		// a bit per cluster: the block bitmap's runs are whole clusters
		clear(bm[:cpg/8])
		for c := first >> g.cbits; c <= last>>g.cbits; c++ {
			if f.used(c << g.cbits) {
				j := c - first>>g.cbits
				bm[j/8] |= 1 << (j % 8)
			}
		}
	}
	for j := range bm[cpg/8:] {
		bm[cpg/8+uint64(j)] = 0xff
	}
	used = f.usedIn(first, last+1) >> g.cbits
	st.freeBlocks = uint32((last+1-first)>>g.cbits - used)
	if i == g.groups-1 {
		if nbits := (g.blocks - g.firstData) % g.bpg >> g.cbits; nbits != 0 {
			for j := nbits; j < uint64(g.bs)*8; j++ {
				bm[j/8] |= 1 << (j % 8)
			}
		}
	}
	return bm, used
}

// tableClusters counts the clusters (blocks without bigalloc) of group
// i that its own bitmaps and inode table take.
func (w *writer) tableClusters(i uint32) uint64 {
	g, f := w.g, w.f
	if g.cbits == 0 {
		return 2 + g.itbPerGroup
	}
	seen := map[uint64]bool{}
	for _, r := range [][2]uint64{{f.bbmLoc[i], 1}, {f.ibmLoc[i], 1}, {f.itLoc[i], g.itbPerGroup}} {
		for b := r[0]; b < r[0]+r[1]; b++ {
			if g.groupOfBlock(b) == uint64(i) {
				seen[b>>g.cbits] = true
			}
		}
	}
	return uint64(len(seen))
}

// inodeBitmap is group i's inode bitmap, padded with ones, with its free
// count set in st; lastUsed is the group's highest used inode, counted
// from 1 (0 for none).
func (w *writer) inodeBitmap(i uint32, st *groupState, buf []byte) (ibm []byte, lastUsed uint32) {
	g, f := w.g, w.f
	ibm = buf
	f.imap.chunkBytes(uint64(i), ibm[:(g.ipg+7)/8])
	for j := range ibm[(g.ipg+7)/8:] {
		ibm[(g.ipg+7)/8+uint32(j)] = 0xff
	}
	first := uint64(i)*uint64(g.ipg) + 1
	end := first + uint64(g.ipg)
	st.freeInodes = g.ipg - uint32(f.imap.count(first, end))
	if l, ok := f.imap.last(first, end); ok {
		lastUsed = uint32(l-first) + 1
	}
	return ibm, lastUsed
}

// descriptors is the group descriptor table.
func (w *writer) descriptors(states []groupState, seed uint32) []byte {
	g, f := w.g, w.f
	gdt := make([]byte, g.descBlocks*uint64(g.bs))
	for i := uint32(0); i < g.groups; i++ {
		st := &states[i]
		d := groupDesc(gdt[int(i)*g.descSize:][:g.descSize])
		put32 := func(lo, hi func() []byte, v uint64) {
			le.PutUint32(lo(), uint32(v))
			if d.wide() {
				le.PutUint32(hi(), uint32(v>>32))
			}
		}
		put16 := func(lo, hi func() []byte, v uint32) {
			le.PutUint16(lo(), uint16(v))
			if d.wide() {
				le.PutUint16(hi(), uint16(v>>16))
			}
		}
		put32(d.bgBlockBitmapLo, d.bgBlockBitmapHi, f.bbmLoc[i])
		put32(d.bgInodeBitmapLo, d.bgInodeBitmapHi, f.ibmLoc[i])
		put32(d.bgInodeTableLo, d.bgInodeTableHi, f.itLoc[i])
		put16(d.bgFreeBlocksCountLo, d.bgFreeBlocksCountHi, st.freeBlocks)
		put16(d.bgFreeInodesCountLo, d.bgFreeInodesCountHi, st.freeInodes)
		put16(d.bgUsedDirsCountLo, d.bgUsedDirsCountHi, f.dirs[i])
		if f.groupCsum {
			if w.o.ZeroedInodeTables {
				st.flags |= bgInodeZeroed
			}
			le.PutUint16(d.bgFlags(), st.flags)
			put16(d.bgItableUnusedLo, d.bgItableUnusedHi, st.itableUnused)
		} else if w.o.ZeroedInodeTables {
			// write_inode_tables flags a zeroed table with or without
			// group checksums (ext2 and ext3 too)
			le.PutUint16(d.bgFlags(), bgInodeZeroed)
		}
		if f.csum {
			put16(d.bgBlockBitmapCsumLo, d.bgBlockBitmapCsumHi, st.bbmCsum)
			put16(d.bgInodeBitmapCsumLo, d.bgInodeBitmapCsumHi, st.ibmCsum)
			le.PutUint16(d.bgChecksum(), groupDescCsum32(seed, i, d))
		} else if f.groupCsum {
			le.PutUint16(d.bgChecksum(), groupDescCsum16(w.uuid[:], i, d))
		}
	}
	return gdt
}

// csumSeed is the metadata_csum seed: s_checksum_seed, the crc32c of the
// UUID that metadata_csum_seed keeps in the superblock.
func (w *writer) csumSeed() uint32 { return crc32c(^uint32(0), w.uuid[:]) }

// setBlockCsums fills the checksum tails of directory, extent tree and
// orphan file blocks.
func (w *writer) setBlockCsums(seed uint32) {
	f, bs := w.f, w.g.bs
	for blk, ino := range f.dirOwner {
		b := f.meta[blk]
		le.PutUint32(b[bs-4:], crc32c(inodeSeedOf(seed, ino, 0), b[:bs-dirTailLen]))
	}
	for blk, ino := range f.extOwner {
		b := f.meta[blk]
		end := extHeaderSize + extentEntrySize*extMax(b)
		le.PutUint32(b[end:], crc32c(inodeSeedOf(seed, ino, 0), b[:end]))
	}
	for _, blk := range f.xattrBlocks {
		b := f.meta[blk]
		var nb [8]byte
		le.PutUint64(nb[:], blk)
		le.PutUint32(xattrHeader(b).hChecksum(), crc32c(crc32c(seed, nb[:]), b))
	}
	for _, blk := range f.orphan {
		b := f.meta[blk]
		c := crc32cU32(crc32cU32(seed, w.orphanIno), 0)
		var nb [8]byte
		le.PutUint64(nb[:], blk)
		c = crc32c(crc32c(c, nb[:]), b[:bs-8])
		le.PutUint32(b[bs-4:], c)
	}
}

// superblock is the primary superblock.
func (w *writer) superblock(freeBlocks uint64, freeInodes uint32) superblock {
	g, f := w.g, w.f
	var s superblock
	le.PutUint32(s.sInodesCount(), g.inodes)
	le.PutUint32(s.sBlocksCountLo(), uint32(g.blocks))
	le.PutUint32(s.sRBlocksCountLo(), uint32(g.rBlocks))
	le.PutUint32(s.sFreeBlocksCountLo(), uint32(freeBlocks))
	if w.ft.bit64 {
		le.PutUint32(s.sBlocksCountHi(), uint32(g.blocks>>32))
		le.PutUint32(s.sRBlocksCountHi(), uint32(g.rBlocks>>32))
		le.PutUint32(s.sFreeBlocksCountHi(), uint32(freeBlocks>>32))
	}
	le.PutUint32(s.sFreeInodesCount(), freeInodes)
	le.PutUint32(s.sFirstDataBlock(), uint32(g.firstData))
	le.PutUint32(s.sLogBlockSize(), g.logBS)
	le.PutUint32(s.sLogClusterSize(), g.logBS+g.cbits)
	le.PutUint32(s.sBlocksPerGroup(), uint32(g.bpg))
	le.PutUint32(s.sClustersPerGroup(), uint32(g.cpg()))
	le.PutUint32(s.sInodesPerGroup(), g.ipg)
	le.PutUint32(s.sWtime(), f.now)
	le.PutUint16(s.sMaxMntCount(), 0xffff)
	le.PutUint16(s.sMagic(), superMagic)
	le.PutUint16(s.sState(), 1)
	le.PutUint16(s.sErrors(), uint16(max(w.o.Errors, 1)))
	le.PutUint32(s.sLastcheck(), f.now)
	le.PutUint32(s.sRevLevel(), 1)
	le.PutUint32(s.sFirstIno(), firstIno)
	le.PutUint16(s.sInodeSize(), uint16(g.inodeSize))
	compat := uint32(0)
	if w.ft.extAttr {
		compat |= compatExtAttr
	}
	if w.ft.dirIndex {
		compat |= compatDirIndex
	}
	if w.hasJournal {
		compat |= compatHasJournal
		le.PutUint32(s.sJournalInum(), journalIno)
		copy(s.sJnlBlocks(), w.jnlBlocks[:])
		s.sJnlBackupType()[0] = jnlBackupBlocks
	}
	// resize_inode is among the features even when no GDT block is
	// reserved (a one-group file system whose largest growth needs no
	// more descriptor blocks), as mke2fs keeps it.
	if !g.noResize {
		compat |= compatResizeInode
	}
	incompat, roCompat := uint32(0), uint32(0)
	if w.orphanIno != 0 {
		compat |= compatOrphanFile
	}
	le.PutUint32(s.sOrphanFileInum(), w.orphanIno)
	le.PutUint32(s.sUsrQuotaInum(), w.quotaIno[usrQuota])
	le.PutUint32(s.sGrpQuotaInum(), w.quotaIno[grpQuota])
	le.PutUint32(s.sPrjQuotaInum(), w.quotaIno[prjQuota])
	ft := w.ft
	for _, b := range []struct {
		on   bool
		word *uint32
		bit  uint32
	}{
		{ft.filetype, &incompat, incompatFiletype},
		{g.metaBg, &incompat, incompatMetaBG},
		{ft.sparse, &roCompat, roCompatSparseSuper},
		{ft.sparse2, &compat, compatSparseSuper2},
		{ft.encrypt, &incompat, incompatEncrypt},
		{ft.casefold, &incompat, incompatCasefold},
		{ft.inline, &incompat, incompatInlineData},
		// ext2fs_inode_size_set turns large_file on for a regular file
		// of 2 GiB or more (the resize inode of 4 KiB blocks is one)
		{ft.largeFile || w.hasLargeFile(), &roCompat, roCompatLargeFile},
		{ft.extents, &incompat, incompatExtents},
		{ft.bit64, &incompat, incompat64bit},
		{ft.flex, &incompat, incompatFlexBG},
		{ft.csumSeed, &incompat, incompatCsumSeed},
		{ft.hugeFile, &roCompat, roCompatHugeFile},
		{ft.gdtCsum, &roCompat, roCompatGdtCsum},
		{ft.dirNlink, &roCompat, roCompatDirNlink},
		{ft.extraIsize, &roCompat, roCompatExtraIsize},
		{ft.csum, &roCompat, roCompatMetadataCsum},
		{ft.quota, &roCompat, roCompatQuota},
		{ft.project, &roCompat, roCompatProject},
		{ft.bigalloc, &roCompat, roCompatBigalloc},
	} {
		if b.on {
			*b.word |= b.bit
		}
	}
	if ft.bit64 {
		le.PutUint16(s.sDescSize(), uint16(g.descSize))
	}
	if ft.encrypt {
		// EXT4_ENCRYPTION_MODE_AES_256_XTS for contents, _CTS for names
		s.sEncryptAlgos()[0], s.sEncryptAlgos()[1] = 1, 4
	}
	if ft.casefold {
		le.PutUint16(s.sEncoding(), 1) // EXT4_ENC_UTF8_12_1, default flags 0
	}
	if g.sparse2 {
		le.PutUint32(s.sBackupBgs()[0:], g.backupBgs[0])
		le.PutUint32(s.sBackupBgs()[4:], g.backupBgs[1])
	}
	if ft.flex {
		s.sLogGroupsPerFlex()[0] = byte(g.logFlex)
	}
	if ft.csum {
		s.sChecksumType()[0] = 1 // crc32c
	}
	if ft.csumSeed {
		le.PutUint32(s.sChecksumSeed(), w.csumSeed())
	}
	if ft.kbytesStart() {
		le.PutUint64(s.sKbytesWritten(), w.kbytesWritten())
	}
	le.PutUint32(s.sFeatureCompat(), compat)
	le.PutUint32(s.sFeatureIncompat(), incompat)
	le.PutUint32(s.sFeatureRoCompat(), roCompat)
	copy(s.sUUID(), w.uuid[:])
	copy(s.sVolumeName(), w.o.Label)
	copy(s.sLastMounted(), w.o.LastMounted)
	le.PutUint16(s.sRaidStride(), uint16(w.o.Stride))
	le.PutUint32(s.sRaidStripeWidth(), w.o.StripeWidth)
	le.PutUint16(s.sReservedGdtBlocks(), uint16(g.rsvGDT))
	copy(s.sHashSeed(), w.hashSeed[:])
	s.sDefHashVersion()[0] = 1                  // half_md4
	le.PutUint32(s.sDefaultMountOpts(), 0x000c) // user_xattr, acl
	le.PutUint32(s.sMkfsTime(), f.now)
	if g.inodeSize >= goodOldInodeSize+largeExtra {
		le.PutUint16(s.sMinExtraIsize(), largeExtra)
		le.PutUint16(s.sWantExtraIsize(), largeExtra)
	}
	le.PutUint32(s.sFlags(), 1) // signed_directory_hash
	le.PutUint32(s.sOverheadClusters(), uint32(w.overhead))
	return s
}

// runWriter writes byte ranges given in increasing order, those that
// follow each other gathered into one write of up to runWriterMax
// bytes: the inode table's records and the metadata blocks, which are
// thousands of writes of a few hundred bytes or a block each.
type runWriter struct {
	im  *bcache.Image
	off int64 // where buf goes
	buf []byte
}

// runWriterMax is the most a runWriter gathers before it writes: a data
// chunk, whose buffer it takes over once the files are written.
const runWriterMax = readChunk

// put queues b at the image's byte off, writing what was queued before
// when b does not follow it.
func (r *runWriter) put(off int64, b []byte) error {
	if len(r.buf) > 0 && r.off+int64(len(r.buf)) == off && len(r.buf)+len(b) <= runWriterMax {
		r.buf = append(r.buf, b...)
		return nil
	}
	if err := r.flush(); err != nil {
		return err
	}
	r.off, r.buf = off, append(r.buf, b...)
	return nil
}

// flush writes what is queued.
func (r *runWriter) flush() error {
	if len(r.buf) == 0 {
		return nil
	}
	_, err := r.im.WriteAt(r.buf, r.off)
	r.buf = r.buf[:0]
	return err
}

// writeData copies the files' blocks that are not all zeros, a run of
// blocks that follow each other in a file and on disk at a time, through
// the block cache's batch copy.
func (w *writer) writeData(im *bcache.Image) error {
	bs := int64(w.g.bs)
	batch := make([]bcache.FileCopy, 0, len(w.f.data))
	for _, r := range w.f.data {
		node := w.files[r.file]
		n := min(int64(r.blocks)*bs, node.Size-r.off)
		fc := bcache.FileCopy{Off: w.o.Offset + int64(r.phys)*bs, N: n, SrcOff: r.off, Pad: (bs - n%bs) % bs, Path: node.SourcePath}
		if node.SourcePath == "" {
			fc.Open = func() (io.ReadCloser, error) { return node.Open() }
		}
		batch = append(batch, fc)
	}
	if i, err := im.CopyFiles(batch); err != nil {
		if i < 0 {
			return err
		}
		return w.nodeErr(w.files[w.f.data[i].file], err)
	}
	return nil
}

// hasLargeFile reports a regular file of 2 GiB or more
// (ext2fs_needs_large_file_feature).
func (w *writer) hasLargeFile() bool {
	for _, n := range w.f.inodes {
		size := uint64(le.Uint32(n.iSizeLo())) | uint64(le.Uint32(n.iSizeHigh()))<<32
		if le.Uint16(n.iMode())&sIFMT == sIFREG && size >= 1<<31 {
			return true
		}
	}
	return false
}

// kbytesWritten is s_kbytes_written: 1 (what mke2fs starts it at when a
// feature of ext4 is on), plus the blocks the writer wrote (bitmaps,
// inode table blocks holding inodes, metadata and data blocks) and the
// descriptor blocks and superblock, in KiB. mke2fs counts what its I/O
// cache happened to flush before ext2fs_close instead, which no layout
// rule gives (DETAILS.md, "s_kbytes_written").
func (w *writer) kbytesWritten() uint64 {
	g, f := w.g, w.f
	if f.io != nil {
		// what the I/O channel wrote before ext2fs_close's flush
		return 1 + uint64(f.io.atClose>>10) + (g.descBlocks+1)/uint64(g.bs/1024)
	}
	blocks := uint64(len(f.meta))
	for _, r := range f.data {
		blocks += r.blocks
	}
	itb := map[uint64]bool{}
	for ino := range f.inodes {
		grp := (ino - 1) / g.ipg
		itb[f.itLoc[grp]+uint64((ino-1)%g.ipg)*uint64(g.inodeSize)/uint64(g.bs)] = true
	}
	blocks += uint64(len(itb)) + 2*uint64(g.groups) + g.descBlocks + 1
	return 1 + blocks*uint64(g.bs)/1024
}
