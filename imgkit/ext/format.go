package ext

import (
	"encoding/binary"
	"errors"
)

// This file holds the on-disk layout of ext2, ext3 and ext4 as the
// kernel's fs/ext4/ext4.h and e2fsprogs' lib/ext2fs/ext2_fs.h and
// ext3_extents.h define it. Records are byte arrays with one accessor
// per field, named after the C field (s_inodes_count → sInodesCount) so
// that a search for the spec name finds them; where the two headers
// spell a field differently the kernel's name is used (s_blocks_count_lo,
// bg_block_bitmap_lo, i_size_lo). Every multi-byte field is
// little-endian.

// Sentinel errors. Errors returned by this package wrap one of these so
// that callers can test for a class of failure with errors.Is.
var (
	// ErrFormat reports a malformed or unsupported ext2/3/4 image.
	ErrFormat = errors.New("ext: malformed image")
)

var le = binary.LittleEndian

// Sizes, limits and magic numbers.
const (
	superblockOff  = 1024   // the primary superblock's byte offset, whatever the block size
	superblockSize = 1024   // sizeof(struct ext4_super_block)
	superMagic     = 0xef53 // EXT4_SUPER_MAGIC
	minBlockLog    = 10     // EXT4_MIN_BLOCK_LOG_SIZE: 1024-byte blocks
	maxBlockLog    = 16     // EXT4_MAX_BLOCK_LOG_SIZE: 65536-byte blocks

	goodOldRev       = 0   // EXT4_GOOD_OLD_REV
	goodOldInodeSize = 128 // EXT4_GOOD_OLD_INODE_SIZE
	goodOldFirstIno  = 11  // EXT4_GOOD_OLD_FIRST_INO
	minDescSize      = 32  // EXT4_MIN_DESC_SIZE
	minDescSize64bit = 64  // EXT4_MIN_DESC_SIZE_64BIT
	maxDescSize      = 1024

	rootIno = 2 // EXT4_ROOT_INO

	nBlocks  = 15 // EXT4_N_BLOCKS: words of i_block
	nDirect  = 12 // EXT4_NDIR_BLOCKS
	iBlockSz = nBlocks * 4

	extentMagic    = 0xf30a // EXT4_EXT_MAGIC
	extentMaxDepth = 5      // EXT4_MAX_EXTENT_DEPTH
	extentInitMax  = 32768  // EXT_INIT_MAX_LEN: longer ee_len marks an unwritten extent

	dirEntryHeader = 8    // bytes of ext4_dir_entry_2 before the name
	maxNameLen     = 255  // EXT4_NAME_LEN
	dirTailFT      = 0xde // EXT4_FT_DIR_CSUM: file_type of a block's checksum tail
	dirTailSize    = 12   // sizeof(struct ext4_dir_entry_tail)

	xattrMagic      = 0xea020000 // EXT4_XATTR_MAGIC
	xattrIndexSys   = 7          // EXT4_XATTR_INDEX_SYSTEM
	xattrEntryFixed = 16         // bytes of ext4_xattr_entry before the name
)

// Feature flags of s_feature_compat, s_feature_incompat and
// s_feature_ro_compat (EXT4_FEATURE_*).
const (
	compatHasJournal   = 0x0004
	compatExtAttr      = 0x0008
	compatResizeInode  = 0x0010
	compatDirIndex     = 0x0020
	compatSparseSuper2 = 0x0200
	compatOrphanFile   = 0x1000

	roCompatSparseSuper  = 0x0001
	roCompatLargeFile    = 0x0002
	roCompatHugeFile     = 0x0008
	roCompatGdtCsum      = 0x0010
	roCompatDirNlink     = 0x0020
	roCompatExtraIsize   = 0x0040
	roCompatQuota        = 0x0100
	roCompatBigalloc     = 0x0200
	roCompatMetadataCsum = 0x0400
	roCompatProject      = 0x2000

	incompatCompression = 0x0001
	incompatFiletype    = 0x0002
	incompatRecover     = 0x0004
	incompatJournalDev  = 0x0008
	incompatMetaBG      = 0x0010
	incompatExtents     = 0x0040
	incompat64bit       = 0x0080
	incompatFlexBG      = 0x0200
	incompatEAInode     = 0x0400
	incompatDirdata     = 0x1000
	incompatCsumSeed    = 0x2000
	incompatInlineData  = 0x8000
	incompatEncrypt     = 0x10000
	incompatCasefold    = 0x20000
)

