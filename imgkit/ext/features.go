package ext

import (
	"fmt"
	"strings"
)

// features are the file system features the writer lays out: the type's
// (mke2fs.conf's base_features, has_journal for ext3, its ext4 line for
// ext4) with Options.Features' edits, as mke2fs -O applies them.
type features struct {
	journal    bool // has_journal
	extents    bool // extent
	flex       bool // flex_bg
	bit64      bool // 64bit
	csum       bool // metadata_csum
	csumSeed   bool // metadata_csum_seed
	gdtCsum    bool // uninit_bg (gdt_csum): group flags and crc16 descriptor checksums
	orphan     bool // orphan_file
	hugeFile   bool // huge_file
	dirNlink   bool // dir_nlink
	extraIsize bool // extra_isize
	// the base features, on unless -O takes them away
	resize, dirIndex, extAttr, sparse, filetype, largeFile bool
	// sparse2 is sparse_super2: copies in s_backup_bgs' two groups only.
	sparse2 bool
	// encrypt and casefold change only the superblock of what -d
	// writes: their algorithms and encoding.
	encrypt, casefold bool
	// inline is inline_data: small files, directories and symbolic
	// links kept in i_block and the system.data attribute.
	inline bool
	// quota makes the quota files of quotaTypes (create_quota_inodes);
	// project marks inodes as carrying i_projid (256-byte inodes).
	quota, project bool
	// quotaTypes is mke2fs's quotatype_bits: 1<<usrQuota, 1<<grpQuota,
	// 1<<prjQuota.
	quotaTypes uint
	// metaBg is meta_bg: each group of descriptors in its meta
	// group's first, second and last group (ext2fs_initialize also
	// turns it on when the descriptors would fill a group).
	metaBg bool
	// bigalloc allocates blocks a cluster at a time (Options.ClusterSize).
	bigalloc bool
}

// featureNames maps each feature the writer can turn on or off to its
// flag. "extents" and "gdt_csum" are mke2fs's other names for extent and
// uninit_bg.
func (ft *features) named(name string) *bool {
	switch name {
	case "has_journal":
		return &ft.journal
	case "extent", "extents":
		return &ft.extents
	case "flex_bg":
		return &ft.flex
	case "64bit":
		return &ft.bit64
	case "metadata_csum":
		return &ft.csum
	case "metadata_csum_seed":
		return &ft.csumSeed
	case "uninit_bg", "gdt_csum":
		return &ft.gdtCsum
	case "orphan_file":
		return &ft.orphan
	case "huge_file":
		return &ft.hugeFile
	case "dir_nlink":
		return &ft.dirNlink
	case "extra_isize":
		return &ft.extraIsize
	case "resize_inode":
		return &ft.resize
	case "dir_index":
		return &ft.dirIndex
	case "ext_attr":
		return &ft.extAttr
	case "sparse_super":
		return &ft.sparse
	case "filetype":
		return &ft.filetype
	case "large_file":
		return &ft.largeFile
	case "sparse_super2":
		return &ft.sparse2
	case "encrypt":
		return &ft.encrypt
	case "casefold":
		return &ft.casefold
	case "inline_data":
		return &ft.inline
	case "quota":
		return &ft.quota
	case "project":
		return &ft.project
	case "meta_bg":
		return &ft.metaBg
	case "bigalloc":
		return &ft.bigalloc
	}
	return nil
}

// FeatureNames lists the features Options.Features may turn on or off.
const FeatureNames = "has_journal, extent, flex_bg, 64bit, metadata_csum, metadata_csum_seed, uninit_bg, orphan_file, huge_file, dir_nlink, extra_isize, sparse_super2, encrypt, casefold, inline_data, quota, project, meta_bg, bigalloc and the base features sparse_super, large_file, filetype, resize_inode, dir_index, ext_attr"

