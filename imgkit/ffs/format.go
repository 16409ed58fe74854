package ffs

import (
	"encoding/binary"
	"errors"
	"sync"
)

// This file holds the on-disk layout of the Berkeley Fast File System as
// FreeBSD's sys/ufs/ffs/fs.h, sys/ufs/ufs/dinode.h and sys/ufs/ufs/dir.h
// define it. Records are byte arrays with one accessor per field, named
// after the C field (fs_sblkno → fsSblkno) so that a search for the spec
// name finds them. Multi-byte fields are in the byte order of the image
// (makefs -B); the accessors return the bytes and an order decodes them.

// Sentinel errors. Errors returned by this package wrap one of these so that
// callers can test for a class of failure with errors.Is.
var (
	// ErrFormat reports a malformed or unsupported FFS image.
	ErrFormat = errors.New("ffs: malformed image")
	// ErrOption reports a bad -o option name or value.
	ErrOption = errors.New("ffs: bad option")
	// ErrParams reports option values that cannot make a valid file system.
	ErrParams = errors.New("ffs: impossible parameters")
	// ErrNoSpace reports a tree that does not fit the image.
	ErrNoSpace = errors.New("ffs: no space")
	// ErrTooLarge reports a tree larger than the maximum size (Options.MaxSize
	// or Options.Size).
	ErrTooLarge = errors.New("ffs: image larger than the maximum size")
	// ErrName reports a name that a UFS directory cannot hold: longer
	// than 255 bytes, or with a '/' or NUL in it.
	ErrName = errors.New("ffs: bad name")
)

// Sizes, limits and magic numbers of fs.h, dinode.h and dir.h.
const (
	sblockUFS1 = 8192  // SBLOCK_UFS1: superblock offset of UFS1 (and of UFS2 as Debian's makefs writes it)
	sblockUFS2 = 65536 // SBLOCK_UFS2: superblock offset of UFS2
	sblockSize = 8192  // SBLOCKSIZE: bytes reserved for a superblock
	sbStructSz = 1376  // sizeof(struct fs)
	maxFrag    = 8     // MAXFRAG
	minBSize   = 4096  // MINBSIZE
	maxBSize   = 65536 // FFS_MAXBSIZE (MAXBSIZE)
	maxMntLen  = 468   // MAXMNTLEN
	maxVolLen  = 32    // MAXVOLLEN
	fsMaxSnap  = 20    // FSMAXSNAP
	fsMaxContg = 16    // FS_MAXCONTIG
	// cgSizeFudge is CGSIZEFUDGE of FreeBSD's makefs mkfs.c: the bytes a
	// cylinder group block keeps below the block size.
	cgSizeFudge = 8

	nDAddr  = 12 // UFS_NDADDR: direct blocks in an inode
	nIAddr  = 3  // UFS_NIADDR: indirect blocks in an inode
	rootIno = 2  // UFS_ROOTINO

	dinode1Size = 128 // sizeof(struct ufs1_dinode)
	dinode2Size = 256 // sizeof(struct ufs2_dinode)

	maxSymlinkLen1 = (nDAddr + nIAddr) * 4 // MAXSYMLINKLEN_UFS1: 60
	maxSymlinkLen2 = (nDAddr + nIAddr) * 8 // MAXSYMLINKLEN_UFS2: 120

	dirBlkSiz = 512   // DIRBLKSIZ
	maxNamLen = 255   // UFS_MAXNAMLEN
	linkMax   = 65500 // UFS_LINK_MAX: the most links an inode counts

	fsUFS1Magic = 0x011954   // FS_UFS1_MAGIC
	fsUFS2Magic = 0x19540119 // FS_UFS2_MAGIC
	cgMagic     = 0x090255   // CG_MAGIC

	fsOptTime  = 0 // FS_OPTTIME
	fsOptSpace = 1 // FS_OPTSPACE

	fsFlagsUpdated = 0x80 // FS_FLAGS_UPDATED in fs_old_flags
	fsIsClean      = 1    // FS_ISCLEAN in fs_clean
	fsDoSoftDep    = 0x02 // FS_DOSOFTDEP in fs_flags
	fs44InodeFmt   = 2    // FS_44INODEFMT
	fsDynPostblFmt = 1    // FS_DYNAMICPOSTBLFMT

	minFreeDefault  = 8     // MINFREE (FreeBSD)
	minFreeNetBSD   = 5     // MINFREE of NetBSD, and of Debian's makefs
	avgFileSizeDflt = 16384 // AVFILESIZ
	avgFPDirDflt    = 64    // AFPDIR
	maxPhys         = 65536 // MAXPHYS as makefs uses it for maxcontig

	cgStructSz = 176 // sizeof(struct cg) in NetBSD's fs.h: cg_space[1] padded
	cgSpaceOff = 168 // offsetof(struct cg, cg_space); sizeof(struct cg) in FreeBSD's fs.h, which has no cg_space
)