// Inode flags of i_flags (EXT4_*_FL).
const (
	indexFL      = 0x00001000 // EXT4_INDEX_FL: hash-indexed directory
	hugeFileFL   = 0x00040000 // EXT4_HUGE_FILE_FL: i_blocks counts file system blocks
	extentsFL    = 0x00080000 // EXT4_EXTENTS_FL
	eaInodeFL    = 0x00200000 // EXT4_EA_INODE_FL
	inlineDataFL = 0x10000000 // EXT4_INLINE_DATA_FL
)

// File types of i_mode (S_IFMT bits) and of file_type in a directory entry
// (EXT4_FT_*).
const (
	sIFMT   = 0o170000
	sIFIFO  = 0o010000
	sIFCHR  = 0o020000
	sIFDIR  = 0o040000
	sIFBLK  = 0o060000
	sIFREG  = 0o100000
	sIFLNK  = 0o120000
	sIFSOCK = 0o140000

	ftUnknown = 0
	ftRegFile = 1
	ftDir     = 2
	ftChrdev  = 3
	ftBlkdev  = 4
	ftFifo    = 5
	ftSock    = 6
	ftSymlink = 7
)

// superblock is struct ext4_super_block (ext4.h), the 1024 bytes at byte
// 1024 of the image and at the start of each backup group.
type superblock [superblockSize]byte

