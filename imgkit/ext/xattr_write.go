package ext

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// This file writes a node's extended attributes as mke2fs -d copies them
// (misc/create_inode.c's set_inode_xattr, one ext2fs_xattr_set each, in
// the host's listing order; lib/ext2fs/ext_attr.c): an attribute goes to
// the inode's body after i_extra_isize while it fits there, else to the
// attribute block, whose entries are sorted; values are packed from the
// end of their region, 4-byte aligned.

// xattrEntrySize is sizeof(struct ext2_ext_attr_entry), before the name.
const xattrEntrySize = 16

// eaPrefixes are ext_attr.c's name indexes, most specific first: the
// ones mke2fs gives a name (lustre. and encryption. names keep index 0
// and their whole name there).
var eaPrefixes = []struct {
	index  byte
	prefix string
}{
	{10, "gnu."},
	{3, "system.posix_acl_default"},
	{2, "system.posix_acl_access"},
	{8, "system.richacl"},
	{6, "security."},
	{4, "trusted."},
	{7, "system."},
	{1, "user."},
}

// eaEntry is one attribute to write: its name index, its name without
// the index's prefix, and its value as stored.
type eaEntry struct {
	index byte
	short string
	value []byte
}

// eaName splits a full attribute name as find_ea_index does.
func eaName(name string) (byte, string) {
	for _, p := range eaPrefixes {
		if strings.HasPrefix(name, p.prefix) {
			return p.index, name[len(p.prefix):]
		}
	}
	return 0, name
}

func eaLen(nameLen int) int { return (nameLen + xattrEntrySize + 3) &^ 3 } // EXT2_EXT_ATTR_LEN
func eaSize(valLen int) int { return (valLen + 3) &^ 3 }                   // EXT2_EXT_ATTR_SIZE
func eaSpace(es []eaEntry) int {
	n := 0
	for _, e := range es {
		n += eaLen(len(e.short)) + eaSize(len(e.value))
	}
	return n
}

// setXattrs gives inode ino the attributes xs.
func (w *writer) setXattrs(ino uint32, xs []fstree.Xattr) error {
	if len(xs) == 0 {
		return nil
	}
	f, g := w.f, w.g
	n := f.inodes[ino]
	ibody, block := f.ibody[ino], []eaEntry(nil)
	var blk uint64
	hadBlock := false
	f.io.ri(ino) // ext2fs_xattrs_read
	for _, x := range xs {
		value := x.Value
		if x.Name == "system.posix_acl_access" || x.Name == "system.posix_acl_default" {
			v, err := aclToDisk(value)
			if err != nil {
				return fmt.Errorf("%w: attribute %s: %v", ErrOption, x.Name, err)
			}
			value = v
		}
		idx, short := eaName(x.Name)
		if len(short) > 255 {
			return fmt.Errorf("%w: attribute %s: name longer than 255 bytes", ErrOption, x.Name)
		}
		e := eaEntry{idx, short, value}
		needed := eaLen(len(short)) + eaSize(len(value))
		ibodyFree := 0
		if g.inodeSize > goodOldInodeSize {
			ibodyFree = g.inodeSize - goodOldInodeSize - largeExtra - 8 - eaSpace(ibody)
		}
		blockFree := g.bs - xattrHeaderSize - 4 - eaSpace(block)
		switch {
		case needed <= ibodyFree:
			ibody = append(ibody, e)
		case needed <= blockFree:
			at := eaPosition(block, e)
			block = append(block[:at], append([]eaEntry{e}, block[at:]...)...)
			if blk == 0 {
				// prep_ea_block_for_write: after the inode's first block
				b, err := f.allocBlock(f.findInodeGoal(ino, n))
				if err != nil {
					return err
				}
				blk = b
				f.addIBlocks(n, 1)
				le.PutUint32(n.iFileACLLo(), uint32(b))
				le.PutUint16(n.lIFileACLHigh(), uint16(b>>32))
			}
		default:
			return fmt.Errorf("%w: attribute %s: no room left in the inode or its attribute block", ErrOption, x.Name)
		}
		// ext2fs_xattr_set reads the inode twice and ext2fs_xattrs_write
		// writes the block (read first when it was there) and the inode
		f.io.ri(ino)
		f.io.ri(ino)
		if blk != 0 {
			if hadBlock {
				f.io.r(blk)
			}
			f.io.w(blk)
		}
		f.io.wiFull(ino)
		hadBlock = blk != 0
	}
	if g.inodeSize > goodOldInodeSize+largeExtra+4 {
		// ext2fs_xattrs_write writes the body's magic whenever it has
		// room, also when every attribute went to the block
		f.ibody[ino] = ibody
		f.putIbody(ino)
	}
	if blk != 0 {
		b := make([]byte, g.bs)
		h := xattrHeader(b)
		le.PutUint32(h.hMagic(), xattrMagic)
		le.PutUint32(h.hRefcount(), 1)
		le.PutUint32(h.hBlocks(), 1)
		writeEntries(b[xattrHeaderSize:], block, xattrHeaderSize, true)
		f.meta[blk] = b
		f.xattrBlocks = append(f.xattrBlocks, blk)
	}
	return nil
}

// eaPosition is xattr_find_position: where e goes among the block's
// sorted entries (by name index, then name length, then name).
func eaPosition(es []eaEntry, e eaEntry) int {
	return sort.Search(len(es), func(i int) bool {
		x := es[i]
		if e.index != x.index {
			return e.index < x.index
		}
		if len(e.short) != len(x.short) {
			return len(e.short) < len(x.short)
		}
		return e.short <= x.short
	})
}

// writeEntries is write_xattrs_to_buffer: entries from the start of
// region, each value packed from its end; corr is added to the values'
// offsets (the header before a block's entries), and withHash sets
// e_hash.
func writeEntries(region []byte, es []eaEntry, corr int, withHash bool) {
	clear(region)
	end := len(region)
	off := 0
	for _, x := range es {
		e := xattrEntry(region[off:])
		e.eNameLen()[0] = byte(len(x.short))
		e.eNameIndex()[0] = x.index
		end -= eaSize(len(x.value))
		le.PutUint16(e.eValueOffs(), uint16(end+corr))
		le.PutUint32(e.eValueSize(), uint32(len(x.value)))
		copy(e[xattrEntrySize:], x.short)
		copy(region[end:], x.value)
		if withHash {
			le.PutUint32(e.eHash(), xattrHashEntry([]byte(x.short), region[end:end+eaSize(len(x.value))], false))
		}
		off += eaLen(len(x.short))
	}
}

// aclToDisk is convert_posix_acl_to_disk_buffer: the POSIX ACL of
// getxattr (version 2, entries of tag, perm and id) in ext4's form
// (version 1; the owner, group, mask and other entries without id).
func aclToDisk(v []byte) ([]byte, error) {
	const (
		userObj, user, groupObj, group, mask, other = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
	)
	if len(v) < 4 || binary.LittleEndian.Uint32(v) != 2 || (len(v)-4)%8 != 0 || len(v) == 4 {
		return nil, fmt.Errorf("not a version 2 POSIX ACL of whole entries")
	}
	out := binary.LittleEndian.AppendUint32(nil, 1)
	for e := v[4:]; len(e) > 0; e = e[8:] {
		tag := binary.LittleEndian.Uint16(e)
		out = append(out, e[:4]...)
		switch tag {
		case userObj, groupObj, mask, other:
		case user, group:
			out = append(out, e[4:8]...)
		default:
			return nil, fmt.Errorf("ACL entry tag %#x", tag)
		}
	}
	return out, nil
}