// File types of di_mode (IFMT bits) and of d_type (dir.h).
const (
	ifmt   = 0o170000
	ififo  = 0o010000
	ifchr  = 0o020000
	ifdir  = 0o040000
	ifblk  = 0o060000
	ifreg  = 0o100000
	iflnk  = 0o120000
	ifsock = 0o140000

	dtUnknown = 0
	dtFIFO    = 1
	dtChr     = 2
	dtDir     = 4
	dtBlk     = 6
	dtReg     = 8
	dtLnk     = 10
	dtSock    = 12
)

// superblock is struct fs (fs.h) as it lies in the first sbStructSz bytes of
// the SBLOCKSIZE bytes at fs_sblockloc and at every cylinder group's
// cgsblock. Field accessors follow; names map fs_xxx to fsXxx.
type superblock [sblockSize]byte

func (s *superblock) fsFirstfield() []byte      { return s[0:][:4] }
func (s *superblock) fsUnused1() []byte         { return s[4:][:4] }
func (s *superblock) fsSblkno() []byte          { return s[8:][:4] }
func (s *superblock) fsCblkno() []byte          { return s[12:][:4] }
func (s *superblock) fsIblkno() []byte          { return s[16:][:4] }
func (s *superblock) fsDblkno() []byte          { return s[20:][:4] }
func (s *superblock) fsOldCgoffset() []byte     { return s[24:][:4] }
func (s *superblock) fsOldCgmask() []byte       { return s[28:][:4] }
func (s *superblock) fsOldTime() []byte         { return s[32:][:4] }
func (s *superblock) fsOldSize() []byte         { return s[36:][:4] }
func (s *superblock) fsOldDsize() []byte        { return s[40:][:4] }
func (s *superblock) fsNcg() []byte             { return s[44:][:4] }
func (s *superblock) fsBsize() []byte           { return s[48:][:4] }
func (s *superblock) fsFsize() []byte           { return s[52:][:4] }
func (s *superblock) fsFrag() []byte            { return s[56:][:4] }
func (s *superblock) fsMinfree() []byte         { return s[60:][:4] }
func (s *superblock) fsOldRotdelay() []byte     { return s[64:][:4] }
func (s *superblock) fsOldRps() []byte          { return s[68:][:4] }
func (s *superblock) fsBmask() []byte           { return s[72:][:4] }
func (s *superblock) fsFmask() []byte           { return s[76:][:4] }
func (s *superblock) fsBshift() []byte          { return s[80:][:4] }
func (s *superblock) fsFshift() []byte          { return s[84:][:4] }
func (s *superblock) fsMaxcontig() []byte       { return s[88:][:4] }
func (s *superblock) fsMaxbpg() []byte          { return s[92:][:4] }
func (s *superblock) fsFragshift() []byte       { return s[96:][:4] }
func (s *superblock) fsFsbtodb() []byte         { return s[100:][:4] }
func (s *superblock) fsSbsize() []byte          { return s[104:][:4] }
func (s *superblock) fsNindir() []byte          { return s[116:][:4] }
func (s *superblock) fsInopb() []byte           { return s[120:][:4] }
func (s *superblock) fsOldNspf() []byte         { return s[124:][:4] }
func (s *superblock) fsOptim() []byte           { return s[128:][:4] }
func (s *superblock) fsOldNpsect() []byte       { return s[132:][:4] }
func (s *superblock) fsOldInterleave() []byte   { return s[136:][:4] }
func (s *superblock) fsOldTrackskew() []byte    { return s[140:][:4] }
func (s *superblock) fsID0() []byte             { return s[144:][:4] } // fs_id[0]
func (s *superblock) fsID1() []byte             { return s[148:][:4] } // fs_id[1]
func (s *superblock) fsOldCsaddr() []byte       { return s[152:][:4] }
func (s *superblock) fsCssize() []byte          { return s[156:][:4] }
func (s *superblock) fsCgsize() []byte          { return s[160:][:4] }
func (s *superblock) fsOldNsect() []byte        { return s[168:][:4] }
func (s *superblock) fsOldSpc() []byte          { return s[172:][:4] }
func (s *superblock) fsOldNcyl() []byte         { return s[176:][:4] }
func (s *superblock) fsOldCpg() []byte          { return s[180:][:4] }
func (s *superblock) fsIpg() []byte             { return s[184:][:4] }
func (s *superblock) fsFpg() []byte             { return s[188:][:4] }
func (s *superblock) fsOldCstotal() []byte      { return s[192:][:16] } // struct csum
func (s *superblock) fsFmod() []byte            { return s[208:][:1] }
func (s *superblock) fsClean() []byte           { return s[209:][:1] }
func (s *superblock) fsRonly() []byte           { return s[210:][:1] }
func (s *superblock) fsOldFlags() []byte        { return s[211:][:1] }
func (s *superblock) fsFsmnt() []byte           { return s[212:][:maxMntLen] }
func (s *superblock) fsVolname() []byte         { return s[680:][:maxVolLen] }
func (s *superblock) fsSwuid() []byte           { return s[712:][:8] }
func (s *superblock) fsCgrotor() []byte         { return s[724:][:4] }
func (s *superblock) fsPointers() []byte        { return s[728:][:128] } // fs_ocsp .. fs_active: in-core pointers
func (s *superblock) fsCsp() []byte             { return s[832:][:8] }
func (s *superblock) fsMaxcluster() []byte      { return s[840:][:8] }
func (s *superblock) fsOldCpc() []byte          { return s[856:][:4] }
func (s *superblock) fsMaxbsize() []byte        { return s[860:][:4] }
func (s *superblock) fsProvidersize() []byte    { return s[872:][:8] }
func (s *superblock) fsSblockloc() []byte       { return s[1000:][:8] }
func (s *superblock) fsCstotal() []byte         { return s[1008:][:64] } // struct csum_total
func (s *superblock) fsTime() []byte            { return s[1072:][:8] }
func (s *superblock) fsSize() []byte            { return s[1080:][:8] }
func (s *superblock) fsDsize() []byte           { return s[1088:][:8] }
func (s *superblock) fsCsaddr() []byte          { return s[1096:][:8] }
func (s *superblock) fsPendingblocks() []byte   { return s[1104:][:8] }
func (s *superblock) fsPendinginodes() []byte   { return s[1112:][:4] }
func (s *superblock) fsAvgfilesize() []byte     { return s[1196:][:4] }
func (s *superblock) fsAvgfpdir() []byte        { return s[1200:][:4] }
func (s *superblock) fsFlags() []byte           { return s[1312:][:4] }
func (s *superblock) fsContigsumsize() []byte   { return s[1316:][:4] }
func (s *superblock) fsMaxsymlinklen() []byte   { return s[1320:][:4] }
func (s *superblock) fsOldInodefmt() []byte     { return s[1324:][:4] }
func (s *superblock) fsMaxfilesize() []byte     { return s[1328:][:8] }
func (s *superblock) fsQbmask() []byte          { return s[1336:][:8] }
func (s *superblock) fsQfmask() []byte          { return s[1344:][:8] }
func (s *superblock) fsState() []byte           { return s[1352:][:4] }
func (s *superblock) fsOldPostblformat() []byte { return s[1356:][:4] }
func (s *superblock) fsOldNrpos() []byte        { return s[1360:][:4] }
func (s *superblock) fsMagic() []byte           { return s[1372:][:4] }

