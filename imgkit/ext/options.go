package ext

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// ErrOption reports an Options value the writer refuses: out of range, or
// a mke2fs setting it does not reproduce yet (it never writes bytes that
// differ from mke2fs's instead).
var ErrOption = errors.New("ext: bad option")

// ErrNoSpace reports a tree that does not fit the file system's blocks or
// inodes.
var ErrNoSpace = errors.New("ext: no space")

// Options are the mke2fs(8) settings the writer takes, as typed fields.
// The zero value is `mke2fs -t ext2` with mke2fs 1.47.4's default
// mke2fs.conf; Size is required.
type Options struct {
	// Type is the file system type of mke2fs -t: "ext2" (or ""), "ext3"
	// (ext2 with a journal in inode 8) or "ext4" (mke2fs.conf's ext4
	// features: extents, flex_bg, 64bit, metadata_csum and its seed,
	// huge_file, dir_nlink, extra_isize, orphan_file and the journal).
	Type string
	// Size is the file system's size in bytes (mke2fs's size argument);
	// it takes Size/BlockSize blocks, fewer when a last group would be
	// too small for its metadata (ext2fs_initialize drops it), and the
	// image ends with its last block, as mke2fs writes it.
	Size int64
	// BlockSize (-b) is a power of 2 from 1024 to 65536 (blocks past
	// 4096 give groups of 65528 blocks at most); 0 chooses from the size as
	// mke2fs.conf does (1024 under 512 MiB, else 4096).
	BlockSize int
	// InodeSize (-I) is 128, 256, 512 or 1024 (at most the block
	// size); 0 means 256.
	InodeSize int
	// InodeRatio (-i) is the bytes per inode; 0 chooses from the size as
	// mke2fs.conf does (8192 under 3 MiB, 4096 under 512 MiB, then 16384,
	// 32768 from 4 TiB and 65536 from 16 TiB).
	InodeRatio int
	// ReservedPercent (-m) is the share of blocks reserved for root; nil
	// means 5.
	ReservedPercent *float64
	// Label (-L) is the volume name, at most 16 bytes.
	Label string
	// LastMounted (-M) is s_last_mounted, the directory the file system
	// was last mounted on, at most 64 bytes.
	LastMounted string
	// InodeCount (-N) is the least number of inodes; 0 derives it from
	// the size and InodeRatio.
	InodeCount uint64
	// BlocksPerGroup (-g) is a multiple of 8 from 256 to 8 times the
	// block size; 0 means 8 times the block size.
	BlocksPerGroup int
	// FlexGroups (-G) is ext4's flex_bg size, a power of 2; 0 means 16.
	FlexGroups int
	// JournalMiB (-J size=) is the journal's size in MiB of ext3 and ext4;
	// 0 sizes it from the file system as mke2fs does.
	JournalMiB int
	// RootUID and RootGID (-E root_owner=) own the root directory.
	RootUID, RootGID uint32
	// Stride and StripeWidth (-E stride=, stripe_width=) are the RAID
	// geometry in blocks (s_raid_stride, s_raid_stripe_width); without
	// flex_bg the stride also staggers each group's bitmaps.
	Stride, StripeWidth uint32
	// Features (-O) edits the type's features as mke2fs -O does: a name
	// turns a feature on, ^name off. The features written are FeatureNames
	// (and the base ones, which cannot be turned off).
	Features []string
	// ClusterSize (-C) is bigalloc's allocation unit in bytes: with the
	// bigalloc feature blocks are allocated a cluster at a time, the
	// block bitmap has a bit per cluster, s_clusters_per_group is
	// BlocksPerGroup (-g counts clusters then) and i_blocks counts whole
	// clusters (ext4 layout, "Bigalloc"). As mke2fs(8) reads -C, the size
	// is taken as a power of 2 KiB rounded down, from 2048 to 2^29
	// bytes and at least the block size; 0 means 16 blocks. It needs
	// bigalloc in Features (which needs extent).
	ClusterSize int
	// QuotaTypes (-E quotatype=) are the quota files the quota feature
	// makes, as mke2fs's words: "usrquota", "grpquota", "prjquota" (or
	// "usr", "grp", "prj"), each turning its type on from none, or off
	// after "^". Nil means user and group; prjquota turns the project
	// feature on (which needs 256-byte inodes), and project adds
	// prjquota. An empty list makes no quota file.
	QuotaTypes []string
	// NumBackupSB (-E num_backup_sb=) is how many superblock copies
	// sparse_super2 keeps: 0, 1 (group 1) or 2 (and the last group); nil
	// means 2.
	NumBackupSB *int
	// PackedMetaBlocks (-E packed_meta_blocks) puts the journal at the
	// start of the disk and, with flex_bg, every group's block bitmap,
	// then inode bitmap, then inode table after the superblock and
	// descriptors of group 0, as mke2fs's packed_allocate_tables does.
	PackedMetaBlocks bool
	// Offset (-E offset=) is where the file system starts in the image,
	// in bytes: the image is Offset zero bytes, then the file system of
	// Size bytes.
	Offset int64
	// NoCopyXattrs (-E no_copy_xattrs) leaves out the extended attributes
	// of the source's files, which mke2fs -d copies (read from a host
	// folder on Linux, or given by a tree's Node.Xattrs).
	NoCopyXattrs bool
	// Errors (-e) is s_errors, what the kernel does on an error: 1
	// continue (0 means 1), 2 remount read-only, 3 panic.
	Errors int
	// ZeroedInodeTables marks every group's inode table zeroed
	// (EXT2_BG_INODE_ZEROED with metadata_csum), as mke2fs does with
	// -E lazy_itable_init=0 or assume_storage_prezeroed=1.
	ZeroedInodeTables bool
	// UUID (-U) and HashSeed (-E hash_seed) are the file system's UUID and
	// directory hash seed. Zero means ids derived from the options and the
	// tree (DETAILS.md "UUID and hash seed"), where mke2fs draws random
	// ones: the same inputs give the same image.
	UUID, HashSeed [16]byte
	// Timestamp is the time of the file system (its creation, last write
	// and check times, and the inodes mke2fs makes) and, as makefs -T,
	// every file's times; with ClampTimes it is SOURCE_DATE_EPOCH, an
	// upper bound of the files' times, as mke2fs 1.47.4 clamps them. Zero
	// keeps the files' times as found and takes the tree's newest
	// modification time (the epoch for none) as the file system's, never
	// the clock.
	Timestamp  time.Time
	ClampTimes bool

	// Cache holds the block cache's options (imgkit/bcache) for the image
	// file WriteFile writes; nil means the defaults.
	Cache *bcache.Options
	// Warn receives one line per node the writer skips; nil discards.
	Warn io.Writer
}

