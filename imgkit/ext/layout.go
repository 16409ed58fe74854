package ext

import (
	"fmt"
	"math/bits"
)

// This file computes the geometry mke2fs 1.47.4 gives a file system
// (lib/ext2fs/initialize.c and misc/mke2fs.c's parameter choice), for the
// features of ext2: sparse_super, large_file, filetype, resize_inode,
// dir_index and ext_attr.

// mkGeometry is what ext2fs_initialize decides.
type mkGeometry struct {
	bs          int    // block size in bytes
	logBS       uint32 // s_log_block_size
	blocks      uint64 // s_blocks_count
	rBlocks     uint64 // s_r_blocks_count
	firstData   uint64 // s_first_data_block
	bpg         uint64 // s_blocks_per_group
	ipg         uint32 // s_inodes_per_group
	inodeSize   int
	groups      uint32
	descBlocks  uint64
	rsvGDT      uint64 // s_reserved_gdt_blocks
	itbPerGroup uint64 // inode table blocks per group
	inodes      uint32 // s_inodes_count
	descSize    int    // bytes of a group descriptor: 32, or 64 with 64bit
	// noResize is set past 2^32 blocks, where mke2fs turns resize_inode
	// off (and reserves no GDT block).
	noResize bool
	noSparse bool // without sparse_super every group holds a copy
	// sparse2 is sparse_super2: the copies are in backupBgs only
	// (s_backup_bgs, 0 for none).
	sparse2   bool
	backupBgs [2]uint32
	logFlex   uint32 // s_log_groups_per_flex: 4 with flex_bg, else 0
	// metaBg is meta_bg (s_first_meta_bg 0): a meta group's
	// descriptor block in its first, second and last group only.
	metaBg bool
	// cbits is bigalloc's log2 of blocks per cluster
	// (s_log_cluster_size - s_log_block_size), 0 without it: blocks
	// are allocated a cluster at a time and the block bitmap has a bit
	// per cluster.
	cbits uint32
}

// ratio is EXT2FS_CLUSTER_RATIO, blocks per cluster.
func (g *mkGeometry) ratio() uint64 { return 1 << g.cbits }

// cpg is s_clusters_per_group.
func (g *mkGeometry) cpg() uint64 { return g.bpg >> g.cbits }

// cmask is EXT2FS_CLUSTER_MASK.
func (g *mkGeometry) cmask() uint64 { return g.ratio() - 1 }

// sbBlock is the block of group 0's superblock: s_first_data_block, but
// block 1 with 1 KiB blocks and bigalloc, whose first data block is 0.
func (g *mkGeometry) sbBlock() uint64 {
	if g.bs == 1024 {
		return 1
	}
	return g.firstData
}

const (
	firstIno   = 11 // EXT2_GOOD_OLD_FIRST_INO, mke2fs's s_first_ino
	badIno     = 1
	resizeIno  = 7
	largeExtra = 32 // sizeof(struct ext2_inode_large) - 128
	indBlock   = 12
	dindBlock  = 13
	tindBlock  = 14
	mebi       = 1 << 20
	dirTailLen = 12 // sizeof(struct ext2_dir_entry_tail)
	// maxBlocksPerGroup is EXT2_MAX_BLOCKS_PER_GROUP: a group's free
	// count must fit 16 bits.
	maxBlocksPerGroup = 65536 - 8
	// orphanBlockMagic is EXT4_ORPHAN_BLOCK_MAGIC, ob_magic of the
	// tail (struct ext4_orphan_block_tail) ending each orphan file block.
	orphanBlockMagic = 0x0b10ca04
	// defaultLogFlex is log2 of mke2fs's default flex_bg size, 16 groups.
	defaultLogFlex = 4
	defaultRsvPct  = 5.0
)

// sizeType is mke2fs's usage type from the size, which mke2fs.conf maps
// to a block size and an inode ratio.
func sizeType(blocks uint64, bs int) (blockSize, inodeRatio int) {
	meg := uint64(mebi / bs)
	switch {
	case blocks < 3*meg:
		return 1024, 8192 // floppy
	case blocks < 512*meg:
		return 1024, 4096 // small
	case blocks < 4*1024*1024*meg:
		return 4096, 16384 // default
	case blocks < 16*1024*1024*meg:
		return 4096, 32768 // big
	}
	return 4096, 65536 // huge
}