func (s *superblock) sInodesCount() []byte          { return s[0x0:][:4] }
func (s *superblock) sBlocksCountLo() []byte        { return s[0x4:][:4] }
func (s *superblock) sRBlocksCountLo() []byte       { return s[0x8:][:4] }
func (s *superblock) sFreeBlocksCountLo() []byte    { return s[0xc:][:4] }
func (s *superblock) sFreeInodesCount() []byte      { return s[0x10:][:4] }
func (s *superblock) sFirstDataBlock() []byte       { return s[0x14:][:4] }
func (s *superblock) sLogBlockSize() []byte         { return s[0x18:][:4] }
func (s *superblock) sLogClusterSize() []byte       { return s[0x1c:][:4] }
func (s *superblock) sBlocksPerGroup() []byte       { return s[0x20:][:4] }
func (s *superblock) sClustersPerGroup() []byte     { return s[0x24:][:4] }
func (s *superblock) sInodesPerGroup() []byte       { return s[0x28:][:4] }
func (s *superblock) sMtime() []byte                { return s[0x2c:][:4] }
func (s *superblock) sWtime() []byte                { return s[0x30:][:4] }
func (s *superblock) sMntCount() []byte             { return s[0x34:][:2] }
func (s *superblock) sMaxMntCount() []byte          { return s[0x36:][:2] }
func (s *superblock) sMagic() []byte                { return s[0x38:][:2] }
func (s *superblock) sState() []byte                { return s[0x3a:][:2] }
func (s *superblock) sErrors() []byte               { return s[0x3c:][:2] }
func (s *superblock) sMinorRevLevel() []byte        { return s[0x3e:][:2] }
func (s *superblock) sLastcheck() []byte            { return s[0x40:][:4] }
func (s *superblock) sCheckinterval() []byte        { return s[0x44:][:4] }
func (s *superblock) sCreatorOs() []byte            { return s[0x48:][:4] }
func (s *superblock) sRevLevel() []byte             { return s[0x4c:][:4] }
func (s *superblock) sDefResuid() []byte            { return s[0x50:][:2] }
func (s *superblock) sDefResgid() []byte            { return s[0x52:][:2] }
func (s *superblock) sFirstIno() []byte             { return s[0x54:][:4] }
func (s *superblock) sInodeSize() []byte            { return s[0x58:][:2] }
func (s *superblock) sBlockGroupNr() []byte         { return s[0x5a:][:2] }
func (s *superblock) sFeatureCompat() []byte        { return s[0x5c:][:4] }
func (s *superblock) sFeatureIncompat() []byte      { return s[0x60:][:4] }
func (s *superblock) sFeatureRoCompat() []byte      { return s[0x64:][:4] }
func (s *superblock) sUUID() []byte                 { return s[0x68:][:16] }
func (s *superblock) sVolumeName() []byte           { return s[0x78:][:16] }
func (s *superblock) sLastMounted() []byte          { return s[0x88:][:64] }
func (s *superblock) sAlgorithmUsageBitmap() []byte { return s[0xc8:][:4] }
func (s *superblock) sPreallocBlocks() []byte       { return s[0xcc:][:1] }
func (s *superblock) sPreallocDirBlocks() []byte    { return s[0xcd:][:1] }
func (s *superblock) sReservedGdtBlocks() []byte    { return s[0xce:][:2] }
func (s *superblock) sJournalUUID() []byte          { return s[0xd0:][:16] }
func (s *superblock) sJournalInum() []byte          { return s[0xe0:][:4] }
func (s *superblock) sJournalDev() []byte           { return s[0xe4:][:4] }
func (s *superblock) sLastOrphan() []byte           { return s[0xe8:][:4] }
func (s *superblock) sHashSeed() []byte             { return s[0xec:][:16] }
func (s *superblock) sDefHashVersion() []byte       { return s[0xfc:][:1] }
func (s *superblock) sJnlBackupType() []byte        { return s[0xfd:][:1] }
func (s *superblock) sDescSize() []byte             { return s[0xfe:][:2] }
func (s *superblock) sDefaultMountOpts() []byte     { return s[0x100:][:4] }
func (s *superblock) sFirstMetaBg() []byte          { return s[0x104:][:4] }
func (s *superblock) sMkfsTime() []byte             { return s[0x108:][:4] }
func (s *superblock) sJnlBlocks() []byte            { return s[0x10c:][:68] }
func (s *superblock) sBlocksCountHi() []byte        { return s[0x150:][:4] }
func (s *superblock) sRBlocksCountHi() []byte       { return s[0x154:][:4] }
func (s *superblock) sFreeBlocksCountHi() []byte    { return s[0x158:][:4] }
func (s *superblock) sMinExtraIsize() []byte        { return s[0x15c:][:2] }
func (s *superblock) sWantExtraIsize() []byte       { return s[0x15e:][:2] }
func (s *superblock) sFlags() []byte                { return s[0x160:][:4] }
func (s *superblock) sRaidStride() []byte           { return s[0x164:][:2] }
func (s *superblock) sMmpUpdateInterval() []byte    { return s[0x166:][:2] }
func (s *superblock) sMmpBlock() []byte             { return s[0x168:][:8] }
func (s *superblock) sRaidStripeWidth() []byte      { return s[0x170:][:4] }
func (s *superblock) sLogGroupsPerFlex() []byte     { return s[0x174:][:1] }
func (s *superblock) sChecksumType() []byte         { return s[0x175:][:1] }
func (s *superblock) sEncryptionLevel() []byte      { return s[0x176:][:1] }
func (s *superblock) sReservedPad() []byte          { return s[0x177:][:1] }
func (s *superblock) sKbytesWritten() []byte        { return s[0x178:][:8] }
func (s *superblock) sSnapshotInum() []byte         { return s[0x180:][:4] }
func (s *superblock) sSnapshotID() []byte           { return s[0x184:][:4] }
func (s *superblock) sSnapshotRBlocksCount() []byte { return s[0x188:][:8] }
func (s *superblock) sSnapshotList() []byte         { return s[0x190:][:4] }
func (s *superblock) sErrorCount() []byte           { return s[0x194:][:4] }
func (s *superblock) sFirstErrorTime() []byte       { return s[0x198:][:4] }
func (s *superblock) sFirstErrorIno() []byte        { return s[0x19c:][:4] }
func (s *superblock) sFirstErrorBlock() []byte      { return s[0x1a0:][:8] }
func (s *superblock) sFirstErrorFunc() []byte       { return s[0x1a8:][:32] }
func (s *superblock) sFirstErrorLine() []byte       { return s[0x1c8:][:4] }
func (s *superblock) sLastErrorTime() []byte        { return s[0x1cc:][:4] }
func (s *superblock) sLastErrorIno() []byte         { return s[0x1d0:][:4] }
func (s *superblock) sLastErrorLine() []byte        { return s[0x1d4:][:4] }
func (s *superblock) sLastErrorBlock() []byte       { return s[0x1d8:][:8] }
func (s *superblock) sLastErrorFunc() []byte        { return s[0x1e0:][:32] }
func (s *superblock) sMountOpts() []byte            { return s[0x200:][:64] }
func (s *superblock) sUsrQuotaInum() []byte         { return s[0x240:][:4] }
func (s *superblock) sGrpQuotaInum() []byte         { return s[0x244:][:4] }
func (s *superblock) sOverheadClusters() []byte     { return s[0x248:][:4] }
func (s *superblock) sBackupBgs() []byte            { return s[0x24c:][:8] }
func (s *superblock) sEncryptAlgos() []byte         { return s[0x254:][:4] }
func (s *superblock) sEncryptPwSalt() []byte        { return s[0x258:][:16] }
func (s *superblock) sLpfIno() []byte               { return s[0x268:][:4] }
func (s *superblock) sPrjQuotaInum() []byte         { return s[0x26c:][:4] }
func (s *superblock) sChecksumSeed() []byte         { return s[0x270:][:4] }
func (s *superblock) sWtimeHi() []byte              { return s[0x274:][:1] }
func (s *superblock) sMtimeHi() []byte              { return s[0x275:][:1] }
func (s *superblock) sMkfsTimeHi() []byte           { return s[0x276:][:1] }
func (s *superblock) sLastcheckHi() []byte          { return s[0x277:][:1] }
func (s *superblock) sFirstErrorTimeHi() []byte     { return s[0x278:][:1] }
func (s *superblock) sLastErrorTimeHi() []byte      { return s[0x279:][:1] }
func (s *superblock) sFirstErrorErrcode() []byte    { return s[0x27a:][:1] }
func (s *superblock) sLastErrorErrcode() []byte     { return s[0x27b:][:1] }
func (s *superblock) sEncoding() []byte             { return s[0x27c:][:2] }
func (s *superblock) sEncodingFlags() []byte        { return s[0x27e:][:2] }
func (s *superblock) sOrphanFileInum() []byte       { return s[0x280:][:4] }
func (s *superblock) sReserved() []byte             { return s[0x284:][:376] }
func (s *superblock) sChecksum() []byte             { return s[0x3fc:][:4] }

