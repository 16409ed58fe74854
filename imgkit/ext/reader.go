package ext

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// FS is a read-only view of an ext2, ext3 or ext4 image as an io/fs.FS.
// It implements fs.ReadDirFS, fs.ReadFileFS, fs.StatFS and
// fs.ReadLinkFS; Open and Stat follow symbolic links inside the image,
// Lstat and ReadLink do not. Inode gives the on-disk facts of a path. An
// FS is safe for concurrent use.
type FS struct {
	r    io.ReaderAt
	size int64
	sb   superblock
	g    geometry
	gdt  []groupDesc

	csumSeed uint32

	bitmapsChecked sync.Once // checkBitmaps has run

	mu       sync.Mutex
	warnings []string
	warned   map[string]bool
	dirs     map[uint32][]DirEntry // directories read lately, by inode number
}

// geometry is what the reader takes from the superblock, checked.
type geometry struct {
	bsize       int64  // block size
	blocks      uint64 // s_blocks_count
	firstData   uint64 // s_first_data_block
	bpg         uint64 // s_blocks_per_group
	ipg         uint64 // s_inodes_per_group
	inodes      uint64 // s_inodes_count
	inodeSize   int64  // s_inode_size
	descSize    int64  // bytes of one group descriptor
	ngroups     uint64 // block groups
	firstMetaBg uint64 // s_first_meta_bg
}

// maxDirSize bounds the bytes of one directory the reader reads, what a
// corrupt image can make it allocate.
const maxDirSize = 1 << 28

// maxWarnings bounds the warnings an FS keeps.
const maxWarnings = 100

// maxCachedDirs bounds the directories an FS keeps read.
const maxCachedDirs = 16

// NewReader reads the superblock and group descriptors of the ext2/3/4
// image in r (size bytes) and returns the file system.
func NewReader(r io.ReaderAt, size int64) (*FS, error) {
	f := new(FS)
	if err := f.init(r, size); err != nil {
		return nil, err
	}
	return f, nil
}

// A ReadCloser is an ext image opened from a file by OpenReader: the FS
// and the file it reads, which Close closes.
type ReadCloser struct {
	FS
	imgfmt.ImageFile
}

// OpenReader opens the file name and reads the ext image in it, as
// NewReader reads one from an io.ReaderAt; the whole file is the image.
// The ReadCloser must be closed when no longer needed, and the FS and the
// files opened from it are not to be used after that.
func OpenReader(name string) (*ReadCloser, error) {
	rc := new(ReadCloser)
	var err error
	if rc.ImageFile, err = imgfmt.OpenImage(name, rc.FS.init); err != nil {
		return nil, err
	}
	return rc, nil
}

// init reads the superblock and group descriptors of the image in r
// into f, a zero FS, for NewReader and OpenReader.
func (f *FS) init(r io.ReaderAt, size int64) error {
	f.r, f.size = r, size
	if size < superblockOff+superblockSize {
		return formatErr(-1, "", "%d bytes is too small for a superblock at byte %#x", size, superblockOff)
	}
	if err := f.readAt(f.sb[:], superblockOff); err != nil {
		return fmt.Errorf("ext: reading superblock at byte %#x: %w", superblockOff, err)
	}
	if err := f.parseSuperblock(); err != nil {
		return err
	}
	return f.readGroupDescs()
}

// formatErr returns the *imgfmt.FormatError, wrapping ErrFormat, of a
// malformed structure at byte off of the image (-1 when it has no one
// place), about the field named field as the ext4 disk layout spells it
// ("" when it is about no one field).
func formatErr(off int64, field, format string, args ...any) error {
	return &imgfmt.FormatError{Format: "ext", Off: off, Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrFormat}
}

// sbOff returns the byte offset in the image of a field of the
// superblock.
func sbOff(field []byte) int64 {
	var s superblock
	return superblockOff + fieldOff(s[:], field[:0:cap(field)])
}

// badSuperblock is the error for a superblock field with a bad value.
func badSuperblock(field []byte, name string, v uint64) error {
	at := sbOff(field)
	return formatErr(at, name, "superblock field %s at byte %#x: bad value %d", name, at, v)
}

func (f *FS) hasCompat(m uint32) bool   { return le.Uint32(f.sb.sFeatureCompat())&m != 0 }
func (f *FS) hasIncompat(m uint32) bool { return le.Uint32(f.sb.sFeatureIncompat())&m != 0 }
func (f *FS) hasRoCompat(m uint32) bool { return le.Uint32(f.sb.sFeatureRoCompat())&m != 0 }

// parseSuperblock checks the superblock and fills the geometry.
func (f *FS) parseSuperblock() error {
	s, g := &f.sb, &f.g
	if le.Uint16(s.sMagic()) != superMagic {
		return formatErr(sbOff(s.sMagic()), "s_magic", "no s_magic 0xef53 at byte %#x", sbOff(s.sMagic()))
	}
	logBS := le.Uint32(s.sLogBlockSize())
	if logBS > maxBlockLog-minBlockLog {
		return badSuperblock(s.sLogBlockSize(), "s_log_block_size", uint64(logBS))
	}
	g.bsize = 1024 << logBS
	g.blocks = uint64(le.Uint32(s.sBlocksCountLo()))
	if f.hasIncompat(incompat64bit) {
		g.blocks |= uint64(le.Uint32(s.sBlocksCountHi())) << 32
	}
	g.firstData = uint64(le.Uint32(s.sFirstDataBlock()))
	g.bpg = uint64(le.Uint32(s.sBlocksPerGroup()))
	g.ipg = uint64(le.Uint32(s.sInodesPerGroup()))
	g.inodes = uint64(le.Uint32(s.sInodesCount()))
	g.inodeSize, g.descSize = goodOldInodeSize, minDescSize
	if le.Uint32(s.sRevLevel()) != goodOldRev {
		g.inodeSize = int64(le.Uint16(s.sInodeSize()))
	}
	if f.hasIncompat(incompat64bit) {
		g.descSize = int64(le.Uint16(s.sDescSize()))
	}
	switch {
	case g.firstData >= g.blocks || g.firstData > 1:
		return badSuperblock(s.sFirstDataBlock(), "s_first_data_block", g.firstData)
	case g.bpg == 0 || g.bpg > 8*uint64(g.bsize)<<min(le.Uint32(s.sLogClusterSize()), 16):
		return badSuperblock(s.sBlocksPerGroup(), "s_blocks_per_group", g.bpg)
	case g.ipg == 0 || g.ipg > 8*uint64(g.bsize):
		return badSuperblock(s.sInodesPerGroup(), "s_inodes_per_group", g.ipg)
	case g.inodeSize < goodOldInodeSize || g.inodeSize > g.bsize || g.inodeSize&(g.inodeSize-1) != 0:
		return badSuperblock(s.sInodeSize(), "s_inode_size", uint64(g.inodeSize))
	case g.descSize < minDescSize || g.descSize > maxDescSize || g.descSize&(g.descSize-1) != 0 ||
		f.hasIncompat(incompat64bit) && g.descSize < minDescSize64bit:
		return badSuperblock(s.sDescSize(), "s_desc_size", uint64(g.descSize))
	}
	g.ngroups = (g.blocks - g.firstData + g.bpg - 1) / g.bpg
	if g.ngroups*g.ipg != g.inodes {
		return badSuperblock(s.sInodesCount(), "s_inodes_count", g.inodes)
	}
	if f.hasIncompat(incompatMetaBG) {
		g.firstMetaBg = uint64(le.Uint32(s.sFirstMetaBg()))
	} else {
		g.firstMetaBg = ^uint64(0)
	}
	if f.hasRoCompat(roCompatMetadataCsum) {
		if got, want := le.Uint32(s.sChecksum()), superblockCsum(s); got != want {
			f.warn(fmt.Sprintf("superblock at byte %#x: s_checksum %#08x, computed %#08x", superblockOff, got, want))
		}
	}
	// The seed hashes ea_inode values too, with or without metadata_csum.
	if f.hasRoCompat(roCompatMetadataCsum) || f.hasIncompat(incompatEAInode) {
		if f.hasIncompat(incompatCsumSeed) {
			f.csumSeed = le.Uint32(s.sChecksumSeed())
		} else {
			f.csumSeed = crc32c(^uint32(0), s.sUUID())
		}
	}
	return nil
}

