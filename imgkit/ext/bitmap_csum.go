package ext

import (
	"fmt"
	"slices"
)

// Bitmap checksums (metadata_csum): bg_block_bitmap_csum_lo/hi is the
// crc32c, seeded with the file system's seed, of the first
// clusters-per-group/8 bytes of the group's block bitmap, and
// bg_inode_bitmap_csum_lo/hi of the first s_inodes_per_group/8 bytes of
// its inode bitmap, as ext4_block_bitmap_csum_set and
// ext4_inode_bitmap_csum_set compute them; with descriptors shorter than
// the _hi fields' end only the low 16 bits are kept. A group whose
// bitmap is not initialized (EXT4_BG_BLOCK_UNINIT, EXT4_BG_INODE_UNINIT)
// has nothing to check.

const (
	// EXT4_BG_INODE_UNINIT and EXT4_BG_BLOCK_UNINIT, as the reader
	// tests them (the writer has its own names for the flags it sets).
	bgFlagInodeUninit = 0x1
	bgFlagBlockUninit = 0x2

	bgBlockBitmapCsumHiEnd = 0x3a // EXT4_BG_BLOCK_BITMAP_CSUM_HI_END
	bgInodeBitmapCsumHiEnd = 0x3c // EXT4_BG_INODE_BITMAP_CSUM_HI_END
)

// maxBitmapRun bounds the bytes of adjacent bitmaps read at once.
const maxBitmapRun = 1 << 20

// A bitmapRef is one group's block or inode bitmap.
type bitmapRef struct {
	group int
	inode bool // the inode bitmap, else the block bitmap
	blk   uint64
}

// name is how warnings and Fields name the bitmap.
func (r bitmapRef) name() string {
	if r.inode {
		return "inode bitmap"
	}
	return "block bitmap"
}

// eachBitmap reads the block and inode bitmaps of every group that lie
// inside the image and calls fn with each (a block's bytes, valid during
// the call). Bitmaps in adjacent blocks, as flex_bg packs them, are read
// together, up to maxBitmapRun bytes a read, so that a file system of
// thousands of groups takes a read per run, not per bitmap.
func (f *FS) eachBitmap(fn func(r bitmapRef, b []byte)) error {
	g := &f.g
	var refs []bitmapRef
	for i, gd := range f.gdt {
		for _, r := range []bitmapRef{
			{i, false, gd.lohi(groupDesc.bgBlockBitmapLo, groupDesc.bgBlockBitmapHi)},
			{i, true, gd.lohi(groupDesc.bgInodeBitmapLo, groupDesc.bgInodeBitmapHi)},
		} {
			if r.blk != 0 && r.blk < g.blocks && int64(r.blk+1)*g.bsize <= f.size {
				refs = append(refs, r)
			}
		}
	}
	slices.SortStableFunc(refs, func(a, b bitmapRef) int {
		switch {
		case a.blk < b.blk:
			return -1
		case a.blk > b.blk:
			return 1
		}
		return 0
	})
	per := max(1, int(maxBitmapRun/g.bsize))
	var buf []byte
	for i := 0; i < len(refs); {
		// A run: refs[i:j] whose blocks follow each other (a block
		// named twice is read once).
		j := i + 1
		for j < len(refs) && refs[j].blk-refs[i].blk < uint64(per) && refs[j].blk <= refs[j-1].blk+1 {
			j++
		}
		n := int64(refs[j-1].blk-refs[i].blk+1) * g.bsize
		if int64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		b := buf[:n]
		if err := f.readAt(b, int64(refs[i].blk)*g.bsize); err != nil {
			return fmt.Errorf("ext: reading bitmaps at block %d: %w", refs[i].blk, err)
		}
		for _, r := range refs[i:j] {
			fn(r, b[int64(r.blk-refs[i].blk)*g.bsize:][:g.bsize])
		}
		i = j
	}
	return nil
}

// bitmapCsum returns the checksum the descriptor of r's group holds for
// the bitmap and the one its bytes b give; ok is false when there is
// nothing to check (no metadata_csum, or the bitmap not initialized).
func (f *FS) bitmapCsum(r bitmapRef, b []byte) (got, want uint32, ok bool) {
	if !f.hasRoCompat(roCompatMetadataCsum) {
		return 0, 0, false
	}
	gd := f.gdt[r.group]
	flags := le.Uint16(gd.bgFlags())
	var lo, hi []byte
	var n uint64
	var hiEnd int
	if r.inode {
		if flags&bgFlagInodeUninit != 0 {
			return 0, 0, false
		}
		lo, n, hiEnd = gd.bgInodeBitmapCsumLo(), f.g.ipg/8, bgInodeBitmapCsumHiEnd
		if len(gd) >= hiEnd {
			hi = gd.bgInodeBitmapCsumHi()
		}
	} else {
		if flags&bgFlagBlockUninit != 0 {
			return 0, 0, false
		}
		lo, n, hiEnd = gd.bgBlockBitmapCsumLo(), f.clustersPerGroup()/8, bgBlockBitmapCsumHiEnd
		if len(gd) >= hiEnd {
			hi = gd.bgBlockBitmapCsumHi()
		}
	}
	want = crc32c(f.csumSeed, b[:min(n, uint64(len(b)))])
	got = uint32(le.Uint16(lo))
	if hi != nil {
		got |= uint32(le.Uint16(hi)) << 16
	} else {
		want &= 0xffff
	}
	return got, want, true
}

// clustersPerGroup is s_clusters_per_group with bigalloc, else
// s_blocks_per_group (a cluster is a block).
func (f *FS) clustersPerGroup() uint64 {
	if f.hasRoCompat(roCompatBigalloc) {
		return uint64(le.Uint32(f.sb.sClustersPerGroup()))
	}
	return f.g.bpg
}

// checkBitmaps verifies the checksums of every group's bitmaps, once,
// each mismatch a warning; a bitmap that cannot be read is a warning too.
func (f *FS) checkBitmaps() {
	f.bitmapsChecked.Do(func() {
		if !f.hasRoCompat(roCompatMetadataCsum) {
			return
		}
		err := f.eachBitmap(func(r bitmapRef, b []byte) {
			if got, want, ok := f.bitmapCsum(r, b); ok && got != want {
				f.warn(fmt.Sprintf("group descriptor %d at byte %#x: %s checksum %#x, computed %#x (bitmap at block %d)", r.group, f.descOff(uint64(r.group)), r.name(), got, want, r.blk))
			}
		})
		if err != nil {
			f.warn(err.Error())
		}
	})
}
