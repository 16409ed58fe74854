package ext

import (
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// This file is the package's side of the format contract of
// imgkit/inspect/describe: Match recognises an ext2/3/4 image, Fields
// describes one field by field, for tools that explain how two images
// differ (imgkit/inspect, "fixturegen diff"), and Describe puts them
// together. Fields are named as the kernel's fs/ext4/ext4.h names them:
// "s_blocks_count_lo" of struct ext4_super_block, "bg_inode_table_lo" of
// struct ext4_group_desc, "i_mtime" of struct ext4_inode; what the
// headers do not name is said in words ("data", "extents", "symlink
// target", "block bitmap"). A checksum field's value says whether it
// matches what it covers. A Field's Path is "superblock", "group 3", or
// the path of a file or directory ("/", "/a/b.txt").

// Match reports whether head, the first bytes of a file, holds an ext
// superblock at byte 1024: s_magic 0xEF53, a block size of 1024 to 65536
// bytes, an s_rev_level of 0 or 1, and s_blocks_per_group and
// s_inodes_per_group other than 0.
func Match(head []byte) bool {
	if len(head) < superblockOff+superblockSize {
		return false
	}
	s := (*superblock)(head[superblockOff:])
	return le.Uint16(s.sMagic()) == superMagic && le.Uint32(s.sLogBlockSize()) <= maxBlockLog-minBlockLog &&
		le.Uint32(s.sRevLevel()) <= 1 && le.Uint32(s.sBlocksPerGroup()) != 0 && le.Uint32(s.sInodesPerGroup()) != 0
}

// Describe returns the format contract of ext images, for
// imgkit/inspect's registry: Match, NewReader, Fields, a summary ("ext4,
// 4096-byte blocks, 256-byte inodes") and the inode number of each file
// as the listing's column.
func Describe() describe.Kind {
	return describe.Kind{
		Name:    "ext",
		Match:   Match,
		Open:    describe.OpenAs(NewReader),
		Fields:  Fields,
		Summary: describe.SummaryOf(summary),
		Column:  describe.ColumnOf(inodeColumn),
		Owner:   describe.OwnerOf(inodeOwner),
	}
}

// summary says the kind, block size and inode size of an image.
func summary(f *FS) string {
	return f.Kind() + ", " + strconv.Itoa(f.BlockSize()) + "-byte blocks, " + strconv.Itoa(f.InodeSize()) + "-byte inodes"
}

// inodeColumn returns "ino N" for a file of the FS.
func inodeColumn(in *Inode) string { return "ino " + strconv.FormatUint(uint64(in.Ino), 10) }

// inodeOwner returns an inode's i_uid and i_gid; every inode has them.
func inodeOwner(in *Inode) (uid, gid uint32, ok bool) { return in.UID, in.GID, true }

// Kinds of value formatting for a field.
const (
	fmtUns   = iota // unsigned decimal
	fmtHex          // hexadecimal
	fmtTime         // seconds since the epoch, shown as a UTC time too
	fmtStr          // NUL-padded string, quoted
	fmtHash         // bytes, shown as a hash
	fmtMode         // i_mode: octal, with the file type in words
	fmtUUID         // 16 bytes as a UUID
	fmtBytes        // bytes in hex
)

// sbField names one field of the superblock.
type sbField struct {
	name string
	get  func(*superblock) []byte
	kind int
}

// superblockFields lists the fields of struct ext4_super_block in the
// order of ext4.h.
var superblockFields = []sbField{
	{"s_inodes_count", (*superblock).sInodesCount, fmtUns},
	{"s_blocks_count_lo", (*superblock).sBlocksCountLo, fmtUns},
	{"s_r_blocks_count_lo", (*superblock).sRBlocksCountLo, fmtUns},
	{"s_free_blocks_count_lo", (*superblock).sFreeBlocksCountLo, fmtUns},
	{"s_free_inodes_count", (*superblock).sFreeInodesCount, fmtUns},
	{"s_first_data_block", (*superblock).sFirstDataBlock, fmtUns},
	{"s_log_block_size", (*superblock).sLogBlockSize, fmtUns},
	{"s_log_cluster_size", (*superblock).sLogClusterSize, fmtUns},
	{"s_blocks_per_group", (*superblock).sBlocksPerGroup, fmtUns},
	{"s_clusters_per_group", (*superblock).sClustersPerGroup, fmtUns},
	{"s_inodes_per_group", (*superblock).sInodesPerGroup, fmtUns},
	{"s_mtime", (*superblock).sMtime, fmtTime},
	{"s_wtime", (*superblock).sWtime, fmtTime},
	{"s_mnt_count", (*superblock).sMntCount, fmtUns},
	{"s_max_mnt_count", (*superblock).sMaxMntCount, fmtUns},
	{"s_magic", (*superblock).sMagic, fmtHex},
	{"s_state", (*superblock).sState, fmtHex},
	{"s_errors", (*superblock).sErrors, fmtUns},
	{"s_minor_rev_level", (*superblock).sMinorRevLevel, fmtUns},
	{"s_lastcheck", (*superblock).sLastcheck, fmtTime},
	{"s_checkinterval", (*superblock).sCheckinterval, fmtUns},
	{"s_creator_os", (*superblock).sCreatorOs, fmtUns},
	{"s_rev_level", (*superblock).sRevLevel, fmtUns},
	{"s_def_resuid", (*superblock).sDefResuid, fmtUns},
	{"s_def_resgid", (*superblock).sDefResgid, fmtUns},
	{"s_first_ino", (*superblock).sFirstIno, fmtUns},
	{"s_inode_size", (*superblock).sInodeSize, fmtUns},
	{"s_block_group_nr", (*superblock).sBlockGroupNr, fmtUns},
	{"s_feature_compat", (*superblock).sFeatureCompat, fmtHex},
	{"s_feature_incompat", (*superblock).sFeatureIncompat, fmtHex},
	{"s_feature_ro_compat", (*superblock).sFeatureRoCompat, fmtHex},
	{"s_uuid", (*superblock).sUUID, fmtUUID},
	{"s_volume_name", (*superblock).sVolumeName, fmtStr},
	{"s_last_mounted", (*superblock).sLastMounted, fmtStr},
	{"s_algorithm_usage_bitmap", (*superblock).sAlgorithmUsageBitmap, fmtHex},
	{"s_prealloc_blocks", (*superblock).sPreallocBlocks, fmtUns},
	{"s_prealloc_dir_blocks", (*superblock).sPreallocDirBlocks, fmtUns},
	{"s_reserved_gdt_blocks", (*superblock).sReservedGdtBlocks, fmtUns},
	{"s_journal_uuid", (*superblock).sJournalUUID, fmtUUID},
	{"s_journal_inum", (*superblock).sJournalInum, fmtUns},
	{"s_journal_dev", (*superblock).sJournalDev, fmtHex},
	{"s_last_orphan", (*superblock).sLastOrphan, fmtUns},
	{"s_hash_seed", (*superblock).sHashSeed, fmtUUID},
	{"s_def_hash_version", (*superblock).sDefHashVersion, fmtUns},
	{"s_jnl_backup_type", (*superblock).sJnlBackupType, fmtUns},
	{"s_desc_size", (*superblock).sDescSize, fmtUns},
	{"s_default_mount_opts", (*superblock).sDefaultMountOpts, fmtHex},
	{"s_first_meta_bg", (*superblock).sFirstMetaBg, fmtUns},
	{"s_mkfs_time", (*superblock).sMkfsTime, fmtTime},
	{"s_jnl_blocks", (*superblock).sJnlBlocks, fmtBytes},
	{"s_blocks_count_hi", (*superblock).sBlocksCountHi, fmtUns},
	{"s_r_blocks_count_hi", (*superblock).sRBlocksCountHi, fmtUns},
	{"s_free_blocks_count_hi", (*superblock).sFreeBlocksCountHi, fmtUns},
	{"s_min_extra_isize", (*superblock).sMinExtraIsize, fmtUns},
	{"s_want_extra_isize", (*superblock).sWantExtraIsize, fmtUns},
	{"s_flags", (*superblock).sFlags, fmtHex},
	{"s_raid_stride", (*superblock).sRaidStride, fmtUns},
	{"s_mmp_update_interval", (*superblock).sMmpUpdateInterval, fmtUns},
	{"s_mmp_block", (*superblock).sMmpBlock, fmtUns},
	{"s_raid_stripe_width", (*superblock).sRaidStripeWidth, fmtUns},
	{"s_log_groups_per_flex", (*superblock).sLogGroupsPerFlex, fmtUns},
	{"s_checksum_type", (*superblock).sChecksumType, fmtUns},
	{"s_encryption_level", (*superblock).sEncryptionLevel, fmtUns},
	{"s_reserved_pad", (*superblock).sReservedPad, fmtUns},
	{"s_kbytes_written", (*superblock).sKbytesWritten, fmtUns},
	{"s_snapshot_inum", (*superblock).sSnapshotInum, fmtUns},
	{"s_snapshot_id", (*superblock).sSnapshotID, fmtUns},
	{"s_snapshot_r_blocks_count", (*superblock).sSnapshotRBlocksCount, fmtUns},
	{"s_snapshot_list", (*superblock).sSnapshotList, fmtUns},
	{"s_error_count", (*superblock).sErrorCount, fmtUns},
	{"s_first_error_time", (*superblock).sFirstErrorTime, fmtTime},
	{"s_first_error_ino", (*superblock).sFirstErrorIno, fmtUns},
	{"s_first_error_block", (*superblock).sFirstErrorBlock, fmtUns},
	{"s_first_error_func", (*superblock).sFirstErrorFunc, fmtStr},
	{"s_first_error_line", (*superblock).sFirstErrorLine, fmtUns},
	{"s_last_error_time", (*superblock).sLastErrorTime, fmtTime},
	{"s_last_error_ino", (*superblock).sLastErrorIno, fmtUns},
	{"s_last_error_line", (*superblock).sLastErrorLine, fmtUns},
	{"s_last_error_block", (*superblock).sLastErrorBlock, fmtUns},
	{"s_last_error_func", (*superblock).sLastErrorFunc, fmtStr},
	{"s_mount_opts", (*superblock).sMountOpts, fmtStr},
	{"s_usr_quota_inum", (*superblock).sUsrQuotaInum, fmtUns},
	{"s_grp_quota_inum", (*superblock).sGrpQuotaInum, fmtUns},
	{"s_overhead_clusters", (*superblock).sOverheadClusters, fmtUns},
	{"s_backup_bgs", (*superblock).sBackupBgs, fmtBytes},
	{"s_encrypt_algos", (*superblock).sEncryptAlgos, fmtBytes},
	{"s_encrypt_pw_salt", (*superblock).sEncryptPwSalt, fmtBytes},
	{"s_lpf_ino", (*superblock).sLpfIno, fmtUns},
	{"s_prj_quota_inum", (*superblock).sPrjQuotaInum, fmtUns},
	{"s_checksum_seed", (*superblock).sChecksumSeed, fmtHex},
	{"s_wtime_hi", (*superblock).sWtimeHi, fmtUns},
	{"s_mtime_hi", (*superblock).sMtimeHi, fmtUns},
	{"s_mkfs_time_hi", (*superblock).sMkfsTimeHi, fmtUns},
	{"s_lastcheck_hi", (*superblock).sLastcheckHi, fmtUns},
	{"s_first_error_time_hi", (*superblock).sFirstErrorTimeHi, fmtUns},
	{"s_last_error_time_hi", (*superblock).sLastErrorTimeHi, fmtUns},
	{"s_first_error_errcode", (*superblock).sFirstErrorErrcode, fmtUns},
	{"s_last_error_errcode", (*superblock).sLastErrorErrcode, fmtUns},
	{"s_encoding", (*superblock).sEncoding, fmtUns},
	{"s_encoding_flags", (*superblock).sEncodingFlags, fmtHex},
	{"s_orphan_file_inum", (*superblock).sOrphanFileInum, fmtUns},
	{"s_reserved", (*superblock).sReserved, fmtHash},
}

// gdField names one field of a group descriptor; wide fields exist only
// in descriptors of 64 bytes or more.
type gdField struct {
	name string
	get  func(groupDesc) []byte
	kind int
	wide bool
}

// groupDescFields lists the fields of struct ext4_group_desc in the order
// of ext4.h.
var groupDescFields = []gdField{
	{"bg_block_bitmap_lo", groupDesc.bgBlockBitmapLo, fmtUns, false},
	{"bg_inode_bitmap_lo", groupDesc.bgInodeBitmapLo, fmtUns, false},
	{"bg_inode_table_lo", groupDesc.bgInodeTableLo, fmtUns, false},
	{"bg_free_blocks_count_lo", groupDesc.bgFreeBlocksCountLo, fmtUns, false},
	{"bg_free_inodes_count_lo", groupDesc.bgFreeInodesCountLo, fmtUns, false},
	{"bg_used_dirs_count_lo", groupDesc.bgUsedDirsCountLo, fmtUns, false},
	{"bg_flags", groupDesc.bgFlags, fmtHex, false},
	{"bg_exclude_bitmap_lo", groupDesc.bgExcludeBitmapLo, fmtUns, false},
	{"bg_block_bitmap_csum_lo", groupDesc.bgBlockBitmapCsumLo, fmtHex, false},
	{"bg_inode_bitmap_csum_lo", groupDesc.bgInodeBitmapCsumLo, fmtHex, false},
	{"bg_itable_unused_lo", groupDesc.bgItableUnusedLo, fmtUns, false},
	{"bg_block_bitmap_hi", groupDesc.bgBlockBitmapHi, fmtUns, true},
	{"bg_inode_bitmap_hi", groupDesc.bgInodeBitmapHi, fmtUns, true},
	{"bg_inode_table_hi", groupDesc.bgInodeTableHi, fmtUns, true},
	{"bg_free_blocks_count_hi", groupDesc.bgFreeBlocksCountHi, fmtUns, true},
	{"bg_free_inodes_count_hi", groupDesc.bgFreeInodesCountHi, fmtUns, true},
	{"bg_used_dirs_count_hi", groupDesc.bgUsedDirsCountHi, fmtUns, true},
	{"bg_itable_unused_hi", groupDesc.bgItableUnusedHi, fmtUns, true},
	{"bg_exclude_bitmap_hi", groupDesc.bgExcludeBitmapHi, fmtUns, true},
	{"bg_block_bitmap_csum_hi", groupDesc.bgBlockBitmapCsumHi, fmtHex, true},
	{"bg_inode_bitmap_csum_hi", groupDesc.bgInodeBitmapCsumHi, fmtHex, true},
	{"bg_reserved", groupDesc.bgReserved, fmtHex, true},
}

// inodeField names one field of an inode; extra fields lie past the 128
// bytes of the old format and exist where i_extra_isize covers them.
type inodeField struct {
	name  string
	get   func(inode) []byte
	kind  int
	extra bool
}

// inodeFields lists the fields of struct ext4_inode in the order of
// ext4.h, but for i_block, which inodeFieldsOf describes by its use.
var inodeFields = []inodeField{
	{"i_mode", inode.iMode, fmtMode, false},
	{"i_uid", inode.iUID, fmtUns, false},
	{"i_size_lo", inode.iSizeLo, fmtUns, false},
	{"i_atime", inode.iAtime, fmtTime, false},
	{"i_ctime", inode.iCtime, fmtTime, false},
	{"i_mtime", inode.iMtime, fmtTime, false},
	{"i_dtime", inode.iDtime, fmtTime, false},
	{"i_gid", inode.iGID, fmtUns, false},
	{"i_links_count", inode.iLinksCount, fmtUns, false},
	{"i_blocks_lo", inode.iBlocksLo, fmtUns, false},
	{"i_flags", inode.iFlags, fmtHex, false},
	{"l_i_version", inode.lIVersion, fmtUns, false},
	{"i_generation", inode.iGeneration, fmtUns, false},
	{"i_file_acl_lo", inode.iFileACLLo, fmtUns, false},
	{"i_size_high", inode.iSizeHigh, fmtUns, false},
	{"i_obso_faddr", inode.iObsoFaddr, fmtUns, false},
	{"l_i_blocks_high", inode.lIBlocksHigh, fmtUns, false},
	{"l_i_file_acl_high", inode.lIFileACLHigh, fmtUns, false},
	{"l_i_uid_high", inode.lIUIDHigh, fmtUns, false},
	{"l_i_gid_high", inode.lIGIDHigh, fmtUns, false},
	{"l_i_reserved", inode.lIReserved, fmtUns, false},
	{"i_extra_isize", inode.iExtraIsize, fmtUns, true},
	{"i_ctime_extra", inode.iCtimeExtra, fmtHex, true},
	{"i_mtime_extra", inode.iMtimeExtra, fmtHex, true},
	{"i_atime_extra", inode.iAtimeExtra, fmtHex, true},
	{"i_crtime", inode.iCrtime, fmtTime, true},
	{"i_crtime_extra", inode.iCrtimeExtra, fmtHex, true},
	{"i_version_hi", inode.iVersionHi, fmtUns, true},
	{"i_projid", inode.iProjid, fmtUns, true},
}

// Fields describes the ext image in r (size bytes): the superblock field
// by field, each group's descriptor field by field with its bitmaps as
// hashes, and for every file and directory (depth-first, entries in
// bytewise order of name) its inode field by field, its extents or block
// list, and its data as size and hash (a symbolic link's target, a
// device's numbers). Checksum fields say whether they match. Each (Path,
// Name) pair appears once.
func Fields(r io.ReaderAt, size int64) ([]describe.Field, error) {
	f, err := NewReader(r, size)
	if err != nil {
		return nil, err
	}
	d := &describer{f: f, left: describeBudget(f.size), used: map[uint32]bool{}}
	d.superblock()
	if err := d.groups(); err != nil {
		return nil, err
	}
	if err := d.tree(); err != nil {
		return nil, err
	}
	if _, err := d.journal(); err != nil {
		return nil, err
	}
	if err := d.unusedInodes(); err != nil {
		return nil, err
	}
	return d.out, nil
}

// describer collects the fields of one image.
type describer struct {
	f   *FS
	out []describe.Field
	// used holds the inodes described (the tree's and the journal's).
	used map[uint32]bool
	// left is how many more bytes of file contents, holes included, the
	// description may hash (describeBudget): a crafted image can give
	// every inode an i_size near maxReadFile, or map one block many times
	// over, and describing it must still end in time bounded by its size.
	left int64
}

// describeBudget is how many bytes of file contents, holes included, a
// description of an image of size bytes hashes at most: 16 times the
// image and 256 MiB more, far above what the files of any image that was
// written rather than crafted hold (holes past the budget are hashed by
// their length; data past it is an error).
func describeBudget(size int64) int64 { return 16*size + 256<<20 }

func (d *describer) add(p, name string, off int64, field []byte, kind int) {
	d.out = append(d.out, describe.Field{Path: p, Name: name, Offset: off, Size: int64(len(field)), Value: value(field, kind)})
}

// value formats field as kind says.
func value(b []byte, kind int) string {
	switch kind {
	case fmtStr:
		if i := slices.Index(b, 0); i >= 0 {
			b = b[:i]
		}
		return strconv.Quote(string(b))
	case fmtHash:
		return describe.Sum(b)
	case fmtUUID:
		u := hex.EncodeToString(b)
		return u[:8] + "-" + u[8:12] + "-" + u[12:16] + "-" + u[16:20] + "-" + u[20:]
	case fmtBytes:
		return hex.EncodeToString(b)
	}
	u := uintOf(b)
	switch kind {
	case fmtHex:
		return "0x" + strconv.FormatUint(u, 16)
	case fmtTime:
		return time.Unix(int64(int32(u)), 0).UTC().Format("2006-01-02 15:04:05") + " UTC (" + strconv.FormatInt(int64(int32(u)), 10) + ")"
	case fmtMode:
		return modeString(u)
	}
	return strconv.FormatUint(u, 10)
}

var typeNames = map[uint64]string{sIFIFO: "fifo", sIFCHR: "character device", sIFDIR: "directory", sIFBLK: "block device",
	sIFREG: "regular file", sIFLNK: "symbolic link", sIFSOCK: "socket"}

// modeString formats i_mode as "0100644 (regular file)".
func modeString(m uint64) string {
	t := typeNames[m&sIFMT]
	if t == "" {
		t = "unknown type"
	}
	return "0" + strconv.FormatUint(m, 8) + " (" + t + ")"
}

// csumValue formats a checksum field whose value is got and whose
// contents give want: "0x1234 (matches)" or "0x1234 (computed 0x5678)".
func csumValue(got, want uint64) string {
	if got == want {
		return "0x" + strconv.FormatUint(got, 16) + " (matches)"
	}
	return "0x" + strconv.FormatUint(got, 16) + " (computed 0x" + strconv.FormatUint(want, 16) + ")"
}

// superblock appends the fields of the primary superblock.
func (d *describer) superblock() {
	s := &d.f.sb
	for _, sf := range superblockFields {
		b := sf.get(s)
		d.add("superblock", sf.name, superblockOff+fieldOff(s[:], b), b, sf.kind)
	}
	b := s.sChecksum()
	f := describe.Field{Path: "superblock", Name: "s_checksum", Offset: superblockOff + fieldOff(s[:], b), Size: 4, Value: value(b, fmtHex)}
	if d.f.hasRoCompat(roCompatMetadataCsum) {
		f.Value = csumValue(uintOf(b), uint64(superblockCsum(s)))
	}
	d.out = append(d.out, f)
}

// groups appends each group descriptor's fields and its bitmaps.
func (d *describer) groups() error {
	f := d.f
	csum := f.hasRoCompat(roCompatMetadataCsum) || f.hasRoCompat(roCompatGdtCsum)
	for i, gd := range f.gdt {
		p := "group " + strconv.Itoa(i)
		off := f.descOff(uint64(i))
		for _, gf := range groupDescFields {
			if gf.wide && !gd.wide() {
				continue
			}
			b := gf.get(gd)
			d.add(p, gf.name, off+fieldOff(gd, b), b, gf.kind)
		}
		b := gd.bgChecksum()
		cf := describe.Field{Path: p, Name: "bg_checksum", Offset: off + fieldOff(gd, b), Size: 2, Value: value(b, fmtHex)}
		if csum {
			cf.Value = csumValue(uintOf(b), uint64(f.groupDescCsum(uint32(i), gd)))
		}
		d.out = append(d.out, cf)
	}
	return d.bitmaps()
}

// bitmaps appends each group's block and inode bitmap as a hash of its
// block, and with metadata_csum its checksum ("block bitmap checksum",
// from bg_block_bitmap_csum_lo and _hi), read a run of adjacent bitmaps at
// a time.
func (d *describer) bitmaps() error {
	f := d.f
	type bm struct {
		sum, csum string
		off       int64
		csumOff   int64
	}
	got := make([][2]*bm, len(f.gdt))
	err := f.eachBitmap(func(r bitmapRef, b []byte) {
		x := &bm{sum: describe.Sum(b), off: int64(r.blk) * f.g.bsize}
		if g, w, ok := f.bitmapCsum(r, b); ok {
			gd := f.gdt[r.group]
			lo := gd.bgBlockBitmapCsumLo()
			if r.inode {
				lo = gd.bgInodeBitmapCsumLo()
			}
			// The field is the low half's place; the high half, where
			// the descriptor has it, lies 32 bytes on.
			x.csum, x.csumOff = csumValue(uint64(g), uint64(w)), f.descOff(uint64(r.group))+fieldOff(gd, lo)
		}
		got[r.group][boolIndex(r.inode)] = x
	})
	if err != nil {
		return err
	}
	for i, pair := range got {
		p := "group " + strconv.Itoa(i)
		for k, name := range []string{"block bitmap", "inode bitmap"} {
			x := pair[k]
			if x == nil {
				continue
			}
			d.out = append(d.out, describe.Field{Path: p, Name: name, Offset: x.off, Size: f.g.bsize, Value: x.sum})
			if x.csum != "" {
				d.out = append(d.out, describe.Field{Path: p, Name: name + " checksum", Offset: x.csumOff, Size: 2, Value: x.csum})
			}
		}
	}
	return nil
}

// boolIndex is 1 for true, 0 for false.
func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// tree appends the fields of every inode reachable from the root.
func (d *describer) tree() error {
	f := d.f
	seen := map[uint32]bool{}
	var walk func(p string, ino uint32) error
	walk = func(p string, ino uint32) error {
		in, err := f.inode(ino)
		if err != nil {
			return fmt.Errorf("ext: %s: %w", p, err)
		}
		if err := d.inode(p, in); err != nil {
			return fmt.Errorf("ext: %s: %w", p, err)
		}
		if !in.IsDir() {
			return nil
		}
		if seen[ino] {
			return formatErr(-1, "", "%s: directory inode %d reached twice", p, ino)
		}
		seen[ino] = true
		ents, _, err := f.readDir(in, func(x dxSum) {
			d.out = append(d.out, describe.Field{Path: p, Name: fmt.Sprintf("index block %d dt_checksum", x.lbn), Offset: x.off, Size: 4,
				Value: csumValue(uint64(x.got), uint64(x.want))})
		})
		if err != nil {
			return fmt.Errorf("ext: %s: %w", p, err)
		}
		slices.SortFunc(ents, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
		for _, e := range ents {
			if err := walk(strings.TrimSuffix(p, "/")+"/"+e.Name, e.Ino); err != nil {
				return err
			}
		}
		return nil
	}
	return walk("/", rootIno)
}

// inode appends the fields of the inode in at path p.
func (d *describer) inode(p string, in *Inode) error {
	f, n := d.f, in.raw
	d.used[in.Ino] = true
	for _, x := range inodeFields {
		if x.extra && (len(n) <= goodOldInodeSize || !n.extraEnd(int(fieldOff(n, x.get(n)))+len(x.get(n)))) {
			continue
		}
		b := x.get(n)
		d.add(p, x.name, in.off+fieldOff(n, b), b, x.kind)
	}
	if f.hasRoCompat(roCompatMetadataCsum) {
		got := uint64(le.Uint16(n.lIChecksumLo()))
		size := int64(2)
		if n.hasChecksumHi() {
			got |= uint64(le.Uint16(n.iChecksumHi())) << 16
			size = 4
		}
		d.out = append(d.out, describe.Field{Path: p, Name: "i_checksum", Offset: in.off + fieldOff(n, n.lIChecksumLo()), Size: size,
			Value: csumValue(got, uint64(f.inodeCsum(in.Ino, n)))})
	} else {
		d.add(p, "l_i_checksum_lo", in.off+fieldOff(n, n.lIChecksumLo()), n.lIChecksumLo(), fmtHex)
	}
	if err := d.xattrs(p, in); err != nil {
		return err
	}
	iblock := n.iBlock()
	iblockOff := in.off + fieldOff(n, iblock)
	switch t := in.typ(); {
	case t == sIFCHR || t == sIFBLK:
		d.out = append(d.out, describe.Field{Path: p, Name: "device", Offset: iblockOff, Size: 8,
			Value: strconv.FormatUint(uint64(in.Major), 10) + "," + strconv.FormatUint(uint64(in.Minor), 10)})
		return nil
	case t == sIFLNK:
		target, err := f.readlink(in)
		if err != nil {
			return err
		}
		if isFastLink(in) {
			d.out = append(d.out, describe.Field{Path: p, Name: "symlink target", Offset: iblockOff, Size: in.Size, Value: strconv.Quote(target)})
			return nil
		}
		return d.data(p, in, "symlink target", strconv.Quote(target))
	case t == sIFREG || t == sIFDIR:
		return d.data(p, in, "data", "")
	}
	d.add(p, "i_block", iblockOff, iblock, fmtBytes)
	return nil
}

// xattrs appends the header of the inode's attribute block (as
// "xattr block h_magic" and so on) and each extended attribute as
// "xattr NAME": a short printable value quoted, any other as its size
// and hash, and where it lies; and "xattr NAME e_hash", which says
// whether it matches.
func (d *describer) xattrs(p string, in *Inode) error {
	f := d.f
	recs, xb, err := f.xattrs(in)
	if err != nil {
		return err
	}
	if xb != nil {
		h, off := xattrHeader(xb.raw), xb.off(f)
		for _, x := range []struct {
			name string
			b    []byte
			kind int
		}{{"h_magic", h.hMagic(), fmtHex}, {"h_refcount", h.hRefcount(), fmtUns}, {"h_blocks", h.hBlocks(), fmtUns}, {"h_hash", h.hHash(), fmtHex}} {
			d.add(p, "xattr block "+x.name, off+fieldOff(h, x.b), x.b, x.kind)
		}
		cf := describe.Field{Path: p, Name: "xattr block h_checksum", Offset: off + fieldOff(h, h.hChecksum()), Size: 4, Value: value(h.hChecksum(), fmtHex)}
		if f.hasRoCompat(roCompatMetadataCsum) {
			cf.Value = csumValue(uintOf(h.hChecksum()), uint64(xb.wantCsum))
		}
		d.out = append(d.out, cf)
	}
	for _, r := range recs {
		v := xattrValueString(r.Value)
		fd := describe.Field{Path: p, Name: "xattr " + r.Name, Offset: r.valueOff, Size: int64(len(r.Value)), Value: v}
		if r.Inum != 0 {
			fd.Value += " (in ea_inode " + strconv.FormatUint(uint64(r.Inum), 10) + ")"
		} else if r.valueOff < 0 {
			fd.Offset, fd.Size = r.entryOff, r.entryLen // an empty value: the entry says it
		}
		d.out = append(d.out, fd)
		hv := csumValue(uint64(r.hash), uint64(r.wantHash))
		if r.hashOK && r.hash != r.wantHash {
			hv = "0x" + strconv.FormatUint(uint64(r.hash), 16) + " (matches"
			if r.hash != 0 {
				hv += ", hashing the name's bytes as signed chars)"
			} else {
				hv += ": 0 in an inode's body is not checked)"
			}
		}
		d.out = append(d.out, describe.Field{Path: p, Name: "xattr " + r.Name + " e_hash", Offset: r.entryOff + 12, Size: 4, Value: hv})
	}
	return nil
}

// maxQuotedXattr is the longest value Fields shows quoted.
const maxQuotedXattr = 64

// xattrValueString shows an attribute's value: quoted when it is short,
// printable text (a trailing NUL, which many values carry, dropped),
// else as its size and hash.
func xattrValueString(v []byte) string {
	t := strings.TrimSuffix(string(v), "\x00")
	if len(v) <= maxQuotedXattr && utf8.ValidString(t) && !strings.ContainsFunc(t, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(string(v))
	}
	return describe.DataValue(int64(len(v)), describe.Sum(v))
}

// data appends the extents or block list of in and its contents, as the
// field name with value (or, when value is "", its size and hash).
func (d *describer) data(p string, in *Inode, name, val string) error {
	f, g := d.f, &d.f.g
	iblock := in.raw.iBlock()
	iblockOff := in.off + fieldOff(in.raw, iblock)
	if in.Flags&inlineDataFL != 0 {
		b, _, err := f.inlineData(in)
		if err != nil {
			return err
		}
		b = b[:min(int64(len(b)), in.Size)]
		if val == "" {
			val = describe.DataValue(in.Size, describe.Sum(b))
		}
		d.out = append(d.out, describe.Field{Path: p, Name: name, Offset: iblockOff, Size: in.Size, Value: val})
		return nil
	}
	m, err := f.mapOf(in)
	if err != nil {
		return err
	}
	if l, ok := m.(extentList); ok {
		runs := make([]string, len(l))
		for i, e := range l {
			runs[i] = fmt.Sprintf("(%d-%d):%d-%d", e.Logical, uint64(e.Logical)+uint64(e.Len)-1, e.Start, e.Start+uint64(e.Len)-1)
			if e.Unwritten {
				runs[i] += " unwritten"
			}
		}
		d.out = append(d.out, describe.Field{Path: p, Name: "extents", Offset: iblockOff, Size: iBlockSz, Value: "[" + strings.Join(runs, " ") + "]"})
	} else {
		words := make([]string, 0, nBlocks)
		last := 0
		for i := range nBlocks {
			v := le.Uint32(in.raw.iBlockWord(i))
			words = append(words, strconv.FormatUint(uint64(v), 10))
			if v != 0 {
				last = i + 1
			}
		}
		d.out = append(d.out, describe.Field{Path: p, Name: "i_block", Offset: iblockOff, Size: iBlockSz, Value: "[" + strings.Join(words[:last], " ") + "]"})
	}
	h := describe.NewHash()
	var spans [][2]int64
	var buf []byte // a run's data, read a MiB at a time (readData reads a run in one call)
	// Holes are hashed as the zeros they read as, but in a file larger
	// than ReadFile reads (a sparse file of terabytes, or a corrupt
	// i_size) by their length, so that describing it takes no longer than
	// reading its blocks.
	exact := in.Size <= maxReadFile && in.Size <= d.left
	for off := int64(0); off < in.Size; {
		// A run of data is read a MiB of blocks at a time; a hole is
		// taken whole, and so is everything past the 2^32 blocks a
		// file can map (a corrupt i_size), so that the walk takes a
		// step per run, not per block.
		lbn := uint64(off / g.bsize)
		var pblk uint64
		n := in.Size - off
		if lbn < 1<<32 {
			var run uint64
			var err error
			if pblk, run, err = m.lookup(lbn); err != nil {
				return err
			}
			if pblk != 0 {
				run = min(run, 1<<20)
			}
			if run < uint64(n/g.bsize+1) {
				n = min(n, max(int64(run), 1)*g.bsize)
			}
		}
		if pblk == 0 && !exact {
			fmt.Fprintf(h, "hole of %d bytes\n", n)
		} else if pblk == 0 {
			d.left -= n
			hashZeros(h, n, zeroChunk())
		} else {
			if d.left -= n; d.left < 0 {
				return &imgfmt.FormatError{Format: "ext", Off: in.off, Field: "i_size_lo",
					Msg: fmt.Sprintf("%s: the files map more than %d bytes of data, more than an image of %d bytes holds (blocks mapped many times over)", p, describeBudget(f.size), f.size), Err: ErrFormat}
			}
			if buf == nil {
				buf = make([]byte, min(in.Size, 1<<20))
			}
			for k := int64(0); k < n; k += int64(len(buf)) {
				c := buf[:min(int64(len(buf)), n-k)]
				if err := f.readData(in, m, c, off+k); err != nil {
					return err
				}
				h.Write(c)
			}
			spans = addSpan(spans, int64(pblk)*g.bsize, n)
		}
		off += n
	}
	if val == "" {
		val = describe.DataValue(in.Size, h.Sum())
		if !exact {
			val += " (holes hashed by length)"
		}
	}
	d.out = append(d.out, describe.Field{Path: p, Name: name, Offset: -1, Size: in.Size, Value: val, Spans: spans})
	return nil
}

// unusedInodes appends, for each group, one spread field "unused
// inodes" for the inodes of its table that no path reaches (the
// reserved inodes but the root and the journal, free inodes), up to the
// first of the bg_itable_unused inodes that gdt_csum and metadata_csum
// leave unwritten at the table's end (none with EXT4_BG_INODE_UNINIT):
// their bytes, i_generation and times of deleted files, are what sets
// them apart. The tables are read a MiB at a time, within the
// description's budget.
func (d *describer) unusedInodes() error {
	f, g := d.f, &d.f.g
	csum := f.hasRoCompat(roCompatMetadataCsum) || f.hasRoCompat(roCompatGdtCsum)
	per := max(1, (1<<20)/g.inodeSize)
	buf := make([]byte, min(uint64(per), g.ipg)*uint64(g.inodeSize))
	for grp, gd := range f.gdt {
		n := g.ipg
		if csum {
			n -= min(n, gd.lohi(groupDesc.bgItableUnusedLo, groupDesc.bgItableUnusedHi))
			if le.Uint16(gd.bgFlags())&bgFlagInodeUninit != 0 {
				n = 0
			}
		}
		it := int64(gd.lohi(groupDesc.bgInodeTableLo, groupDesc.bgInodeTableHi)) * g.bsize
		if it+int64(n)*g.inodeSize > f.size {
			continue // past an image cut short
		}
		if d.left -= int64(n) * g.inodeSize; d.left < 0 {
			return nil
		}
		h := describe.NewHash()
		var spans [][2]int64
		count := 0
		for i := uint64(0); i < n; i += uint64(per) {
			k := min(uint64(per), n-i)
			b := buf[:k*uint64(g.inodeSize)]
			off := it + int64(i)*g.inodeSize
			if err := f.readAt(b, off); err != nil {
				return fmt.Errorf("ext: reading the inode table of group %d at byte %#x: %w", grp, off, err)
			}
			for j := uint64(0); j < k; j++ {
				if d.used[uint32(uint64(grp)*g.ipg+i+j+1)] {
					continue
				}
				h.Write(b[int64(j)*g.inodeSize:][:g.inodeSize])
				spans = addSpan(spans, off+int64(j)*g.inodeSize, g.inodeSize)
				count++
			}
		}
		if count == 0 {
			continue
		}
		d.out = append(d.out, describe.Field{Path: "group " + strconv.Itoa(grp), Name: "unused inodes", Offset: -1, Size: int64(count) * g.inodeSize,
			Value: strconv.Itoa(count) + " inodes in " + strconv.Itoa(len(spans)) + " runs, " + h.Sum(), Spans: spans})
	}
	return nil
}

// zeroChunk is the zeros a hole is hashed as, a chunk at a time, made
// when first needed.
var zeroChunk = sync.OnceValue(func() []byte { return make([]byte, 64<<10) })

// addSpan appends [off, off+n), merging it with the last span when they
// touch.
func addSpan(spans [][2]int64, off, n int64) [][2]int64 {
	if k := len(spans); k > 0 && spans[k-1][1] == off {
		spans[k-1][1] = off + n
		return spans
	}
	return append(spans, [2]int64{off, off + n})
}

// check that FS is what fs.FS users expect.
var (
	_ fs.ReadDirFS  = (*FS)(nil)
	_ fs.ReadFileFS = (*FS)(nil)
	_ fs.StatFS     = (*FS)(nil)
)