// fsBytes is the file system's size in bytes, s_blocks_count blocks.
func (f *FS) fsBytes() int64 {
	if f.g.blocks > uint64(1<<62)/uint64(f.g.bsize) {
		return 1 << 62
	}
	return int64(f.g.blocks) * f.g.bsize
}

// descPerBlock is how many group descriptors one block holds.
func (f *FS) descPerBlock() uint64 { return uint64(f.g.bsize / f.g.descSize) }

// groupHasSuper reports whether group holds a superblock backup (and so
// the group descriptors of the traditional layout or of its meta group):
// every group without sparse_super, else groups 0, 1 and powers of 3, 5
// and 7, or with sparse_super2 the groups of s_backup_bgs.
func (f *FS) groupHasSuper(group uint64) bool {
	if group == 0 {
		return true
	}
	if f.hasCompat(compatSparseSuper2) {
		b := f.sb.sBackupBgs()
		return group == uint64(le.Uint32(b)) || group == uint64(le.Uint32(b[4:]))
	}
	if group <= 1 || !f.hasRoCompat(roCompatSparseSuper) {
		return true
	}
	if group&1 == 0 {
		return false
	}
	for _, b := range []uint64{3, 5, 7} {
		p := b
		for p < group {
			p *= b
		}
		if p == group {
			return true
		}
	}
	return false
}

// groupBlock is where group's superblock copy (or descriptor block)
// would start: its first block, but block 1 for group 0 with 1 KiB
// blocks and bigalloc, whose s_first_data_block is 0 while the
// superblock stays at byte 1024 (ext2fs_super_and_bgd_loc2).
func (f *FS) groupBlock(group uint64) uint64 {
	blk := f.g.firstData + group*f.g.bpg
	if blk == 0 && f.g.bsize == 1024 {
		blk = 1
	}
	return blk
}

// descBlock returns the block holding descriptor block i (of the
// descriptors' blocks in order): right after the superblock for the
// traditional layout, or in the first group of its meta group (meta_bg).
func (f *FS) descBlock(i uint64) uint64 {
	g := &f.g
	if i < g.firstMetaBg {
		return f.groupBlock(0) + 1 + i
	}
	group := i * f.descPerBlock()
	blk := f.groupBlock(group)
	if f.groupHasSuper(group) {
		blk++
	}
	return blk
}

// readGroupDescs reads every group descriptor and checks where its
// bitmaps and inode table lie.
func (f *FS) readGroupDescs() error {
	g := &f.g
	if g.ngroups > uint64(f.size)/uint64(g.descSize) {
		return formatErr(sbOff(f.sb.sBlocksCountLo()), "s_blocks_count_lo", "%d block groups (s_blocks_count %d, s_blocks_per_group %d) do not fit their descriptors in an image of %d bytes",
			g.ngroups, g.blocks, g.bpg, f.size)
	}
	per := f.descPerBlock()
	nblocks := (g.ngroups + per - 1) / per
	raw := make([]byte, 0, g.ngroups*uint64(g.descSize))
	blk := make([]byte, g.bsize)
	for i := uint64(0); i < nblocks; i++ {
		b := f.descBlock(i)
		if b >= g.blocks {
			return formatErr(sbOff(f.sb.sBlocksCountLo()), "s_blocks_count_lo", "group descriptor block %d at block %d is past s_blocks_count %d", i, b, g.blocks)
		}
		if err := f.readAt(blk, int64(b)*g.bsize); err != nil {
			return fmt.Errorf("ext: reading group descriptors at byte %#x: %w", int64(b)*g.bsize, err)
		}
		raw = append(raw, blk[:min(g.ngroups-i*per, per)*uint64(g.descSize)]...)
	}
	f.gdt = make([]groupDesc, g.ngroups)
	csum := f.hasRoCompat(roCompatMetadataCsum) || f.hasRoCompat(roCompatGdtCsum)
	for i := range f.gdt {
		d := groupDesc(raw[int64(i)*g.descSize:][:g.descSize:g.descSize])
		f.gdt[i] = d
		if it := d.lohi(groupDesc.bgInodeTableLo, groupDesc.bgInodeTableHi); it == 0 || it+(g.ipg*uint64(g.inodeSize)+uint64(g.bsize)-1)/uint64(g.bsize) > g.blocks {
			return formatErr(f.descOff(uint64(i))+fieldOff(d, d.bgInodeTableLo()), "bg_inode_table_lo", "group descriptor %d at byte %#x: bg_inode_table_lo %d with %d inodes of %d bytes is past s_blocks_count %d",
				i, f.descOff(uint64(i)), it, g.ipg, g.inodeSize, g.blocks)
		}
		if csum {
			if got, want := le.Uint16(d.bgChecksum()), f.groupDescCsum(uint32(i), d); got != want {
				f.warn(fmt.Sprintf("group descriptor %d at byte %#x: bg_checksum %#04x, computed %#04x", i, f.descOff(uint64(i)), got, want))
			}
		}
	}
	return nil
}

// descOff is the byte offset of group descriptor i.
func (f *FS) descOff(i uint64) int64 {
	per := f.descPerBlock()
	return int64(f.descBlock(i/per))*f.g.bsize + int64(i%per)*f.g.descSize
}