// Offsets of the fields of struct csum (cs_ndir, cs_nbfree, cs_nifree,
// cs_nffree, 4 bytes each) and struct csum_total (8 bytes each).
const (
	csumSize = 16 // sizeof(struct csum)
)

// cylGroup is struct cg (fs.h) followed by its maps: fs_cgsize bytes.
type cylGroup []byte

func (c cylGroup) cgMagic() []byte         { return c[4:][:4] }
func (c cylGroup) cgOldTime() []byte       { return c[8:][:4] }
func (c cylGroup) cgCgx() []byte           { return c[12:][:4] }
func (c cylGroup) cgOldNcyl() []byte       { return c[16:][:2] }
func (c cylGroup) cgOldNiblk() []byte      { return c[18:][:2] }
func (c cylGroup) cgNdblk() []byte         { return c[20:][:4] }
func (c cylGroup) cgCs() []byte            { return c[24:][:16] } // struct csum
func (c cylGroup) cgRotor() []byte         { return c[40:][:4] }
func (c cylGroup) cgFrotor() []byte        { return c[44:][:4] }
func (c cylGroup) cgIrotor() []byte        { return c[48:][:4] }
func (c cylGroup) cgFrsum(i int) []byte    { return c[52+4*i:][:4] } // cg_frsum[MAXFRAG]
func (c cylGroup) cgOldBtotoff() []byte    { return c[84:][:4] }
func (c cylGroup) cgOldBoff() []byte       { return c[88:][:4] }
func (c cylGroup) cgIusedoff() []byte      { return c[92:][:4] }
func (c cylGroup) cgFreeoff() []byte       { return c[96:][:4] }
func (c cylGroup) cgNextfreeoff() []byte   { return c[100:][:4] }
func (c cylGroup) cgClustersumoff() []byte { return c[104:][:4] }
func (c cylGroup) cgClusteroff() []byte    { return c[108:][:4] }
func (c cylGroup) cgNclusterblks() []byte  { return c[112:][:4] }
func (c cylGroup) cgNiblk() []byte         { return c[116:][:4] }
func (c cylGroup) cgInitediblk() []byte    { return c[120:][:4] }
func (c cylGroup) cgTime() []byte          { return c[136:][:8] }

