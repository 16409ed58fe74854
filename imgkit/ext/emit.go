package ext

import (
	"fmt"
	"io"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// This file writes the laid-out file system as ext2fs_close does: the
// bitmaps, the inode tables, the metadata and data blocks, and the
// superblock and descriptors in group 0 and in each backup group.

// write fills im.
func (w *writer) write(im *bcache.Image) error {
	g, f := w.g, w.f
	bs := int64(g.bs)
	put := func(blk uint64, b []byte) error {
		_, err := im.WriteAt(b, int64(blk)*bs)
		return err
	}
	freeBlocks := make([]uint32, g.groups)
	freeInodes := make([]uint32, g.groups)
	var totalFreeB uint64
	var totalFreeI uint32
	for i := uint32(0); i < g.groups; i++ {
		first, last := g.groupFirst(uint64(i)), g.groupLast(uint64(i))
		bm := make([]byte, g.bs)
		for j := range bm[g.bpg/8:] {
			bm[g.bpg/8+uint64(j)] = 0xff
		}
		for b := first; b < first+g.bpg; b++ {
			if b > last {
				bm[(b-first)/8] |= 1 << ((b - first) % 8)
				continue
			}
			if f.used(b) {
				bm[(b-first)/8] |= 1 << ((b - first) % 8)
			} else {
				freeBlocks[i]++
			}
		}
		if i == g.groups-1 {
			if nbits := (g.blocks - g.firstData) % g.bpg; nbits != 0 {
				for j := nbits; j < uint64(g.bs)*8; j++ {
					bm[j/8] |= 1 << (j % 8)
				}
			}
		}
		totalFreeB += uint64(freeBlocks[i])
		if err := put(f.bbmLoc[i], bm); err != nil {
			return err
		}
		im8 := make([]byte, g.bs)
		for j := range im8[(g.ipg+7)/8:] {
			im8[(g.ipg+7)/8+uint32(j)] = 0xff
		}
		for j := uint32(0); j < g.ipg; j++ {
			if testBit(f.imap, uint64(i*g.ipg+j+1)) {
				im8[j/8] |= 1 << (j % 8)
			} else {
				freeInodes[i]++
			}
		}
		totalFreeI += freeInodes[i]
		if err := put(f.ibmLoc[i], im8); err != nil {
			return err
		}
	}
	for ino, n := range f.inodes {
		grp := (ino - 1) / g.ipg
		idx := uint64((ino - 1) % g.ipg)
		off := int64(f.itLoc[grp])*bs + int64(idx)*int64(g.inodeSize)
		if _, err := im.WriteAt(n, off); err != nil {
			return err
		}
	}
	for blk, b := range f.meta {
		if err := put(blk, b); err != nil {
			return err
		}
	}
	if err := w.writeData(im); err != nil {
		return err
	}
	// Descriptors.
	gdt := make([]byte, g.descBlocks*uint64(g.bs))
	for i := uint32(0); i < g.groups; i++ {
		d := groupDesc(gdt[i*descSize:][:descSize])
		le.PutUint32(d.bgBlockBitmapLo(), uint32(f.bbmLoc[i]))
		le.PutUint32(d.bgInodeBitmapLo(), uint32(f.ibmLoc[i]))
		le.PutUint32(d.bgInodeTableLo(), uint32(f.itLoc[i]))
		le.PutUint16(d.bgFreeBlocksCountLo(), uint16(freeBlocks[i]))
		le.PutUint16(d.bgFreeInodesCountLo(), uint16(freeInodes[i]))
		le.PutUint16(d.bgUsedDirsCountLo(), uint16(f.dirs[i]))
	}
	sb := w.superblock(totalFreeB, totalFreeI)
	if _, err := im.WriteAt(sb[:], superblockOff); err != nil {
		return err
	}
	if err := put(g.firstData+1, gdt); err != nil {
		return err
	}
	for _, grp := range g.backups() {
		blk := g.groupFirst(uint64(grp))
		bk := sb
		le.PutUint16(bk.sBlockGroupNr(), uint16(min(grp, 65535)))
		le.PutUint16(bk.sState(), 0)
		if err := put(blk, bk[:]); err != nil {
			return err
		}
		if err := put(blk+1, gdt); err != nil {
			return err
		}
	}
	return nil
}

// superblock is the primary superblock.
func (w *writer) superblock(freeBlocks uint64, freeInodes uint32) superblock {
	g, f := w.g, w.f
	var s superblock
	le.PutUint32(s.sInodesCount(), g.inodes)
	le.PutUint32(s.sBlocksCountLo(), uint32(g.blocks))
	le.PutUint32(s.sRBlocksCountLo(), uint32(g.rBlocks))
	le.PutUint32(s.sFreeBlocksCountLo(), uint32(freeBlocks))
	le.PutUint32(s.sFreeInodesCount(), freeInodes)
	le.PutUint32(s.sFirstDataBlock(), uint32(g.firstData))
	le.PutUint32(s.sLogBlockSize(), g.logBS)
	le.PutUint32(s.sLogClusterSize(), g.logBS)
	le.PutUint32(s.sBlocksPerGroup(), uint32(g.bpg))
	le.PutUint32(s.sClustersPerGroup(), uint32(g.bpg))
	le.PutUint32(s.sInodesPerGroup(), g.ipg)
	le.PutUint32(s.sWtime(), f.now)
	le.PutUint16(s.sMaxMntCount(), 0xffff)
	le.PutUint16(s.sMagic(), superMagic)
	le.PutUint16(s.sState(), 1)
	le.PutUint16(s.sErrors(), 1)
	le.PutUint32(s.sLastcheck(), f.now)
	le.PutUint32(s.sRevLevel(), 1)
	le.PutUint32(s.sFirstIno(), firstIno)
	le.PutUint16(s.sInodeSize(), uint16(g.inodeSize))
	compat := uint32(compatExtAttr | compatDirIndex)
	if w.o.Type == "ext3" {
		compat |= compatHasJournal
		le.PutUint32(s.sJournalInum(), journalIno)
		copy(s.sJnlBlocks(), w.jnlBlocks[:])
		s.sJnlBackupType()[0] = jnlBackupBlocks
	}
	// resize_inode is among the features even when no GDT block is
	// reserved (a one-group file system whose largest growth needs no
	// more descriptor blocks), as mke2fs keeps it.
	compat |= compatResizeInode
	le.PutUint32(s.sFeatureCompat(), compat)
	le.PutUint32(s.sFeatureIncompat(), incompatFiletype)
	le.PutUint32(s.sFeatureRoCompat(), roCompatSparseSuper|roCompatLargeFile)
	copy(s.sUUID(), w.uuid[:])
	copy(s.sVolumeName(), w.o.Label)
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

// writeData copies the files' blocks that are not all zeros.
func (w *writer) writeData(im *bcache.Image) error {
	bs := int64(w.g.bs)
	buf := make([]byte, bs)
	i := 0
	for i < len(w.f.data) {
		fi := w.f.data[i].file
		node := w.files[fi]
		r, err := node.Open()
		if err != nil {
			return w.nodeErr(node, err)
		}
		var pos int64
		for ; i < len(w.f.data) && w.f.data[i].file == fi; i++ {
			d := w.f.data[i]
			if d.off > pos {
				if _, err := io.CopyN(io.Discard, r, d.off-pos); err != nil {
					r.Close()
					return w.nodeErr(node, err)
				}
			}
			n := min(bs, node.Size-d.off)
			if _, err := io.ReadFull(r, buf[:n]); err != nil {
				r.Close()
				return w.nodeErr(node, fmt.Errorf("reading: %w", err))
			}
			clear(buf[n:])
			if _, err := im.WriteAt(buf[:n], int64(d.phys)*bs); err != nil {
				r.Close()
				return err
			}
			pos = d.off + n
		}
		r.Close()
	}
	return nil
}