// warn records a warning once.
func (f *FS) warn(w string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.warned == nil {
		f.warned = map[string]bool{}
	}
	if f.warned[w] || len(f.warnings) >= maxWarnings {
		return
	}
	f.warned[w] = true
	f.warnings = append(f.warnings, w)
}

// Warnings says what the reader found amiss without failing: checksums
// (metadata_csum, gdt_csum) that do not match what they cover, each
// naming its structure and byte offset, and a file system that ends past
// the image's end (an image cut short: it is listed as far as the image
// goes, and reading past the end fails with an error wrapping
// imgfmt.ErrTruncated). It reports what has been read so far, and on its
// first call reads every group's bitmaps to verify their checksums; it
// implements describe.Warner.
func (f *FS) Warnings() []string {
	f.checkBitmaps()
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.warnings)
	if n := f.fsBytes(); n > f.size {
		out = append([]string{fmt.Sprintf("file system of %d blocks (%d bytes, s_blocks_count) ends past the image's end (%d bytes); listing what is there", f.g.blocks, n, f.size)}, out...)
	}
	return out
}

// BlockSize returns the block size, 1024 << s_log_block_size.
func (f *FS) BlockSize() int { return int(f.g.bsize) }

// InodeSize returns s_inode_size.
func (f *FS) InodeSize() int { return int(f.g.inodeSize) }

// Groups returns the number of block groups.
func (f *FS) Groups() int { return int(f.g.ngroups) }

// Kind returns "ext4" for a file system with extents, 64-bit block
// numbers, flexible block groups or any other feature ext3 lacks, "ext3"
// for one with a journal, and "ext2" otherwise, as blkid names them.
func (f *FS) Kind() string {
	switch {
	case le.Uint32(f.sb.sFeatureIncompat())&^(incompatFiletype|incompatRecover|incompatMetaBG) != 0,
		le.Uint32(f.sb.sFeatureRoCompat())&^(roCompatSparseSuper|roCompatLargeFile) != 0:
		return "ext4"
	case f.hasCompat(compatHasJournal):
		return "ext3"
	}
	return "ext2"
}

// UUID returns s_uuid as text.
func (f *FS) UUID() string {
	u := hex.EncodeToString(f.sb.sUUID())
	return u[:8] + "-" + u[8:12] + "-" + u[12:16] + "-" + u[16:20] + "-" + u[20:]
}

// Label returns s_volume_name.
func (f *FS) Label() string {
	v := f.sb.sVolumeName()
	if i := slices.Index(v, 0); i >= 0 {
		v = v[:i]
	}
	return string(v)
}

// readAt reads exactly len(b) bytes at byte offset off of the image. A
// read inside the file system but past the end of an image cut short is
// an *imgfmt.TruncatedError.
func (f *FS) readAt(b []byte, off int64) error {
	if end := off + int64(len(b)); off >= 0 && end > f.size && end <= f.fsBytes() {
		return &imgfmt.TruncatedError{Off: max(off, f.size), End: end, Size: f.size}
	}
	if off < 0 || off+int64(len(b)) > f.size {
		at := off
		if at < 0 || at > f.size {
			at = -1
		}
		return formatErr(at, "", "read of %d bytes at byte %#x is outside the image", len(b), off)
	}
	n, err := f.r.ReadAt(b, off)
	switch {
	case n == len(b):
		return nil // io.ReaderAt may say io.EOF with a full read at the end
	case err == nil || err == io.EOF:
		return io.ErrUnexpectedEOF
	}
	return err
}

// readBlock reads len(b) bytes (at most a block) at offset off of block
// blk, which must lie inside the file system.
func (f *FS) readBlock(b []byte, blk uint64, off int64) error {
	if blk >= f.g.blocks {
		return formatErr(-1, "", "block %d is past s_blocks_count %d", blk, f.g.blocks)
	}
	return f.readAt(b, int64(blk)*f.g.bsize+off)
}

// Inode is the on-disk record of one inode, decoded.
type Inode struct {
	Ino        uint32
	Mode       uint16 // i_mode: type and permission bits
	Links      uint16 // i_links_count
	UID        uint32 // i_uid and l_i_uid_high
	GID        uint32 // i_gid and l_i_gid_high
	Size       int64  // i_size_lo and i_size_high
	Blocks     uint64 // i_blocks_lo and l_i_blocks_high, in 512-byte units (file system blocks with EXT4_HUGE_FILE_FL)
	Flags      uint32 // i_flags
	Generation uint32 // i_generation
	FileACL    uint64 // i_file_acl_lo and l_i_file_acl_high: the extended attribute block
	Atime      time.Time
	Mtime      time.Time
	Ctime      time.Time
	// Crtime is i_crtime, zero where the inode has none.
	Crtime time.Time
	// Major and Minor are the device numbers of a device's i_block.
	Major, Minor uint32
	raw          inode
	off          int64 // the inode's byte offset
}

// IsDir reports whether the inode is a directory.
func (in *Inode) IsDir() bool { return in.Mode&sIFMT == sIFDIR }

func (in *Inode) typ() uint16 { return in.Mode & sIFMT }

// sizeOff returns the byte offset in the image of the inode's i_size_lo.
func (in *Inode) sizeOff() int64 { return in.off + fieldOff(in.raw, in.raw.iSizeLo()) }

// badSize is the error for an inode whose i_size is bad.
func badSize(in *Inode, format string, args ...any) error {
	return formatErr(in.sizeOff(), "i_size_lo", format, args...)
}

// inodeOff returns the byte offset of inode ino.
func (f *FS) inodeOff(ino uint32) (int64, error) {
	g := &f.g
	if ino == 0 || uint64(ino) > g.inodes {
		return 0, formatErr(-1, "", "inode number %d out of range (s_inodes_count %d)", ino, g.inodes)
	}
	grp, idx := uint64(ino-1)/g.ipg, uint64(ino-1)%g.ipg
	it := f.gdt[grp].lohi(groupDesc.bgInodeTableLo, groupDesc.bgInodeTableHi)
	return int64(it)*g.bsize + int64(idx)*g.inodeSize, nil
}