// dinode1 is struct ufs1_dinode (dinode.h).
type dinode1 [dinode1Size]byte

func (d *dinode1) diMode() []byte      { return d[0:][:2] }
func (d *dinode1) diNlink() []byte     { return d[2:][:2] } // then di_u.oldids, never written
func (d *dinode1) diSize() []byte      { return d[8:][:8] }
func (d *dinode1) diAtime() []byte     { return d[16:][:4] }
func (d *dinode1) diAtimensec() []byte { return d[20:][:4] }
func (d *dinode1) diMtime() []byte     { return d[24:][:4] }
func (d *dinode1) diMtimensec() []byte { return d[28:][:4] }
func (d *dinode1) diCtime() []byte     { return d[32:][:4] }
func (d *dinode1) diCtimensec() []byte { return d[36:][:4] }
func (d *dinode1) diDb(i int) []byte   { return d[40+4*i:][:4] } // di_db[UFS_NDADDR]; di_rdev is di_db[0]
func (d *dinode1) diIb(i int) []byte   { return d[88+4*i:][:4] } // di_ib[UFS_NIADDR]
func (d *dinode1) diShortlink() []byte { return d[40:][:maxSymlinkLen1] }
func (d *dinode1) diFlags() []byte     { return d[100:][:4] }
func (d *dinode1) diBlocks() []byte    { return d[104:][:4] }
func (d *dinode1) diGen() []byte       { return d[108:][:4] }
func (d *dinode1) diUID() []byte       { return d[112:][:4] }
func (d *dinode1) diGID() []byte       { return d[116:][:4] }
func (d *dinode1) diModrev() []byte    { return d[120:][:8] }

// dinode2 is struct ufs2_dinode (dinode.h).
type dinode2 [dinode2Size]byte