// groupDesc is struct ext4_group_desc: 32 bytes, or s_desc_size (64 or
// more) with the 64bit feature, whose _hi halves follow the first 32.
type groupDesc []byte

func (g groupDesc) bgBlockBitmapLo() []byte     { return g[0x0:][:4] }
func (g groupDesc) bgInodeBitmapLo() []byte     { return g[0x4:][:4] }
func (g groupDesc) bgInodeTableLo() []byte      { return g[0x8:][:4] }
func (g groupDesc) bgFreeBlocksCountLo() []byte { return g[0xc:][:2] }
func (g groupDesc) bgFreeInodesCountLo() []byte { return g[0xe:][:2] }
func (g groupDesc) bgUsedDirsCountLo() []byte   { return g[0x10:][:2] }
func (g groupDesc) bgFlags() []byte             { return g[0x12:][:2] }
func (g groupDesc) bgExcludeBitmapLo() []byte   { return g[0x14:][:4] }
func (g groupDesc) bgBlockBitmapCsumLo() []byte { return g[0x18:][:2] }
func (g groupDesc) bgInodeBitmapCsumLo() []byte { return g[0x1a:][:2] }
func (g groupDesc) bgItableUnusedLo() []byte    { return g[0x1c:][:2] }
func (g groupDesc) bgChecksum() []byte          { return g[0x1e:][:2] }
func (g groupDesc) bgBlockBitmapHi() []byte     { return g[0x20:][:4] }
func (g groupDesc) bgInodeBitmapHi() []byte     { return g[0x24:][:4] }
func (g groupDesc) bgInodeTableHi() []byte      { return g[0x28:][:4] }
func (g groupDesc) bgFreeBlocksCountHi() []byte { return g[0x2c:][:2] }
func (g groupDesc) bgFreeInodesCountHi() []byte { return g[0x2e:][:2] }
func (g groupDesc) bgUsedDirsCountHi() []byte   { return g[0x30:][:2] }
func (g groupDesc) bgItableUnusedHi() []byte    { return g[0x32:][:2] }
func (g groupDesc) bgExcludeBitmapHi() []byte   { return g[0x34:][:4] }
func (g groupDesc) bgBlockBitmapCsumHi() []byte { return g[0x38:][:2] }
func (g groupDesc) bgInodeBitmapCsumHi() []byte { return g[0x3a:][:2] }
func (g groupDesc) bgReserved() []byte          { return g[0x3c:][:4] }