// inode reads and decodes inode number ino.
func (f *FS) inode(ino uint32) (*Inode, error) {
	off, err := f.inodeOff(ino)
	if err != nil {
		return nil, err
	}
	n := make(inode, f.g.inodeSize)
	if err := f.readAt(n, off); err != nil {
		return nil, fmt.Errorf("ext: reading inode %d at byte %#x: %w", ino, off, err)
	}
	if len(n) > goodOldInodeSize {
		if x := int64(le.Uint16(n.iExtraIsize())); goodOldInodeSize+x > f.g.inodeSize || x%4 != 0 {
			at := off + fieldOff(n, n.iExtraIsize())
			return nil, formatErr(at, "i_extra_isize", "inode %d at byte %#x: bad i_extra_isize %d", ino, at, x)
		}
	}
	if f.hasRoCompat(roCompatMetadataCsum) {
		got := uint32(le.Uint16(n.lIChecksumLo()))
		if n.hasChecksumHi() {
			got |= uint32(le.Uint16(n.iChecksumHi())) << 16
		}
		if want := f.inodeCsum(ino, n); got != want {
			f.warn(fmt.Sprintf("inode %d at byte %#x: checksum %#x, computed %#x", ino, off, got, want))
		}
	}
	in := &Inode{Ino: ino, raw: n, off: off}
	in.decode(f)
	if in.Size < 0 {
		return nil, badSize(in, "inode %d at byte %#x: bad i_size %d", ino, in.sizeOff(), in.Size)
	}
	return in, nil
}

// decode fills in from its raw inode.
func (in *Inode) decode(f *FS) {
	n := in.raw
	in.Mode = le.Uint16(n.iMode())
	in.Links = le.Uint16(n.iLinksCount())
	in.UID = uint32(le.Uint16(n.iUID())) | uint32(le.Uint16(n.lIUIDHigh()))<<16
	in.GID = uint32(le.Uint16(n.iGID())) | uint32(le.Uint16(n.lIGIDHigh()))<<16
	in.Size = int64(uint64(le.Uint32(n.iSizeLo())) | uint64(le.Uint32(n.iSizeHigh()))<<32)
	in.Blocks = uint64(le.Uint32(n.iBlocksLo()))
	if f.hasRoCompat(roCompatHugeFile) {
		in.Blocks |= uint64(le.Uint16(n.lIBlocksHigh())) << 32
	}
	in.Flags = le.Uint32(n.iFlags())
	in.Generation = le.Uint32(n.iGeneration())
	in.FileACL = uint64(le.Uint32(n.iFileACLLo())) | uint64(le.Uint16(n.lIFileACLHigh()))<<32
	var ax, mx, cx []byte
	if n.hasExtraTimes() {
		ax, mx, cx = n.iAtimeExtra(), n.iMtimeExtra(), n.iCtimeExtra()
	}
	in.Atime, in.Mtime, in.Ctime = extTime(n.iAtime(), ax), extTime(n.iMtime(), mx), extTime(n.iCtime(), cx)
	if n.hasCrtime() {
		in.Crtime = extTime(n.iCrtime(), n.iCrtimeExtra())
	}
	if t := in.typ(); t == sIFCHR || t == sIFBLK {
		if old := le.Uint32(n.iBlockWord(0)); old != 0 {
			in.Major, in.Minor = old>>8&0xff, old&0xff
		} else {
			v := le.Uint32(n.iBlockWord(1))
			in.Major, in.Minor = v&0xfff00>>8, v&0xff|v>>12&0xfff00
		}
	}
}

// extTime decodes a time field and its _extra word (nil when the inode
// has none): the extra word's low 2 bits extend the signed seconds past
// 2038 and its other 30 bits are nanoseconds.
func extTime(sec, extra []byte) time.Time {
	s := int64(int32(le.Uint32(sec)))
	var ns int64
	if extra != nil {
		x := le.Uint32(extra)
		s += int64(x&3) << 32
		ns = int64(x >> 2)
	}
	return time.Unix(s, ns).UTC()
}

// Rdev returns the device number of a character or block device as Linux
// encodes a dev_t: major and minor in the kernel's new_encode_dev form.
func (in *Inode) Rdev() uint64 { return uint64(in.Minor&0xff | in.Major<<8 | (in.Minor&^0xff)<<12) }

// blockMap maps the logical blocks of one inode to the blocks of the
// image.
type blockMap interface {
	// lookup returns the physical block of logical block lbn (0 for a
	// hole or an unwritten extent, which read as zeros) and how many
	// blocks from lbn on follow it contiguously (at least 1).
	lookup(lbn uint64) (pblk uint64, n uint64, err error)
}

// mapOf returns the block map of in: its extent tree, or its direct and
// indirect blocks.
func (f *FS) mapOf(in *Inode) (blockMap, error) {
	if in.Flags&extentsFL != 0 {
		ext, err := f.extents(in)
		if err != nil {
			return nil, err
		}
		return ext, nil
	}
	return &indirectMap{f: f, in: in, cache: map[uint64][]byte{}}, nil
}

// Extent is one leaf entry of an inode's extent tree: Len blocks from
// logical block Logical at physical block Start.
type Extent struct {
	Logical   uint32
	Start     uint64
	Len       uint32
	Unwritten bool
}

// extentList is the extents of an inode in logical order.
type extentList []Extent

func (l extentList) lookup(lbn uint64) (uint64, uint64, error) {
	i, _ := slices.BinarySearchFunc(l, lbn, func(e Extent, t uint64) int {
		switch {
		case uint64(e.Logical)+uint64(e.Len) <= t:
			return -1
		case uint64(e.Logical) > t:
			return 1
		}
		return 0
	})
	if i == len(l) || uint64(l[i].Logical) > lbn {
		next := uint64(1) << 32
		if i < len(l) {
			next = uint64(l[i].Logical)
		}
		return 0, next - lbn, nil
	}
	e := l[i]
	d := lbn - uint64(e.Logical)
	if e.Unwritten {
		return 0, uint64(e.Len) - d, nil
	}
	return e.Start + d, uint64(e.Len) - d, nil
}

// extents walks the extent tree of in and returns its leaves in logical
// order. A tree whose depth does not fall by one at each level, whose
// node is visited twice, whose entries are out of order or overlap, or
// that points outside the file system is refused.
func (f *FS) extents(in *Inode) (extentList, error) {
	w := &extentWalk{f: f, in: in, seen: map[uint64]bool{}}
	if err := w.node(in.raw.iBlock(), -1, 0, in.off+0x28); err != nil {
		return nil, err
	}
	return w.out, nil
}

// extentWalk is one walk of an extent tree.
type extentWalk struct {
	f    *FS
	in   *Inode
	seen map[uint64]bool
	out  extentList
	next uint64 // the first logical block the next extent may start at
}