// newGeometry is ext2fs_initialize's arithmetic for o.
func newGeometry(o *Options, ft features) (*mkGeometry, error) {
	bs := o.BlockSize
	if bs == 0 {
		// mke2fs sizes the device in 1 KiB blocks to choose the type.
		bs, _ = sizeType(uint64(o.Size)/1024, 1024)
	}
	g := &mkGeometry{bs: bs, inodeSize: 256, descSize: minDescSize}
	if ft.bit64 {
		g.descSize = minDescSize64bit
	}
	if ft.flex {
		g.logFlex = defaultLogFlex
		if o.FlexGroups != 0 {
			g.logFlex = uint32(bits.TrailingZeros(uint(o.FlexGroups)))
		}
	}
	if o.InodeSize != 0 {
		g.inodeSize = o.InodeSize
	}
	if g.inodeSize > bs {
		return nil, fmt.Errorf("%w: InodeSize %d: invalid inode size %d (min %d/max %d), as mke2fs says", ErrOption, g.inodeSize, g.inodeSize, goodOldInodeSize, bs)
	}
	if ft.inline && g.inodeSize == goodOldInodeSize {
		return nil, fmt.Errorf("%w: Features: %d byte inodes are too small for inline data; specify larger size (as mke2fs says)", ErrOption, g.inodeSize)
	}
	for l := uint32(0); 1024<<l < bs; l++ {
		g.logBS = l + 1
	}
	param := uint64(o.Size) / uint64(bs)
	_, ratio := sizeType(param, bs)
	if o.InodeRatio != 0 {
		ratio = o.InodeRatio
	}
	if ratio < bs {
		ratio = bs
	}
	if o.ClusterSize != 0 && !ft.bigalloc {
		return nil, fmt.Errorf("%w: ClusterSize %d: specifying a cluster size requires the bigalloc feature, as mke2fs says", ErrOption, o.ClusterSize)
	}
	if ft.bigalloc {
		// mke2fs takes log2 of the cluster size in KiB, rounded down
		// (16 times the block size by default); ext2fs_initialize
		// takes 0 (a size under 2 KiB) as no value, and gives the
		// default
		cs := o.ClusterSize
		if cs == 0 {
			cs = 16 * bs
		}
		logC := uint32(bits.Len(uint(cs>>10))) - 1
		if logC != 0 && logC < g.logBS {
			return nil, fmt.Errorf("%w: ClusterSize %d: the cluster size may not be smaller than the block size (%d), as mke2fs says", ErrOption, o.ClusterSize, bs)
		}
		if o.InodeRatio == 0 && ratio < 1024<<logC {
			ratio = 1024 << logC
		}
		if logC == 0 {
			logC = g.logBS + 4
		}
		g.cbits = logC - g.logBS
	}
	if param > 0xffffffff {
		if !ft.bit64 {
			return nil, fmt.Errorf("%w: %d blocks need the 64bit feature (ext4)", ErrOption, param)
		}
		g.noResize = true
	}
	g.noResize = g.noResize || !ft.resize
	if ft.metaBg && !g.noResize {
		return nil, fmt.Errorf("%w: Features: resize_inode and meta_bg are not compatible (add ^resize_inode), as mke2fs says", ErrOption)
	}
	g.metaBg = ft.metaBg
	g.noSparse = !ft.sparse
	if ft.sparse2 {
		// mke2fs's num_backup_sb: group 1, then the last (~0)
		g.sparse2 = true
		n := 2
		if o.NumBackupSB != nil {
			n = *o.NumBackupSB
		}
		if n >= 1 {
			g.backupBgs[0] = 1
		}
		if n >= 2 {
			g.backupBgs[1] = ^uint32(0)
		}
	}
	pct := defaultRsvPct
	if o.ReservedPercent != nil {
		pct = *o.ReservedPercent
	}
	inodesParam := param * uint64(bs) / uint64(ratio)
	if o.InodeCount != 0 {
		inodesParam = o.InodeCount
	}
	if inodesParam > 0xffffffff && ft.bit64 && o.InodeCount == 0 {
		inodesParam = 0xffffffff // 64bit caps the count
	}
	if inodesParam > 0xffffffff {
		return nil, fmt.Errorf("%w: too many inodes (%d), raise InodeRatio", ErrOption, inodesParam)
	}
	if inodesParam*uint64(g.inodeSize) >= param*uint64(bs) {
		return nil, fmt.Errorf("%w: InodeSize %d times %d inodes does not fit %d blocks", ErrOption, g.inodeSize, inodesParam, param)
	}
	rParam := uint64(pct * float64(param) / 100.0)
	if bs == 1024 && g.cbits == 0 {
		g.firstData = 1 // with bigalloc the first cluster holds block 0
	}
	g.bpg = min(uint64(bs)*8, maxBlocksPerGroup)
	if o.BlocksPerGroup != 0 {
		if o.BlocksPerGroup > bs*8 {
			return nil, fmt.Errorf("%w: BlocksPerGroup %d is more than 8 times the block size", ErrOption, o.BlocksPerGroup)
		}
		g.bpg = uint64(o.BlocksPerGroup)
	}
	g.blocks = param
	if ft.bigalloc {
		// -g counts clusters; a group has 8 times the block size of
		// them, at most 65528 (EXT2_MAX_CLUSTERS_PER_GROUP)
		cpg := uint64(bs) * 8
		if o.BlocksPerGroup != 0 {
			cpg = uint64(o.BlocksPerGroup)
		}
		cpg = min(cpg, maxBlocksPerGroup)
		if cpg<<g.cbits >= 1<<32 {
			return nil, fmt.Errorf("%w: ClusterSize %d: %d clusters a group are 2^32 blocks or more", ErrOption, bs<<g.cbits, cpg)
		}
		g.bpg = cpg << g.cbits
		g.blocks &^= g.cmask()
	}
	g.rBlocks = rParam
	if g.rBlocks >= param {
		return nil, fmt.Errorf("%w: the reserved blocks take the whole file system", ErrOption)
	}
	apb := uint64(bs / 4)
	descPerBlock := uint64(bs / g.descSize)
	inodesCount := uint32(inodesParam)
	for {
		if g.blocks <= g.firstData {
			return nil, fmt.Errorf("%w: Size %d is too small for a file system", ErrOption, o.Size)
		}
		g.groups = uint32(ceilDiv(g.blocks-g.firstData, g.bpg))
		g.descBlocks = ceilDiv(uint64(g.groups), descPerBlock)
		ipg := uint32(ceilDiv(uint64(inodesCount), uint64(g.groups)))
		if ipg > uint32(bs*8) {
			if !ft.bigalloc && g.bpg >= 256 {
				g.bpg -= 8
				g.blocks = param
				continue
			}
			return nil, fmt.Errorf("%w: too many inodes for the block size", ErrOption)
		}
		maxIPG := uint32(65536 - bs/g.inodeSize)
		if ipg > maxIPG {
			ipg = maxIPG
		}
		for {
			g.itbPerGroup = ceilDiv(uint64(ipg)*uint64(g.inodeSize), uint64(bs))
			g.ipg = uint32(g.itbPerGroup * uint64(bs) / uint64(g.inodeSize))
			if g.ipg < 8 {
				g.ipg = 8
			}
			g.ipg &^= 7
			g.itbPerGroup = ceilDiv(uint64(g.ipg)*uint64(g.inodeSize), uint64(bs))
			if uint64(g.ipg)*uint64(g.groups) > 0xffffffff {
				ipg--
				continue
			}
			g.inodes = g.ipg * g.groups
			if g.inodes < firstIno+1 {
				ipg += 8
				continue
			}
			break
		}
		// calc_reserved_gdt_blocks
		maxBlocks := uint64(0xffffffff)
		if g.blocks < maxBlocks/1024 {
			maxBlocks = g.blocks * 1024
		}
		rsvGroups := ceilDiv(maxBlocks-g.firstData, g.bpg)
		rsv := int64(ceilDiv(rsvGroups, descPerBlock)) - int64(g.descBlocks)
		if rsv > int64(apb) {
			rsv = int64(apb)
		}
		if rsv < 0 {
			rsv = 0
		}
		g.rsvGDT = uint64(rsv)
		if g.noResize {
			g.rsvGDT = 0
		}
		if g.rsvGDT+g.descBlocks > g.bpg*3/4 {
			// more than 3/4 of a group would be descriptors: meta_bg,
			// without resize_inode (kept once turned on, as the retry
			// keeps the feature)
			g.metaBg, g.noResize, g.rsvGDT = true, true, 0
		}
		descOverhead := g.descBlocks
		if g.metaBg {
			descOverhead = 1
		}
		if 3+g.itbPerGroup+g.rsvGDT+descOverhead > g.bpg {
			return nil, fmt.Errorf("%w: too many inodes for the group size", ErrOption)
		}
		overhead := 2 + g.itbPerGroup
		lastHas := g.hasSuper(g.groups - 1)
		if g.sparse2 {
			// the wanted groups, before they are fitted to the count
			lastHas = g.groups == 2 && g.backupBgs[0] != 0 || g.groups != 2 && g.backupBgs[1] != 0
		}
		if lastHas {
			overhead += 1 + g.descBlocks + g.rsvGDT
		}
		rem := (g.blocks - g.firstData) % g.bpg
		if g.groups == 1 && rem != 0 && rem < overhead {
			return nil, fmt.Errorf("%w: Size %d is too small for a file system", ErrOption, o.Size)
		}
		if rem != 0 && rem < overhead+50 {
			g.blocks -= rem
			ratio := 100.0 * float64(rParam) / float64(param)
			g.rBlocks = uint64(ratio * float64(g.blocks) / 100.0)
			continue
		}
		break
	}
	if g.sparse2 {
		// ext2fs_initialize fits them to the group count
		b := &g.backupBgs
		for k := range b {
			b[k] = min(b[k], g.groups-1)
		}
		if b[0] == b[1] {
			b[1] = 0
		}
		if b[0] > b[1] {
			b[0], b[1] = b[1], b[0]
		}
	}
	return g, nil
}