// wide reports whether the descriptor has its _hi halves (64 bytes or
// more).
func (g groupDesc) wide() bool { return len(g) >= minDescSize64bit }

// lohi joins a field's low half with its high half when the descriptor
// has one.
func (g groupDesc) lohi(lo, hi func(groupDesc) []byte) uint64 {
	v := uintOf(lo(g))
	if g.wide() {
		v |= uintOf(hi(g)) << (8 * len(lo(g)))
	}
	return v
}

// inode is struct ext4_inode: the 128 bytes of the old format, and the
// extra fields after them up to 128+i_extra_isize in a larger inode.
type inode []byte

func (n inode) iMode() []byte         { return n[0x0:][:2] }
func (n inode) iUID() []byte          { return n[0x2:][:2] }
func (n inode) iSizeLo() []byte       { return n[0x4:][:4] }
func (n inode) iAtime() []byte        { return n[0x8:][:4] }
func (n inode) iCtime() []byte        { return n[0xc:][:4] }
func (n inode) iMtime() []byte        { return n[0x10:][:4] }
func (n inode) iDtime() []byte        { return n[0x14:][:4] }
func (n inode) iGID() []byte          { return n[0x18:][:2] }
func (n inode) iLinksCount() []byte   { return n[0x1a:][:2] }
func (n inode) iBlocksLo() []byte     { return n[0x1c:][:4] }
func (n inode) iFlags() []byte        { return n[0x20:][:4] }
func (n inode) lIVersion() []byte     { return n[0x24:][:4] }
func (n inode) iBlock() []byte        { return n[0x28:][:iBlockSz] }
func (n inode) iGeneration() []byte   { return n[0x64:][:4] }
func (n inode) iFileACLLo() []byte    { return n[0x68:][:4] }
func (n inode) iSizeHigh() []byte     { return n[0x6c:][:4] }
func (n inode) iObsoFaddr() []byte    { return n[0x70:][:4] }
func (n inode) lIBlocksHigh() []byte  { return n[0x74:][:2] }
func (n inode) lIFileACLHigh() []byte { return n[0x76:][:2] }
func (n inode) lIUIDHigh() []byte     { return n[0x78:][:2] }
func (n inode) lIGIDHigh() []byte     { return n[0x7a:][:2] }
func (n inode) lIChecksumLo() []byte  { return n[0x7c:][:2] }
func (n inode) lIReserved() []byte    { return n[0x7e:][:2] }
func (n inode) iExtraIsize() []byte   { return n[0x80:][:2] }
func (n inode) iChecksumHi() []byte   { return n[0x82:][:2] }
func (n inode) iCtimeExtra() []byte   { return n[0x84:][:4] }
func (n inode) iMtimeExtra() []byte   { return n[0x88:][:4] }
func (n inode) iAtimeExtra() []byte   { return n[0x8c:][:4] }
func (n inode) iCrtime() []byte       { return n[0x90:][:4] }
func (n inode) iCrtimeExtra() []byte  { return n[0x94:][:4] }
func (n inode) iVersionHi() []byte    { return n[0x98:][:4] }
func (n inode) iProjid() []byte       { return n[0x9c:][:4] }
func (n inode) extraEnd(off int) bool {
	return len(n) > goodOldInodeSize && goodOldInodeSize+int(le.Uint16(n.iExtraIsize())) >= off
}
func (n inode) hasChecksumHi() bool     { return n.extraEnd(0x84) }
func (n inode) hasExtraTimes() bool     { return n.extraEnd(0x90) }
func (n inode) hasCrtime() bool         { return n.extraEnd(0x98) }
func (n inode) iBlockWord(i int) []byte { return n[0x28+4*i:][:4] }