// node reads the tree node b (i_block, or a block read at byte off);
// depth is the depth its parent expects (-1 for the root).
func (w *extentWalk) node(b []byte, depth int, pblk uint64, off int64) error {
	h := extentHeader(b)
	// bad is the error for field (of b), named name, with value v
	// (of name without its _lo when the value has its high bits too).
	bad := func(field []byte, name string, v uint64) error {
		return formatErr(off+fieldOff(b, field), name, "inode %d: extent node at byte %#x: bad %s %d", w.in.Ino, off, strings.TrimSuffix(name, "_lo"), v)
	}
	if m := le.Uint16(h.ehMagic()); m != extentMagic {
		return bad(h.ehMagic(), "eh_magic", uint64(m))
	}
	entries, maxEnt, d := int(le.Uint16(h.ehEntries())), int(le.Uint16(h.ehMax())), int(le.Uint16(h.ehDepth()))
	if maxEnt > len(b)/extentEntrySize-1 {
		return bad(h.ehMax(), "eh_max", uint64(maxEnt))
	}
	if entries > maxEnt {
		return bad(h.ehEntries(), "eh_entries", uint64(entries))
	}
	if d > extentMaxDepth || depth >= 0 && d != depth {
		return bad(h.ehDepth(), "eh_depth", uint64(d))
	}
	if pblk != 0 && w.f.hasRoCompat(roCompatMetadataCsum) {
		tail := extentEntrySize * (1 + maxEnt)
		if tail+4 <= len(b) {
			got, want := le.Uint32(b[tail:]), crc32c(w.f.inodeSeed(w.in.Ino, w.in.Generation), b[:tail])
			if got != want {
				w.f.warn(fmt.Sprintf("inode %d: extent block %d at byte %#x: checksum %#08x, computed %#08x", w.in.Ino, pblk, off, got, want))
			}
		}
	}
	for i := range entries {
		e := b[extentEntrySize*(i+1):][:extentEntrySize]
		if d == 0 {
			x := extent(e)
			ext := Extent{Logical: le.Uint32(x.eeBlock()), Len: uint32(le.Uint16(x.eeLen())),
				Start: uint64(le.Uint32(x.eeStartLo())) | uint64(le.Uint16(x.eeStartHi()))<<32}
			if ext.Len > extentInitMax {
				ext.Len, ext.Unwritten = ext.Len-extentInitMax, true
			}
			if ext.Len == 0 {
				return bad(x.eeLen(), "ee_len", 0)
			}
			if uint64(ext.Logical) < w.next {
				return bad(x.eeBlock(), "ee_block", uint64(ext.Logical))
			}
			if ext.Start+uint64(ext.Len) > w.f.g.blocks || ext.Start < w.f.g.firstData {
				return bad(x.eeStartLo(), "ee_start_lo", ext.Start)
			}
			w.next = uint64(ext.Logical) + uint64(ext.Len)
			w.out = append(w.out, ext)
			continue
		}
		x := extentIdx(e)
		if lb := uint64(le.Uint32(x.eiBlock())); lb < w.next {
			return bad(x.eiBlock(), "ei_block", lb)
		}
		leaf := uint64(le.Uint32(x.eiLeafLo())) | uint64(le.Uint16(x.eiLeafHi()))<<32
		if leaf >= w.f.g.blocks || leaf < w.f.g.firstData || w.seen[leaf] {
			return bad(x.eiLeafLo(), "ei_leaf_lo", leaf)
		}
		w.seen[leaf] = true
		blk := make([]byte, w.f.g.bsize)
		if err := w.f.readBlock(blk, leaf, 0); err != nil {
			return err
		}
		if err := w.node(blk, d-1, leaf, int64(leaf)*w.f.g.bsize); err != nil {
			return err
		}
	}
	return nil
}

// indirectMap maps blocks through i_block's 12 direct blocks and its
// single, double and triple indirect blocks (ext2, ext3).
type indirectMap struct {
	f     *FS
	in    *Inode
	cache map[uint64][]byte
}

func (m *indirectMap) lookup(lbn uint64) (uint64, uint64, error) {
	if lbn < nDirect {
		return runOf(m.in.raw.iBlock()[:4*nDirect], int(lbn))
	}
	per := uint64(m.f.g.bsize / 4)
	lbn -= nDirect
	span := uint64(1)
	for level := 0; level < 3; level++ {
		span *= per
		if lbn >= span {
			lbn -= span
			continue
		}
		ptr := m.in.raw.iBlockWord(nDirect + level)
		addr := uint64(le.Uint32(ptr))
		at, field := m.in.off+fieldOff(m.in.raw, ptr), "i_block" // where addr is
		for l := level; ; l-- {
			if addr == 0 {
				// No block here: a hole to the end of what it
				// would map, so that a sparse file is walked by
				// its runs, not block by block.
				return 0, span - lbn, nil
			}
			span /= per
			b, err := m.block(addr, at, field)
			if err != nil {
				return 0, 0, err
			}
			if l == 0 {
				return runOf(b, int(lbn))
			}
			at, field = int64(addr)*m.f.g.bsize+int64(4*(lbn/span)), ""
			addr = uint64(le.Uint32(b[4*(lbn/span):]))
			lbn %= span
		}
	}
	return 0, 0, formatErr(-1, "", "inode %d: block past the triple indirect block", m.in.Ino)
}

// runOf returns the block that word i of words (little-endian block
// numbers: i_block's direct blocks, or an indirect block) names and how
// many words from i on name the blocks that follow it (or, for a 0, how
// many are 0), so that a file is read a run at a time, not a block at a
// time.
func runOf(words []byte, i int) (uint64, uint64, error) {
	first := uint64(le.Uint32(words[4*i:]))
	n := uint64(1)
	for j := i + 1; 4*j < len(words); j++ {
		v := uint64(le.Uint32(words[4*j:]))
		if first == 0 && v != 0 || first != 0 && v != first+n {
			break
		}
		n++
	}
	return first, n, nil
}

// block reads indirect block addr, keeping a few; at and field say
// where addr is, for the error.
func (m *indirectMap) block(addr uint64, at int64, field string) ([]byte, error) {
	if b, ok := m.cache[addr]; ok {
		return b, nil
	}
	if addr < m.f.g.firstData || addr >= m.f.g.blocks {
		return nil, formatErr(at, field, "inode %d: indirect block %d out of range", m.in.Ino, addr)
	}
	b := make([]byte, m.f.g.bsize)
	if err := m.f.readBlock(b, addr, 0); err != nil {
		return nil, err
	}
	if len(m.cache) > 16 {
		clear(m.cache)
	}
	m.cache[addr] = b
	return b, nil
}

// inlineData returns the bytes of an inode with EXT4_INLINE_DATA_FL: its
// i_block, then the value of its system.data attribute, whose byte
// offset in the image it returns too (-1 when there is none).
func (f *FS) inlineData(in *Inode) ([]byte, int64, error) {
	out := slices.Clone(in.raw.iBlock())
	v, at, err := f.ibodyAttr(in, xattrIndexSys, "data")
	if err != nil {
		return nil, 0, err
	}
	if v == nil {
		return out, -1, nil
	}
	return append(out, v...), in.off + int64(at), nil
}