// newFeatures is the feature set of o, checked as mke2fs checks it:
// 64bit needs extent; metadata_csum_seed needs metadata_csum and
// orphan_file a journal (each dropped when the type gave it, refused when
// asked for); metadata_csum supersedes uninit_bg. (meta_bg beside
// resize_inode is refused by newGeometry, which knows whether the size
// turns resize_inode off.)
func newFeatures(o *Options) (features, error) {
	base := features{resize: true, dirIndex: true, extAttr: true, sparse: true, filetype: true, largeFile: true}
	ft := base
	switch o.Type {
	case "ext3":
		ft.journal = true
	case "ext4":
		ft.journal, ft.extents, ft.flex, ft.bit64, ft.csum, ft.csumSeed = true, true, true, true, true, true
		ft.orphan, ft.hugeFile, ft.dirNlink, ft.extraIsize = true, true, true, true
	}
	asked := map[string]bool{}
	for _, f := range o.Features {
		name, off := strings.CutPrefix(f, "^")
		if name == "" {
			continue
		}
		p := ft.named(name)
		if p == nil {
			return ft, fmt.Errorf("%w: Features %q: the features written are %s", ErrOption, f, FeatureNames)
		}
		*p = !off
		asked[name] = !off
	}
	if ft.resize && !ft.sparse {
		return ft, fmt.Errorf("%w: Features: resize_inode needs sparse_super (reserved online resize blocks are not supported on a non-sparse file system, as mke2fs says)", ErrOption)
	}
	if ft.bit64 && !ft.extents {
		return ft, fmt.Errorf("%w: Features: 64bit needs extent, as mke2fs says", ErrOption)
	}
	if ft.bigalloc && !ft.extents {
		return ft, fmt.Errorf("%w: Features: bigalloc needs extent (Can't support bigalloc feature without extents feature, as mke2fs says)", ErrOption)
	}
	if ft.csumSeed && !ft.csum {
		if asked["metadata_csum_seed"] {
			return ft, fmt.Errorf("%w: Features: metadata_csum_seed needs metadata_csum", ErrOption)
		}
		ft.csumSeed = false
	}
	if ft.orphan && !ft.journal {
		if asked["orphan_file"] {
			return ft, fmt.Errorf("%w: Features: orphan_file needs has_journal", ErrOption)
		}
		ft.orphan = false
	}
	if ft.inline && !ft.extAttr {
		// mke2fs goes on, and its image is one e2fsck finds wrong
		// (attribute blocks without the feature)
		return ft, fmt.Errorf("%w: Features: inline_data needs ext_attr (inline data lives in the system.data attribute)", ErrOption)
	}
	if ft.csum {
		ft.gdtCsum = false
	}
	qt, err := quotaTypeBits(o.QuotaTypes)
	if err != nil {
		return ft, err
	}
	if qt&(1<<prjQuota) != 0 {
		ft.project = true
	}
	if ft.project {
		qt |= 1 << prjQuota
		if o.InodeSize == goodOldInodeSize {
			return ft, fmt.Errorf("%w: Features: project needs inodes larger than 128 bytes (128 byte inodes are too small for project quota, as mke2fs says)", ErrOption)
		}
	}
	ft.quotaTypes = qt
	return ft, nil
}

// groupCsum reports group descriptor checksums and the uninit flags
// (ext2fs_has_group_desc_csum).
func (ft features) groupCsum() bool { return ft.csum || ft.gdtCsum }

// kbytesStart reports whether mke2fs starts s_kbytes_written at 1.
func (ft features) kbytesStart() bool {
	return ft.flex || ft.hugeFile || ft.gdtCsum || ft.dirNlink || ft.csum || ft.extraIsize
}

// The quota types, as quota_type numbers them (quotaio.h).
const (
	usrQuota = iota
	grpQuota
	prjQuota
)

// quotaTypeBits is parse_quota_types over the words of -E quotatype=
// from no type: usrquota (usr), grpquota (grp) and prjquota (prj) add
// one, with "^" they take it away. Nil is mke2fs's default, user and
// group.
func quotaTypeBits(words []string) (uint, error) {
	if words == nil {
		return 1<<usrQuota | 1<<grpQuota, nil
	}
	var bits uint
	for _, w := range words {
		name, off := strings.CutPrefix(w, "^")
		var t uint
		switch name {
		case "usr", "usrquota":
			t = usrQuota
		case "grp", "grpquota":
			t = grpQuota
		case "prj", "prjquota":
			t = prjQuota
		default:
			return 0, fmt.Errorf("%w: QuotaTypes %q: want usrquota, grpquota or prjquota (usr, grp, prj), or one of them after ^", ErrOption, w)
		}
		if off {
			bits &^= 1 << t
		} else {
			bits |= 1 << t
		}
	}
	return bits, nil
}