// extentHeader is struct ext4_extent_header, at the start of i_block and
// of every extent tree block.
type extentHeader []byte

func (h extentHeader) ehMagic() []byte   { return h[0:][:2] }
func (h extentHeader) ehEntries() []byte { return h[2:][:2] }
func (h extentHeader) ehMax() []byte     { return h[4:][:2] }
func (h extentHeader) ehDepth() []byte   { return h[6:][:2] }

const extentEntrySize = 12 // sizeof(struct ext4_extent), of ext4_extent_idx and of the header

// extent is struct ext4_extent, a leaf entry of an extent tree.
type extent []byte

func (e extent) eeBlock() []byte   { return e[0:][:4] }
func (e extent) eeLen() []byte     { return e[4:][:2] }
func (e extent) eeStartHi() []byte { return e[6:][:2] }
func (e extent) eeStartLo() []byte { return e[8:][:4] }

// extentIdx is struct ext4_extent_idx, an index entry of an extent tree.
type extentIdx []byte

func (e extentIdx) eiBlock() []byte  { return e[0:][:4] }
func (e extentIdx) eiLeafLo() []byte { return e[4:][:4] }
func (e extentIdx) eiLeafHi() []byte { return e[8:][:2] }

// dirEntry is struct ext4_dir_entry_2: the header of a directory entry,
// its name after it.
type dirEntry []byte

func (d dirEntry) inode() []byte    { return d[0:][:4] }
func (d dirEntry) recLen() []byte   { return d[4:][:2] }
func (d dirEntry) nameLen() []byte  { return d[6:][:1] }
func (d dirEntry) fileType() []byte { return d[7:][:1] }

// recLenFromDisk decodes rec_len as ext4_rec_len_from_disk does: for
// blocks of 65536 bytes, whose length does not fit 16 bits, 0 or 65535
// stands for the whole block and the low two bits hold bits 16 and 17.
func recLenFromDisk(v uint16, blockSize int) int {
	if blockSize < 65536 {
		return int(v)
	}
	if v == 65535 || v == 0 {
		return blockSize
	}
	return int(v&65532) | int(v&3)<<16
}

// xattrEntry is struct ext4_xattr_entry, one extended attribute's header,
// its name after it.
type xattrEntry []byte

func (x xattrEntry) eNameLen() []byte   { return x[0:][:1] }
func (x xattrEntry) eNameIndex() []byte { return x[1:][:1] }
func (x xattrEntry) eValueOffs() []byte { return x[2:][:2] }
func (x xattrEntry) eValueInum() []byte { return x[4:][:4] }
func (x xattrEntry) eValueSize() []byte { return x[8:][:4] }

// uintOf decodes a little-endian field of 1, 2, 4 or 8 bytes.
func uintOf(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(le.Uint16(b))
	case 4:
		return uint64(le.Uint32(b))
	case 8:
		return le.Uint64(b)
	}
	return 0
}

// fieldOff returns the offset of field, a subslice of rec, within rec.
func fieldOff(rec, field []byte) int64 { return int64(cap(rec) - cap(field)) }
