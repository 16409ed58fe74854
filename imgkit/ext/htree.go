package ext

import "fmt"

// The reader reads an htree (hash-indexed) directory through its leaves
// as a linear one; what it takes from the index blocks is their checksum,
// the dx_tail that metadata_csum puts after each block's dx entries. The
// layout is the kernel's fs/ext4/namei.c: the root block holds fake "."
// and ".." entries, struct dx_root_info and the count and limit of its
// entries; an interior node holds a fake entry of inode 0 spanning the
// block, then its count and limit.

const (
	dxEntrySize    = 8  // sizeof(struct dx_entry): hash, block
	dxRootInfoSize = 8  // sizeof(struct dx_root_info), its info_length
	dxRootInfoOff  = 24 // struct dx_root's info, after the 12-byte "." and ".." entries
	dxRootCountOff = dxRootInfoOff + dxRootInfoSize
	dxNodeCountOff = dirEntryHeader // struct dx_node's count and limit, after its fake entry
	dxTailSize     = 8              // sizeof(struct dx_tail): dt_reserved, dt_checksum
)

// dxCountLimit is struct dx_countlimit, which takes the place of the
// hash of an index block's first dx_entry.
type dxCountLimit []byte

func (c dxCountLimit) limit() []byte { return c[0:][:2] }
func (c dxCountLimit) count() []byte { return c[2:][:2] }

// dxTail is struct dx_tail, after an index block's limit entries.
type dxTail []byte

func (t dxTail) dtReserved() []byte { return t[0:][:4] }
func (t dxTail) dtChecksum() []byte { return t[4:][:4] }

// dxCountOffset returns where the count and limit lie in block b of an
// indexed directory, as the kernel's get_dx_countlimit tells an index
// block from a leaf: a first entry spanning the block is an interior
// node's; one of 12 bytes followed by one spanning the rest, then a
// dx_root_info with reserved_zero 0 and info_length 8, is the root's.
// It returns 0 for a leaf.
func dxCountOffset(b []byte) int {
	bs := len(b)
	e := dirEntry(b)
	switch recLenFromDisk(le.Uint16(e.recLen()), bs) {
	case bs:
		if le.Uint32(e.inode()) == 0 {
			return dxNodeCountOff
		}
	case 12:
		dd := dirEntry(b[12:])
		if recLenFromDisk(le.Uint16(dd.recLen()), bs) != bs-12 {
			return 0
		}
		info := b[dxRootInfoOff:]
		if le.Uint32(info) != 0 || info[5] != dxRootInfoSize { // reserved_zero, info_length
			return 0
		}
		return dxRootCountOff
	}
	return 0
}

// checkDxTail verifies the dx_tail of block lbn (b) of directory in, an
// index block whose count and limit are at countOff: dt_checksum is the
// crc32c, seeded by the inode's seed, of the block up to the end of its
// count entries and of dt_reserved, as ext4_dx_csum computes it. It
// returns the stored and computed values, where the tail lies in b and
// whether the block has room for one; a mismatch is a warning.
func (f *FS) checkDxTail(in *Inode, b []byte, countOff int, lbn int64) (got, want uint32, tailAt int, ok bool) {
	got, want, tailAt, ok = f.dxCsum(in, b, countOff)
	if !ok {
		f.warn(fmt.Sprintf("directory inode %d: index block %d: count and limit leave no room for a dx_tail", in.Ino, lbn))
		return 0, 0, 0, false
	}
	if got != want {
		f.warn(fmt.Sprintf("directory inode %d: index block %d: dt_checksum at byte %d of the block %#08x, computed %#08x", in.Ino, lbn, tailAt+4, got, want))
	}
	return got, want, tailAt, true
}

// dxCsum returns dt_checksum of index block b, the value it should have,
// and where the tail lies in b; ok is false when count or limit leave no
// room for a tail.
func (f *FS) dxCsum(in *Inode, b []byte, countOff int) (got, want uint32, tailAt int, ok bool) {
	if countOff+4 > len(b) {
		return 0, 0, 0, false
	}
	c := dxCountLimit(b[countOff:])
	limit, count := int(le.Uint16(c.limit())), int(le.Uint16(c.count()))
	tailAt = countOff + limit*dxEntrySize
	if tailAt+dxTailSize > len(b) || count > limit {
		return 0, 0, 0, false
	}
	t := dxTail(b[tailAt:])
	want = crc32c(f.inodeSeed(in.Ino, in.Generation), b[:countOff+count*dxEntrySize])
	want = crc32c(want, t.dtReserved())
	want = crc32c(want, []byte{0, 0, 0, 0})
	return le.Uint32(t.dtChecksum()), want, tailAt, true
}
