package ext

import (
	"bytes"
	"fmt"
)

// This file is inline_data (-O inline_data) as mke2fs -d makes it
// through lib/ext2fs (inline_data.c, mkdir.c, symlink.c, link.c,
// expanddir.c, fileio.c): a new directory, a regular file and a
// symbolic link of 60 bytes or more start with EXT4_INLINE_DATA_FL, the
// first 60 bytes in i_block and the rest in the value of the system.data
// attribute in the inode's body, set first of the inode's attributes.
// What outgrows that room is expanded to a block, and system.data
// removed (the body keeps its attribute magic).

const (
	inlineSize   = 60 // EXT4_MIN_INLINE_DATA_SIZE: i_block
	inlineDotdot = 4  // EXT4_INLINE_DATA_DOTDOT_SIZE: a directory's parent
)

// inlineData is system.data, as eaName splits it.
var inlineData = eaEntry{index: 7, short: "data"}

func isInline(n inode) bool { return le.Uint32(n.iFlags())&inlineDataFL != 0 }

// inlineMax is the most bytes the value of system.data can hold in a new
// inode whose body has no other attribute: what ext2fs_xattr_set leaves
// after i_extra_isize, the magic, the final null entry and the entry
// itself (ext2fs_xattr_inode_max_size gives the same).
func (f *fsys) inlineMax() int {
	return f.g.inodeSize - goodOldInodeSize - largeExtra - 8 - eaLen(len(inlineData.short))
}

// fitsInline reports whether data of size bytes stays inline: under a
// block (ext2fs_file_write_inline_data) and within i_block and the
// room of system.data.
func (f *fsys) fitsInline(size int64) bool {
	return size < int64(f.g.bs) && size <= int64(inlineSize+f.inlineMax())
}

// putIbody writes the attributes of inode ino's body (f.ibody) after
// i_extra_isize: the magic, then the entries, as ext2fs_xattrs_write.
func (f *fsys) putIbody(ino uint32) {
	n := f.inodes[ino]
	start := goodOldInodeSize + largeExtra
	le.PutUint32(n[start:], xattrMagic)
	writeEntries(n[start+4:], f.ibody[ino], 0, false)
}

// setInline is ext2fs_inline_data_init (data nil) and
// ext2fs_inline_data_set: the first 60 bytes of data in i_block, the
// rest the value of system.data, which comes first in the body.
func (f *fsys) setInline(ino uint32, n inode, data []byte) {
	le.PutUint32(n.iFlags(), le.Uint32(n.iFlags())|inlineDataFL)
	b := n.iBlock()
	clear(b)
	copy(b, data)
	e := inlineData
	if len(data) > inlineSize {
		// a copy: data may be the layout's read buffer, and the body
		// is written again when attributes are added
		e.value = bytes.Clone(data[inlineSize:])
	}
	es := f.ibody[ino]
	for i, x := range es {
		if x.index == e.index && x.short == e.short {
			es[i] = e
			f.putIbody(ino)
			return
		}
	}
	f.ibody[ino] = append([]eaEntry{e}, es...)
	f.putIbody(ino)
}

// dropInline is the start of ext2fs_inline_data_expand: i_block cleared,
// system.data removed (the magic stays), the flag off.
func (f *fsys) dropInline(ino uint32, n inode) {
	clear(n.iBlock())
	var rest []eaEntry
	for _, x := range f.ibody[ino] {
		if x.index != inlineData.index || x.short != inlineData.short {
			rest = append(rest, x)
		}
	}
	f.ibody[ino] = rest
	f.putIbody(ino)
	le.PutUint32(n.iFlags(), le.Uint32(n.iFlags())&^inlineDataFL)
}

// mkdirInline is ext2fs_mkdir2 with inline data: the parent's number in
// i_block's first word, then one empty entry over the other 56 bytes;
// i_size 60, no block.
func (f *fsys) mkdirInline(parent, ino uint32, name string) (uint32, error) {
	var err error
	if ino == 0 {
		if ino, err = f.newInode(parent); err != nil {
			return 0, err
		}
	}
	n := f.newInodeRecord(ino)
	le.PutUint16(n.iMode(), sIFDIR|0o755)
	if name == "lost+found" && parent == rootIno {
		le.PutUint16(n.iMode(), sIFDIR|0o700)
	}
	le.PutUint16(n.iLinksCount(), 2)
	le.PutUint32(n.iSizeLo(), inlineSize)
	if parent != ino {
		f.io.ri(parent)
	}
	f.io.wiFull(ino)
	dir := make([]byte, inlineSize)
	le.PutUint32(dir, parent)
	f.setRecLen(dirEntry(dir[inlineDotdot:]), inlineSize-inlineDotdot)
	f.setInline(ino, n, dir)
	f.io.ri(ino) // ext2fs_inline_data_init's attribute write
	f.io.wiFull(ino)
	return ino, f.linkNewDir(parent, name, ino)
}

// linkInline is link_proc over an inline directory's entries (i_block
// past the parent's number; system.data's value is empty in what mke2fs
// makes); it reports whether the name was placed.
func (f *fsys) linkInline(n inode, name string, ino uint32, ft byte) bool {
	region := n.iBlock()[inlineDotdot:inlineSize]
	end := len(region)
	return f.linkIn(region, name, ino, ft, end, end-8, end-8-f.dirTailSize())
}

// expandInlineDir is ext2fs_inline_data_expand of a directory: a block
// (the first free one of the file system) holding "." and "..", then
// the inline entries, the last one stretched to the block's end (or its
// checksum tail), mapped as the directory's block 0.
func (f *fsys) expandInlineDir(dir uint32, n inode) error {
	bs := f.g.bs
	tail := f.dirTailSize()
	buf := f.newDirBlock(dir, le.Uint32(n.iBlock()))
	le.PutUint16(dirEntry(buf[12:]).recLen(), 12) // ".." ends where the entries start
	copy(buf[24:], n.iBlock()[inlineDotdot:inlineSize])
	size := inlineSize + 24 - inlineDotdot
	off, last := 24, 24
	for {
		last = off
		rl := f.recLen(dirEntry(buf[off:]))
		if rl == 0 {
			return fmt.Errorf("%w: inline directory %d: an entry of rec_len 0", ErrFormat, dir)
		}
		off += rl
		if off >= size {
			break
		}
	}
	ld := dirEntry(buf[last:])
	f.setRecLen(ld, f.recLen(ld)+bs-tail-off)
	f.io.ri(dir)
	f.io.wi(dir)     // ext2fs_inline_data_expand
	f.io.wiFull(dir) // ext2fs_inline_data_ea_remove's attribute write
	f.dropInline(dir, n)
	f.io.ri(dir)
	blk, err := f.newBlock(0)
	if err != nil {
		return err
	}
	f.meta[blk] = buf
	f.dirOwner[blk] = dir
	f.io.w(blk)
	f.addIBlocks(n, 1)
	le.PutUint32(n.iSizeLo(), uint32(bs))
	if err := f.mapFirst(dir, n, blk); err != nil {
		return err
	}
	if !f.extents {
		f.io.wi(dir) // ext2fs_bmap2's BMAP_SET
	}
	f.io.wi(dir)
	f.mark(blk)
	return nil
}