func ceilDiv(a, b uint64) uint64 { return (a + b - 1) / b }

// hasSuper is ext2fs_bg_has_super with sparse_super: groups 0 and 1 and
// the powers of 3, 5 and 7 hold a backup superblock and descriptors.
func (g *mkGeometry) hasSuper(group uint32) bool {
	if group == 0 {
		return true
	}
	if g.sparse2 {
		return group == g.backupBgs[0] || group == g.backupBgs[1]
	}
	if group <= 1 || g.noSparse {
		return true
	}
	if group&1 == 0 {
		return false
	}
	for _, b := range []uint32{3, 5, 7} {
		n := group
		for n%b == 0 {
			n /= b
		}
		if n == 1 {
			return true
		}
	}
	return false
}

// descPerBlock is EXT2_DESC_PER_BLOCK, the groups of a meta group.
func (g *mkGeometry) descPerBlock() uint64 { return uint64(g.bs / g.descSize) }

// descBlock is where group's copy of the descriptors lies
// (ext2fs_super_and_bgd_loc2): without meta_bg the table of descBlocks
// blocks after the superblock of a group holding one; with meta_bg the
// block of its meta group's descriptors, in the meta group's first,
// second and last group, after the superblock if the group has one. ok
// is false for a group holding no descriptors.
func (g *mkGeometry) descBlock(group uint32) (blk uint64, ok bool) {
	first := g.groupFirst(uint64(group))
	if first == 0 {
		first = g.sbBlock()
	}
	has := g.hasSuper(group)
	if !g.metaBg {
		return first + 1, has
	}
	dpb := g.descPerBlock()
	if k := uint64(group) % dpb; k != 0 && k != 1 && k != dpb-1 {
		return 0, false
	}
	if has {
		first++
	}
	return first, true
}

// backups lists the groups after 0 that hold a backup superblock, in
// ext2fs_list_backups' order (ascending).
func (g *mkGeometry) backups() []uint32 {
	var out []uint32
	for i := uint32(1); i < g.groups; i++ {
		if g.hasSuper(i) {
			out = append(out, i)
		}
	}
	return out
}

func (g *mkGeometry) groupFirst(group uint64) uint64 { return g.firstData + group*g.bpg }

func (g *mkGeometry) groupLast(group uint64) uint64 {
	l := g.groupFirst(group) + g.bpg - 1
	if l >= g.blocks {
		l = g.blocks - 1
	}
	return l
}

// flexFirst is the first group of group's flex group (the group itself
// without flex_bg).
func (g *mkGeometry) flexFirst(group uint64) uint64 { return group &^ (1<<g.logFlex - 1) }

// groupOfBlock is ext2fs_group_of_blk2.
func (g *mkGeometry) groupOfBlock(b uint64) uint64 { return (b - g.firstData) / g.bpg }

// groupOfIno is ext2fs_group_of_ino, with its 32-bit wrap for inode 0.
func (g *mkGeometry) groupOfIno(ino uint32) uint64 { return uint64((ino - 1) / g.ipg) }
