package ext

import (
	"encoding/binary"
	"hash/crc32"
	"sync"
)

// Checksums of the metadata_csum feature (crc32c, Castagnoli) and of the
// older gdt_csum feature (crc16), as e2fsprogs' lib/ext2fs/csum.c and the
// kernel compute them. The reader verifies them and reports a mismatch as
// a warning, never as an error: an image with a bad checksum still reads.

// castagnoli is crc32c's table, made on first use: making it (hash/crc32
// fills its SSE4.2 tables too) cost every run of the binary at its start.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// crc32c continues the raw crc32c crc over p, without the inversions
// before and after that hash/crc32 applies: the form ext2fs_crc32c_le
// and the kernel's ext4_chksum have, seeded with ~0 for the superblock
// and with the file system's seed elsewhere.
func crc32c(crc uint32, p []byte) uint32 { return ^crc32.Update(^crc, castagnoli(), p) }

// crc32cU32 continues crc over the little-endian bytes of v.
func crc32cU32(crc, v uint32) uint32 {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	return crc32c(crc, b[:])
}

// crc16Table is the table of CRC-16 with polynomial 0x8005 in its
// reflected form, as ext2fs_crc16 uses it for gdt_csum.
var crc16Table = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ 0xa001
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return t
}()

// crc16 continues crc over p.
func crc16(crc uint16, p []byte) uint16 {
	for _, b := range p {
		crc = crc>>8 ^ crc16Table[byte(crc)^b]
	}
	return crc
}

// superblockCsum is s_checksum's value for s.
func superblockCsum(s *superblock) uint32 {
	return crc32c(^uint32(0), s[:fieldOff(s[:], s.sChecksum())])
}

// groupDescCsum is bg_checksum's value for descriptor g of group group.
func (f *FS) groupDescCsum(group uint32, g groupDesc) uint16 {
	if f.hasRoCompat(roCompatMetadataCsum) {
		return groupDescCsum32(f.csumSeed, group, g)
	}
	return groupDescCsum16(f.sb.sUUID(), group, g)
}

// inodeCsum is the checksum of inode n, number ino: the 32 bits whose
// low half is l_i_checksum_lo and high half i_checksum_hi (where the
// inode has it).
func (f *FS) inodeCsum(ino uint32, n inode) uint32 { return inodeCsumOf(f.csumSeed, ino, n) }

// groupDescCsum16 is bg_checksum with gdt_csum (uninit_bg): the crc16
// of the UUID, the group number and the descriptor without bg_checksum.
func groupDescCsum16(uuid []byte, group uint32, g groupDesc) uint16 {
	at := int(fieldOff(g, g.bgChecksum()))
	c := crc16(0xffff, uuid)
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], group)
	c = crc16(c, b[:])
	c = crc16(c, g[:at])
	if len(g) > at+2 {
		c = crc16(c, g[at+2:])
	}
	return c
}

// groupDescCsum32 is bg_checksum with metadata_csum: the low 16 bits of
// the crc32c of the seed, the group number and the descriptor with
// bg_checksum zero.
func groupDescCsum32(seed, group uint32, g groupDesc) uint16 {
	at := int(fieldOff(g, g.bgChecksum()))
	c := crc32cU32(seed, group)
	c = crc32c(c, g[:at])
	c = crc32c(c, []byte{0, 0})
	c = crc32c(c, g[at+2:])
	return uint16(c)
}

// setInodeCsum stores inode n's checksum in l_i_checksum_lo and, where
// the inode has it, i_checksum_hi.
func setInodeCsum(seed, ino uint32, n inode) {
	c := inodeCsumOf(seed, ino, n)
	le.PutUint16(n.lIChecksumLo(), uint16(c))
	if n.hasChecksumHi() {
		le.PutUint16(n.iChecksumHi(), uint16(c>>16))
	}
}

// inodeCsumOf is inode n's checksum with the file system's seed.
func inodeCsumOf(seed, ino uint32, n inode) uint32 {
	lo := int(fieldOff(n, n.lIChecksumLo()))
	c := crc32cU32(seed, ino)
	c = crc32c(c, n.iGeneration())
	c = crc32c(c, n[:lo])
	c = crc32c(c, []byte{0, 0})
	if !n.hasChecksumHi() {
		c = crc32c(c, n[lo+2:])
		return c & 0xffff
	}
	hi := int(fieldOff(n, n.iChecksumHi()))
	c = crc32c(c, n[lo+2:hi])
	c = crc32c(c, []byte{0, 0})
	return crc32c(c, n[hi+2:])
}

// inodeSeed is the seed of the checksums of an inode's extent and
// directory blocks: the file system's seed over the inode number and
// i_generation.
func (f *FS) inodeSeed(ino, gen uint32) uint32 { return inodeSeedOf(f.csumSeed, ino, gen) }

// inodeSeedOf is the seed of an inode's blocks' checksums given the file
// system's seed.
func inodeSeedOf(seed, ino, gen uint32) uint32 { return crc32cU32(crc32cU32(seed, ino), gen) }