// ibodyAttr returns the value of the extended attribute index:name kept
// in the inode's body after i_extra_isize, and its offset in the inode;
// or nil.
func (f *FS) ibodyAttr(in *Inode, index byte, name string) ([]byte, int, error) {
	n := in.raw
	if len(n) <= goodOldInodeSize {
		return nil, 0, nil
	}
	start := goodOldInodeSize + int(le.Uint16(n.iExtraIsize()))
	if start+4 > len(n) || le.Uint32(n[start:]) != xattrMagic {
		return nil, 0, nil
	}
	ents, err := f.parseXattrEntries(n, start+4, start+4, in.off, fmt.Sprintf("inode %d", in.Ino))
	if err != nil {
		return nil, 0, err
	}
	for _, e := range ents {
		if e.index != index || string(e.name) != name {
			continue
		}
		if e.inum != 0 {
			return nil, 0, formatErr(in.off+int64(e.at)+fieldOff(xattrEntry(n[e.at:]), xattrEntry(n[e.at:]).eValueInum()), "e_value_inum",
				"inode %d: attribute %s has its value in inode %d (ea_inode)", in.Ino, xattrName(index, e.name), e.inum)
		}
		if e.vs == 0 {
			return []byte{}, e.vo, nil
		}
		return n[e.vo:][:e.vs:e.vs], e.vo, nil
	}
	return nil, 0, nil
}

// readData reads bytes [off, off+len(p)) of the inode's contents through
// m (nil for inline data).
func (f *FS) readData(in *Inode, m blockMap, p []byte, off int64) error {
	if in.Flags&inlineDataFL != 0 {
		d, _, err := f.inlineData(in)
		if err != nil {
			return err
		}
		clear(p)
		if off < int64(len(d)) {
			copy(p, d[off:])
		}
		return nil
	}
	bs := f.g.bsize
	for len(p) > 0 {
		lbn := uint64(off / bs)
		bo := off % bs
		pblk, run, err := m.lookup(lbn)
		if err != nil {
			return err
		}
		n := min(int64(len(p)), int64(min(run, uint64(1<<40)/uint64(bs)))*bs-bo)
		if pblk == 0 {
			clear(p[:n])
		} else {
			if pblk+(uint64(bo)+uint64(n)-1)/uint64(bs) >= f.g.blocks {
				return formatErr(-1, "", "inode %d: block %d out of range", in.Ino, pblk)
			}
			if err := f.readAt(p[:n], int64(pblk)*bs+bo); err != nil {
				return err
			}
		}
		p, off = p[n:], off+n
	}
	return nil
}

// DirEntry is one entry of a directory as stored.
type DirEntry struct {
	Name string
	Ino  uint32
	Type uint8 // file_type (EXT4_FT_*), 0 without the filetype feature
}

// readDirInode reads and checks the entries of directory inode in,
// without "." and "..", and returns them with the inode number of ".."
// (the parent).
func (f *FS) readDirInode(in *Inode) ([]DirEntry, uint32, error) { return f.readDir(in, nil) }

// dxSum is the checksum of one index block of an htree directory, for
// Fields: its logical block, the byte offset of dt_checksum in the image
// and the value stored and computed.
type dxSum struct {
	lbn       int64
	off       int64
	got, want uint32
}

// readDir is readDirInode that also gives the dt_checksum of each index
// block to dx when it is not nil.
func (f *FS) readDir(in *Inode, dx func(dxSum)) ([]DirEntry, uint32, error) {
	if in.Flags&inlineDataFL != 0 {
		d, at, err := f.inlineData(in)
		if err != nil {
			return nil, 0, err
		}
		if len(d) < 4 {
			return nil, 0, formatErr(in.off, "", "directory inode %d: inline data too short", in.Ino)
		}
		parent := le.Uint32(d)
		ents, err := f.parseDirBlock(in, nil, d[4:iBlockSz], 0, in.off+fieldOff(in.raw, in.raw.iBlock())+4)
		if err != nil {
			return nil, 0, err
		}
		if len(d) > iBlockSz {
			more, err := f.parseDirBlock(in, nil, d[iBlockSz:], 0, at)
			if err != nil {
				return nil, 0, err
			}
			ents = append(ents, more...)
		}
		return ents, parent, nil
	}
	if in.Size > maxDirSize || in.Size%f.g.bsize != 0 || in.Size > f.fsBytes() {
		return nil, 0, badSize(in, "directory inode %d at byte %#x: bad i_size %d", in.Ino, in.sizeOff(), in.Size)
	}
	m, err := f.mapOf(in)
	if err != nil {
		return nil, 0, err
	}
	var ents []DirEntry
	var parent uint32
	blk := make([]byte, f.g.bsize)
	seed := f.inodeSeed(in.Ino, in.Generation)
	for lbn := int64(0); lbn*f.g.bsize < in.Size; lbn++ {
		if err := f.readData(in, m, blk, lbn*f.g.bsize); err != nil {
			return nil, 0, err
		}
		var dots []DirEntry
		if lbn == 0 {
			dots = []DirEntry{}
		}
		e, err := f.parseDirBlock(in, &dots, blk, lbn, f.blockOff(m, lbn))
		if err != nil {
			return nil, 0, err
		}
		if lbn == 0 {
			for _, d := range dots {
				if d.Name == ".." {
					parent = d.Ino
				}
			}
		}
		if !f.checkDirTail(in, blk, seed, lbn) && in.Flags&indexFL != 0 && f.hasRoCompat(roCompatMetadataCsum) {
			if co := dxCountOffset(blk); co != 0 {
				got, want, tailAt, ok := f.checkDxTail(in, blk, co, lbn)
				if base := f.blockOff(m, lbn); ok && dx != nil && base >= 0 {
					dx(dxSum{lbn: lbn, off: base + int64(tailAt) + 4, got: got, want: want})
				}
			}
		}
		ents = append(ents, e...)
	}
	return ents, parent, nil
}

// checkDirTail verifies the checksum in the tail of a leaf directory
// block, when metadata_csum is on and the block has one, and reports
// whether it has one.
func (f *FS) checkDirTail(in *Inode, blk []byte, seed uint32, lbn int64) bool {
	if !f.hasRoCompat(roCompatMetadataCsum) {
		return false
	}
	t := dirEntry(blk[len(blk)-dirTailSize:])
	if le.Uint32(t.inode()) != 0 || le.Uint16(t.recLen()) != dirTailSize || t.nameLen()[0] != 0 || t.fileType()[0] != dirTailFT {
		return false // an htree node, or a block without a tail
	}
	got, want := le.Uint32(blk[len(blk)-4:]), crc32c(seed, blk[:len(blk)-dirTailSize])
	if got != want {
		f.warn(fmt.Sprintf("directory inode %d: block %d: checksum %#08x, computed %#08x", in.Ino, lbn, got, want))
	}
	return true
}