func (d *dinode2) diMode() []byte      { return d[0:][:2] }
func (d *dinode2) diNlink() []byte     { return d[2:][:2] }
func (d *dinode2) diUID() []byte       { return d[4:][:4] }
func (d *dinode2) diGID() []byte       { return d[8:][:4] }
func (d *dinode2) diBlksize() []byte   { return d[12:][:4] }
func (d *dinode2) diSize() []byte      { return d[16:][:8] }
func (d *dinode2) diBlocks() []byte    { return d[24:][:8] }
func (d *dinode2) diAtime() []byte     { return d[32:][:8] }
func (d *dinode2) diMtime() []byte     { return d[40:][:8] }
func (d *dinode2) diCtime() []byte     { return d[48:][:8] }
func (d *dinode2) diBirthtime() []byte { return d[56:][:8] }
func (d *dinode2) diMtimensec() []byte { return d[64:][:4] }
func (d *dinode2) diAtimensec() []byte { return d[68:][:4] }
func (d *dinode2) diCtimensec() []byte { return d[72:][:4] }
func (d *dinode2) diBirthnsec() []byte { return d[76:][:4] }
func (d *dinode2) diGen() []byte       { return d[80:][:4] }
func (d *dinode2) diKernflags() []byte { return d[84:][:4] }
func (d *dinode2) diFlags() []byte     { return d[88:][:4] }
func (d *dinode2) diExtsize() []byte   { return d[92:][:4] }
func (d *dinode2) diDb(i int) []byte   { return d[112+8*i:][:8] } // di_db[UFS_NDADDR]; di_rdev is di_db[0]
func (d *dinode2) diIb(i int) []byte   { return d[208+8*i:][:8] } // di_ib[UFS_NIADDR]
func (d *dinode2) diShortlink() []byte { return d[112:][:maxSymlinkLen2] }
func (d *dinode2) diModrev() []byte    { return d[232:][:8] }
func (d *dinode2) diExtb(i int) []byte { return d[96+8*i:][:8] }
func (d *dinode1) diRdev() []byte      { return d.diDb(0) }
func (d *dinode2) diRdev() []byte      { return d.diDb(0) }
func (d *dinode2) diFreelink() []byte  { return d[240:][:4] }
func (d *dinode2) diCkhash() []byte    { return d[244:][:4] } // then di_spare[2], never written

// Fields of struct direct (dir.h): d_ino (4 bytes), d_reclen (2), d_type
// (1), d_namlen (1), then d_name, NUL-terminated and padded to 4 bytes.
const direntHeader = 8

func dIno(e []byte) []byte    { return e[0:][:4] }
func dReclen(e []byte) []byte { return e[4:][:2] }
func dType(e []byte) []byte   { return e[6:][:1] }
func dNamlen(e []byte) []byte { return e[7:][:1] }
func dName(e []byte) []byte   { return e[8:] }

// direntSize is DIRSIZ: the bytes an entry with a name of n bytes needs.
func direntSize(n int) int { return direntHeader + (n+1+3)&^3 }

// order is the byte order of an image with the accessors' helpers.
type order struct{ binary.ByteOrder }

func (o order) u16(b []byte) uint16     { return o.Uint16(b) }
func (o order) u32(b []byte) uint32     { return o.Uint32(b) }
func (o order) i32(b []byte) int32      { return int32(o.Uint32(b)) }
func (o order) u64(b []byte) uint64     { return o.Uint64(b) }
func (o order) i64(b []byte) int64      { return int64(o.Uint64(b)) }
func (o order) put16(b []byte, v int64) { o.PutUint16(b, uint16(v)) }
func (o order) put32(b []byte, v int64) { o.PutUint32(b, uint32(v)) }
func (o order) put64(b []byte, v int64) { o.PutUint64(b, uint64(v)) }

// around and inside are the masks of ffs_tables.c.
var (
	around = [9]int{0x3, 0x7, 0xf, 0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff}
	inside = [9]int{0x0, 0x2, 0x6, 0xe, 0x1e, 0x3e, 0x7e, 0xfe, 0x1fe}
)

// fragtbl returns the fragment tables of ffs_tables.c, computed on first
// use from their definition: fragtbl()[frag][b] has bit (n-1 + frag%8)
// set when the byte b of a free-fragment map holds, inside one of its
// blocks of frag bits, a run of exactly n free fragments that cannot be
// extended. Tables for frag 1, 2 and 4 share one array.
var fragtbl = sync.OnceValue(func() *[maxFrag + 1]*[256]byte {
	runs := func(b, frag int) byte {
		var out byte
		for base := 0; base < 8; base += frag {
			n := 0
			for i := 0; i <= frag; i++ {
				if i < frag && b&(1<<(base+i)) != 0 {
					n++
					continue
				}
				if n > 0 {
					out |= 1 << (n - 1 + frag%8)
				}
				n = 0
			}
		}
		return out
	}
	var tbl124, tbl8 [256]byte
	for b := 0; b < 256; b++ {
		tbl124[b] = runs(b, 1) | runs(b, 2) | runs(b, 4)
		tbl8[b] = runs(b, 8)
	}
	var t [maxFrag + 1]*[256]byte
	t[1], t[2], t[4], t[8] = &tbl124, &tbl124, &tbl124, &tbl8
	return &t
})