// check refuses what the writer does not reproduce.
func (o *Options) check() error {
	switch o.Type {
	case "", "ext2", "ext3", "ext4":
	default:
		return fmt.Errorf("%w: Type %q: want ext2, ext3 or ext4", ErrOption, o.Type)
	}
	if o.Size <= 0 {
		return fmt.Errorf("%w: Size must be given (bytes of the image)", ErrOption)
	}
	switch o.BlockSize {
	case 0, 1024, 2048, 4096, 8192, 16384, 32768, 65536:
	default:
		return fmt.Errorf("%w: BlockSize %d: want 1024, 2048 or 4096", ErrOption, o.BlockSize)
	}
	switch o.InodeSize {
	case 0, 128, 256, 512, 1024:
	default:
		return fmt.Errorf("%w: InodeSize %d: want 128, 256, 512 or 1024", ErrOption, o.InodeSize)
	}
	if o.InodeRatio != 0 && (o.InodeRatio < 1024 || o.InodeRatio > 65536*1024) {
		return fmt.Errorf("%w: InodeRatio %d: want 1024 to 67108864", ErrOption, o.InodeRatio)
	}
	if p := o.ReservedPercent; p != nil && (*p < 0 || *p > 50) {
		return fmt.Errorf("%w: ReservedPercent %v: want 0 to 50", ErrOption, *p)
	}
	if len(o.Label) > 16 {
		return fmt.Errorf("%w: Label %q is longer than 16 bytes", ErrOption, o.Label)
	}
	if o.Offset < 0 || o.Offset > math.MaxInt64-o.Size {
		return fmt.Errorf("%w: Offset %d: want 0 or more", ErrOption, o.Offset)
	}
	if n := o.NumBackupSB; n != nil && (*n < 0 || *n > 2) {
		return fmt.Errorf("%w: NumBackupSB %d: want 0, 1 or 2", ErrOption, *n)
	}
	if o.Errors < 0 || o.Errors > 3 {
		return fmt.Errorf("%w: Errors %d: want 1, 2 or 3", ErrOption, o.Errors)
	}
	if len(o.LastMounted) > 64 {
		return fmt.Errorf("%w: LastMounted %q is longer than 64 bytes", ErrOption, o.LastMounted)
	}
	if o.InodeCount > math.MaxUint32 {
		return fmt.Errorf("%w: InodeCount %d: want fewer than 2^32", ErrOption, o.InodeCount)
	}
	if n := o.BlocksPerGroup; n != 0 && (n%8 != 0 || n < 256) {
		return fmt.Errorf("%w: BlocksPerGroup %d: want a multiple of 8, at least 256", ErrOption, n)
	}
	if n := o.FlexGroups; n != 0 && (n&(n-1) != 0 || n > 1<<30) {
		return fmt.Errorf("%w: FlexGroups %d: want a power of 2", ErrOption, n)
	}
	if n := o.ClusterSize; n != 0 && (n <= 1024 || n > 1<<29) {
		return fmt.Errorf("%w: ClusterSize %d: invalid cluster size (want 2048 to 536870912 bytes), as mke2fs says", ErrOption, n)
	}
	if o.JournalMiB < 0 {
		return fmt.Errorf("%w: JournalMiB %d: want a size in MiB", ErrOption, o.JournalMiB)
	}
	return nil
}