// blockOff returns the byte offset in the image of logical block lbn of
// the inode m maps, or -1 for a hole (or a block m cannot map).
func (f *FS) blockOff(m blockMap, lbn int64) int64 {
	pblk, _, err := m.lookup(uint64(lbn))
	if err != nil || pblk == 0 {
		return -1
	}
	return int64(pblk) * f.g.bsize
}

// parseDirBlock parses the entries of one directory block (or of one
// region of inline data), which lies at byte base of the image (-1 when
// it lies nowhere: a hole). Entries with inode 0 (free space, htree
// nodes, checksum tails) are skipped; "." and ".." go to dots when it is
// not nil, and are dropped otherwise.
func (f *FS) parseDirBlock(in *Inode, dots *[]DirEntry, b []byte, lbn, base int64) ([]DirEntry, error) {
	var out []DirEntry
	filetype := f.hasIncompat(incompatFiletype)
	// at returns the byte offset in the image of byte i of b.
	at := func(i int) int64 {
		if base < 0 {
			return -1
		}
		return base + int64(i)
	}
	for pos := 0; pos < len(b); {
		bad := func(field []byte, name, what string) error {
			off := at(pos)
			if field != nil {
				off = at(pos + int(fieldOff(b[pos:], field)))
			}
			return formatErr(off, name, "directory inode %d: block %d: bad entry at byte %d of the block: %s", in.Ino, lbn, pos, what)
		}
		if pos+dirEntryHeader > len(b) {
			return nil, bad(nil, "", "header past the block's end")
		}
		e := dirEntry(b[pos:])
		rl := recLenFromDisk(le.Uint16(e.recLen()), int(f.g.bsize))
		nl := int(e.nameLen()[0])
		if !filetype {
			nl |= int(e.fileType()[0]) << 8
		}
		if rl < dirEntryHeader+nl || rl%4 != 0 || pos+rl > len(b) {
			return nil, bad(e.recLen(), "rec_len", fmt.Sprintf("rec_len %d, name_len %d", rl, nl))
		}
		ino := le.Uint32(e.inode())
		name := string(b[pos+dirEntryHeader:][:nl])
		nameAt := at(pos + dirEntryHeader)
		pos += rl
		if ino == 0 {
			continue
		}
		var ft uint8
		if filetype {
			ft = e.fileType()[0]
		}
		if name == "." || name == ".." {
			if dots != nil {
				*dots = append(*dots, DirEntry{Name: name, Ino: ino, Type: ft})
			}
			continue
		}
		if name == "" || strings.ContainsAny(name, "/\x00") {
			return nil, formatErr(nameAt, "name", "directory inode %d: bad name %q", in.Ino, name)
		}
		out = append(out, DirEntry{Name: name, Ino: ino, Type: ft})
	}
	return out, nil
}

// dirEntries returns the entries of directory in, from the cache of
// directories read lately when it is there.
func (f *FS) dirEntries(in *Inode) ([]DirEntry, error) {
	f.mu.Lock()
	ents, ok := f.dirs[in.Ino]
	f.mu.Unlock()
	if ok {
		return ents, nil
	}
	ents, _, err := f.readDirInode(in)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	if f.dirs == nil || len(f.dirs) >= maxCachedDirs {
		f.dirs = map[uint32][]DirEntry{}
	}
	f.dirs[in.Ino] = ents
	f.mu.Unlock()
	return ents, nil
}

// lookup resolves name to its inode, following symbolic links in every
// element, and in the last one only if follow is set.
func (f *FS) lookup(op, name string, follow bool) (*Inode, error) {
	t := imgfmt.Tree[*Inode]{Root: f.rootInode, Child: f.child, IsLink: isLink, ReadLink: f.readlink}
	return t.Lookup(op, name, follow)
}

// rootInode returns the inode of the root directory.
func (f *FS) rootInode() (*Inode, error) {
	in, err := f.inode(rootIno)
	if err != nil {
		return nil, err
	}
	if !in.IsDir() {
		return nil, formatErr(in.off+fieldOff(in.raw, in.raw.iMode()), "i_mode", "root inode at byte %#x is not a directory (i_mode %#o)", in.off, in.Mode)
	}
	return in, nil
}

// child returns the inode of the entry name of directory dir.
func (f *FS) child(dir *Inode, name string) (*Inode, error) {
	if !dir.IsDir() {
		return nil, fs.ErrNotExist
	}
	ents, err := f.dirEntries(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if e.Name == name {
			return f.inode(e.Ino)
		}
	}
	return nil, fs.ErrNotExist
}

// isLink reports whether in is a symbolic link.
func isLink(in *Inode) bool { return in.typ() == sIFLNK }

// maxLinkLen bounds the target of a symbolic link the reader reads.
const maxLinkLen = 1 << 16

// isFastLink reports whether the symbolic link in keeps its target in
// i_block: shorter than i_block, neither inline data nor extents.
func isFastLink(in *Inode) bool {
	return in.Size < iBlockSz && in.Flags&(inlineDataFL|extentsFL) == 0
}

func (f *FS) readlink(in *Inode) (string, error) {
	if in.Size > maxLinkLen {
		return "", badSize(in, "inode %d: symbolic link of %d bytes", in.Ino, in.Size)
	}
	if isFastLink(in) {
		return string(in.raw.iBlock()[:in.Size]), nil
	}
	var m blockMap
	if in.Flags&inlineDataFL == 0 {
		var err error
		if m, err = f.mapOf(in); err != nil {
			return "", err
		}
	}
	b := make([]byte, in.Size)
	if err := f.readData(in, m, b, 0); err != nil {
		return "", err
	}
	return string(b), nil
}

// Inode returns the inode of name, not following a final symbolic link.
func (f *FS) Inode(name string) (*Inode, error) { return f.lookup("inode", name, false) }

// Extents returns the leaves of the extent tree of name (not following a
// final symbolic link), or nil for an inode without extents.
func (f *FS) Extents(name string) ([]Extent, error) {
	in, err := f.lookup("extents", name, false)
	if err != nil {
		return nil, err
	}
	if in.Flags&extentsFL == 0 || in.Flags&inlineDataFL != 0 || isLink(in) && isFastLink(in) {
		return nil, nil
	}
	l, err := f.extents(in)
	if err != nil {
		return nil, &fs.PathError{Op: "extents", Path: name, Err: err}
	}
	return l, nil
}

// ReadLink returns the target of the symbolic link name.
func (f *FS) ReadLink(name string) (string, error) {
	in, err := f.lookup("readlink", name, false)
	if err != nil {
		return "", err
	}
	if !isLink(in) {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	t, err := f.readlink(in)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return t, nil
}

// Lstat returns the FileInfo of name without following a final symbolic
// link.
func (f *FS) Lstat(name string) (fs.FileInfo, error) {
	in, err := f.lookup("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return &fileInfo{name: path.Base(name), in: in}, nil
}

// Stat returns the FileInfo of name.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	in, err := f.lookup("stat", name, true)
	if err != nil {
		return nil, err
	}
	return &fileInfo{name: path.Base(name), in: in}, nil
}

// maxReadFile bounds the files ReadFile reads into memory: a sparse file
// may be far larger than its image; Open reads one of any size.
const maxReadFile = 1 << 30

// ReadFile returns the contents of the regular file name. A file larger
// than 1 GiB is refused (read it through Open).
func (f *FS) ReadFile(name string) ([]byte, error) {
	in, err := f.lookup("readfile", name, true)
	if err != nil {
		return nil, err
	}
	if in.IsDir() {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: imgfmt.ErrIsDir}
	}
	if in.typ() != sIFREG {
		return []byte{}, nil // devices, FIFOs and sockets read as empty, as Open+Read does
	}
	if in.Size > maxReadFile {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: fmt.Errorf("file of %d bytes is larger than ReadFile reads (%d)", in.Size, maxReadFile)}
	}
	var m blockMap
	if in.Flags&inlineDataFL == 0 {
		if m, err = f.mapOf(in); err != nil {
			return nil, &fs.PathError{Op: "readfile", Path: name, Err: err}
		}
	}
	b := make([]byte, in.Size)
	if err := f.readData(in, m, b, 0); err != nil {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: err}
	}
	return b, nil
}

// ReadDir returns the entries of directory name sorted by name. A
// subdirectory whose ".." is not this directory (a loop, or a directory
// linked twice) is an error.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	in, err := f.lookup("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if !in.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	ents, err := f.dirEntries(in)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	out := make([]fs.DirEntry, 0, len(ents))
	for _, e := range ents {
		cin, err := f.inode(e.Ino)
		if err == nil && cin.IsDir() {
			err = f.checkParent(in, cin, e.Name)
		}
		if err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
		}
		out = append(out, fs.FileInfoToDirEntry(&fileInfo{name: e.Name, in: cin}))
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// checkParent checks that the subdirectory sub of dir, entered as name,
// names dir as its "..", so that a walk of the tree ends: a directory
// that leads back to one above it never does.
func (f *FS) checkParent(dir, sub *Inode, name string) error {
	if sub.Ino == rootIno {
		return formatErr(-1, "", "directory inode %d: entry %q leads back to the root", dir.Ino, name)
	}
	parent, err := f.parentOf(sub)
	if err != nil {
		return err
	}
	if parent != dir.Ino {
		return formatErr(-1, "", "directory inode %d: entry %q is directory inode %d, whose \"..\" is inode %d", dir.Ino, name, sub.Ino, parent)
	}
	return nil
}

// parentOf returns the inode number of the ".." entry of directory in:
// the first 4 bytes of inline data, or the second entry of its first
// block.
func (f *FS) parentOf(in *Inode) (uint32, error) {
	if in.Flags&inlineDataFL != 0 {
		return le.Uint32(in.raw.iBlock()), nil
	}
	if in.Size < f.g.bsize {
		return 0, badSize(in, "directory inode %d at byte %#x: bad i_size %d", in.Ino, in.sizeOff(), in.Size)
	}
	m, err := f.mapOf(in)
	if err != nil {
		return 0, err
	}
	blk := make([]byte, f.g.bsize)
	if err := f.readData(in, m, blk, 0); err != nil {
		return 0, err
	}
	dots := []DirEntry{}
	if _, err := f.parseDirBlock(in, &dots, blk, 0, f.blockOff(m, 0)); err != nil {
		return 0, err
	}
	for _, d := range dots {
		if d.Name == ".." {
			return d.Ino, nil
		}
	}
	return 0, formatErr(-1, "", "directory inode %d has no \"..\" entry in its first block", in.Ino)
}

// Open opens name for reading.
func (f *FS) Open(name string) (fs.File, error) {
	in, err := f.lookup("open", name, true)
	if err != nil {
		return nil, err
	}
	fi := &fileInfo{name: path.Base(name), in: in}
	if in.IsDir() {
		ents, err := f.ReadDir(name)
		if err != nil {
			return nil, err
		}
		return &dir{DirReader: imgfmt.NewDirReader(fi.name, ents), fi: fi}, nil
	}
	x := &file{f: f, fi: fi}
	if in.typ() == sIFREG && in.Flags&inlineDataFL == 0 {
		if x.m, err = f.mapOf(in); err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
	}
	x.FileReader = imgfmt.NewFileReader(fi.name, dataSize(in), x.readAt)
	return x, nil
}

// dataSize is how many bytes an open file of in reads: a regular file's
// or a symbolic link's size (whose read fails), and none for a device,
// FIFO or socket.
func dataSize(in *Inode) int64 {
	switch in.typ() {
	case sIFREG, sIFLNK:
		return in.Size
	}
	return 0
}

// fileInfo is the fs.FileInfo of an inode.
type fileInfo struct {
	name string
	in   *Inode
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.in.Size }
func (fi *fileInfo) ModTime() time.Time { return fi.in.Mtime }
func (fi *fileInfo) IsDir() bool        { return fi.in.IsDir() }
func (fi *fileInfo) Sys() any           { return fi.in }
func (fi *fileInfo) Mode() fs.FileMode {
	return fstree.FileMode(fstree.TypeOfUnixMode(uint32(fi.in.Mode)), uint32(fi.in.Mode))
}

// file is an open non-directory; its FileReader reads the data of a
// regular file.
type file struct {
	imgfmt.FileReader
	f  *FS
	fi *fileInfo
	m  blockMap
}

func (x *file) Stat() (fs.FileInfo, error) { return x.fi, nil }

// readAt reads the file's data at off for its FileReader. A symbolic link
// is not read through its file: os.Open follows it, and an fs.File of one
// has no bytes of its own.
func (x *file) readAt(p []byte, off int64) (int, error) {
	if isLink(x.fi.in) {
		return 0, errSymlinkRead
	}
	if err := x.f.readData(x.fi.in, x.m, p, off); err != nil {
		return 0, err
	}
	return len(p), nil
}

// errSymlinkRead is the error of reading an open symbolic link.
var errSymlinkRead = errors.New("is a symbolic link")

// dir is an open directory; its DirReader lists its entries sorted by
// name.
type dir struct {
	imgfmt.DirReader
	fi *fileInfo
}

func (d *dir) Stat() (fs.FileInfo, error) { return d.fi, nil }
