package ext

// This file builds extent trees as lib/ext2fs/extent.c does when mke2fs
// maps a file's blocks in increasing logical order (ext2fs_extent_set_bmap
// and ext2fs_extent_insert appending after the last extent, and
// extent_node_split at the end of the file), so that every extent, index
// and tree block lands where mke2fs puts it.

const (
	// extInitMaxLen is EXT_INIT_MAX_LEN; set_bmap grows an extent only
	// while it is shorter than one less, so its extents stop at 32767.
	extInitMaxLen = 32768
	extHeaderSize = 12 // sizeof(struct ext3_extent_header)
)

// extNode is one node of an extent tree: the inode's i_block (blk 0) or
// a tree block.
type extNode struct {
	buf []byte
	blk uint64
}

func extEntries(b []byte) int { return int(le.Uint16(b[2:])) }
func extMax(b []byte) int     { return int(le.Uint16(b[4:])) }
func extDepth(b []byte) int   { return int(le.Uint16(b[6:])) }

// extEntry returns entry i of a node.
func extEntry(b []byte, i int) []byte { return b[extHeaderSize+extentEntrySize*i:][:extentEntrySize] }

// leafStart is ee_start (hi and lo) of a leaf entry, or ei_leaf of an
// index entry.
func leafStart(e []byte, index bool) uint64 {
	if index {
		return uint64(le.Uint32(e[4:])) | uint64(le.Uint16(e[8:]))<<32
	}
	return uint64(le.Uint32(e[8:])) | uint64(le.Uint16(e[6:]))<<32
}

// putIndex writes an index entry (struct ext3_extent_idx).
func putIndex(e []byte, lblk uint32, leaf uint64) {
	le.PutUint32(e[0:], lblk)
	le.PutUint32(e[4:], uint32(leaf))
	le.PutUint16(e[8:], uint16(leaf>>32))
	le.PutUint16(e[10:], 0)
}

// putExtent writes a leaf entry (struct ext3_extent).
func putExtent(e []byte, lblk uint32, n uint16, start uint64) {
	le.PutUint32(e[0:], lblk)
	le.PutUint16(e[4:], n)
	le.PutUint16(e[6:], uint16(start>>32))
	le.PutUint32(e[8:], uint32(start))
}

// initExtents gives an inode the EXTENTS flag and the empty tree
// ext2fs_extent_open2 writes into a zero i_block.
func initExtents(n inode) {
	le.PutUint32(n.iFlags(), le.Uint32(n.iFlags())|extentsFL)
	b := n.iBlock()
	le.PutUint16(b[0:], extentMagic)
	le.PutUint16(b[2:], 0)
	le.PutUint16(b[4:], uint16((iBlockSz-extHeaderSize)/extentEntrySize))
	le.PutUint16(b[6:], 0)
}

func hasExtents(n inode) bool { return le.Uint32(n.iFlags())&extentsFL != 0 }

// extPath is the path from the root to the last leaf.
func (f *fsys) extPath(n inode) []extNode {
	path := []extNode{{buf: n.iBlock()}}
	for {
		cur := path[len(path)-1].buf
		if extDepth(cur) == 0 || extEntries(cur) == 0 {
			return path
		}
		blk := leafStart(extEntry(cur, extEntries(cur)-1), true)
		path = append(path, extNode{buf: f.meta[blk], blk: blk})
	}
}

// extLookup maps logical block l through n's extent tree (0 for a hole).
func (f *fsys) extLookup(n inode, l uint64) uint64 {
	b := n.iBlock()
	for {
		k := extEntries(b)
		if extDepth(b) == 0 {
			for i := range k {
				e := extEntry(b, i)
				start, length := uint64(le.Uint32(e)), uint64(le.Uint16(e[4:]))
				if l >= start && l < start+length {
					return leafStart(e, false) + l - start
				}
			}
			return 0
		}
		next := -1
		for i := range k {
			if uint64(le.Uint32(extEntry(b, i))) <= l {
				next = i
			}
		}
		if next < 0 {
			return 0
		}
		b = f.meta[leafStart(extEntry(b, next), true)]
	}
}

// extLastBlock is the physical block of the last mapped logical block, 0
// for an empty tree.
func (f *fsys) extLastBlock(n inode) uint64 {
	e := f.lastExtent(n)
	if e == nil {
		return 0
	}
	return leafStart(e, false) + uint64(le.Uint16(e[4:])) - 1
}

// lastExtent is the last leaf entry of n's tree (nil for an empty one),
// found without building a path: the common case of mapping a file's
// next block.
func (f *fsys) lastExtent(n inode) []byte {
	b := n.iBlock()
	for extDepth(b) > 0 && extEntries(b) > 0 {
		b = f.meta[leafStart(extEntry(b, extEntries(b)-1), true)]
	}
	if extDepth(b) != 0 || extEntries(b) == 0 {
		return nil
	}
	return extEntry(b, extEntries(b)-1)
}

// extAppend maps logical block l, past every mapped one, to physical
// block p: ext2fs_extent_set_bmap's growth of the last extent when both
// follow it, else a new extent after it (extent_node_split first when its
// leaf is full). With iter, set_bmap is called by block_iterate3 with
// BLOCK_FLAG_APPEND, whose handle has gone back up to the root: the
// final goto, back to where the handle was, then reads nothing in a
// tree deeper than the inode.
func (f *fsys) extAppend(ino uint32, n inode, l, p uint64, merge, iter bool) error {
	// finalIO is the final goto's reads.
	finalIO := f.pathReadIO
	if iter && extDepth(n.iBlock()) > 0 {
		finalIO = func(inode) {}
	}
	// set_bmap's walks down the tree: a goto, NEXT_LEAF, two more gotos
	f.pathReadIO(n)
	f.leafReadIO(n)
	f.pathReadIO(n)
	f.pathReadIO(n)
	if e := f.lastExtent(n); merge && e != nil {
		start, length := uint64(le.Uint32(e)), uint64(le.Uint16(e[4:]))
		if l == start+length && p == leafStart(e, false)+length && length < extInitMaxLen-1 {
			le.PutUint16(e[4:], uint16(length+1))
			f.leafUpdateIO(ino, n) // ext2fs_extent_replace
			f.pathReadIO(n)        // fix_parents' and the final goto
			finalIO(n)
			return nil
		}
	}
	if err := f.extInsert(ino, n, l, p, 1); err != nil {
		return err
	}
	f.pathReadIO(n)
	finalIO(n)
	return nil
}

// firstPathIO is the reads of a goto to logical block 0: the tree blocks
// below the inode on the path to the first leaf.
func (f *fsys) firstPathIO(n inode) {
	if f.io == nil || !hasExtents(n) {
		return
	}
	for b := n.iBlock(); extDepth(b) > 0 && extEntries(b) > 0; {
		blk := leafStart(extEntry(b, 0), true)
		f.io.r(blk)
		b = f.meta[blk]
	}
}

// pathReadIO is an extent goto's reads: each tree block below the inode
// on the path to the last leaf.
func (f *fsys) pathReadIO(n inode) {
	if f.io == nil || extDepth(n.iBlock()) == 0 {
		return
	}
	for _, nd := range f.extPath(n)[1:] {
		f.io.r(nd.blk)
	}
}

// extPathTo is the tree blocks below the inode on the path a goto to
// logical block l reads: at each level, the last entry that starts at
// or before l (the first one when none does).
func (f *fsys) extPathTo(n inode, l uint64) []uint64 {
	var out []uint64
	for b := n.iBlock(); extDepth(b) > 0 && extEntries(b) > 0; {
		i := extEntries(b) - 1
		for i > 0 && uint64(le.Uint32(extEntry(b, i))) > l {
			i--
		}
		blk := leafStart(extEntry(b, i), true)
		out = append(out, blk)
		b = f.meta[blk]
	}
	return out
}

// leafReadIO is a read of the last leaf when it is a block.
func (f *fsys) leafReadIO(n inode) {
	if f.io == nil || extDepth(n.iBlock()) == 0 {
		return
	}
	if path := f.extPath(n); len(path) > 1 {
		f.io.r(path[len(path)-1].blk)
	}
}

// extInsert appends the extent (l, length, p) to the last leaf.
func (f *fsys) extInsert(ino uint32, n inode, l, p, length uint64) error {
	path := f.extPath(n)
	if leaf := path[len(path)-1].buf; extEntries(leaf) >= extMax(leaf) {
		if err := f.extSplit(ino, n, len(path)-1); err != nil {
			return err
		}
		path = f.extPath(n)
	}
	leaf := path[len(path)-1].buf
	k := extEntries(leaf)
	putExtent(extEntry(leaf, k), uint32(l), uint16(length), p)
	le.PutUint16(leaf[2:], uint16(k+1))
	f.leafUpdateIO(ino, n) // ext2fs_extent_insert: its replace, then its own update
	f.leafUpdateIO(ino, n)
	return nil
}

// leafUpdateIO is update_path's write of the last leaf: the inode for a
// tree of depth 0, else the leaf block.
func (f *fsys) leafUpdateIO(ino uint32, n inode) {
	if f.io == nil {
		return
	}
	if extDepth(n.iBlock()) == 0 {
		f.io.wi(ino)
		return
	}
	path := f.extPath(n)
	f.io.w(path[len(path)-1].blk)
}

// extSplit is extent_node_split at the end of the file for the node at
// level of the path to the last leaf: a full parent is split first; the
// root moves all its entries to a new block and becomes an index one
// level deeper; any other node moves its last entry only. The new block
// is allocated after the first block the node maps, less one.
func (f *fsys) extSplit(ino uint32, n inode, level int) error {
	path := f.extPath(n)
	height := len(path) - 1 - level
	node := path[level].buf
	goal := leafStart(extEntry(node, 0), extDepth(node) > 0) - 1
	if level > 0 && extEntries(path[level-1].buf) >= extMax(path[level-1].buf) {
		if err := f.extSplit(ino, n, level-1); err != nil {
			return err
		}
		path = f.extPath(n)
		level = len(path) - 1 - height
		node = path[level].buf
		if f.io != nil {
			for _, nd := range path[1 : level+1] { // goto back to the node
				f.io.r(nd.blk)
			}
		}
	}
	k := extEntries(node)
	tocopy := 1
	if level == 0 {
		tocopy = k
	}
	blk, err := f.allocBlock(goal)
	if err != nil {
		return err
	}
	f.io.w(blk) // zeroed through the cache, then written
	f.io.w(blk)
	nb := make([]byte, f.g.bs)
	copy(nb[:extHeaderSize], node[:extHeaderSize])
	le.PutUint16(nb[2:], uint16(tocopy))
	le.PutUint16(nb[4:], uint16((f.g.bs-extHeaderSize)/extentEntrySize))
	copy(nb[extHeaderSize:], node[extHeaderSize+extentEntrySize*(k-tocopy):extHeaderSize+extentEntrySize*k])
	start := le.Uint32(extEntry(nb, 0))
	f.meta[blk] = nb
	f.extOwner[blk] = ino
	if level == 0 {
		// The root keeps its old entries' bytes past the first, as
		// extent.c leaves them.
		le.PutUint16(node[2:], 1)
		le.PutUint16(node[6:], uint16(extDepth(node)+1))
		putIndex(extEntry(node, 0), start, blk)
	} else {
		le.PutUint16(node[2:], uint16(k-tocopy))
		parent := path[level-1].buf
		pk := extEntries(parent)
		putIndex(extEntry(parent, pk), start, blk)
		le.PutUint16(parent[2:], uint16(pk+1))
	}
	f.addIBlocks(n, 1)
	if f.io != nil {
		// the split node, its parent's new entry, and the inode
		if level == 0 {
			f.io.wi(ino)
			f.io.wi(ino)
			f.io.r(blk) // back to the moved entries, one level down
		} else {
			f.io.w(path[level].blk)
			// the parent's entry replaced, then the new one inserted
			// (a replace and its own update)
			for range 3 {
				if level-1 == 0 {
					f.io.wi(ino)
				} else {
					f.io.w(path[level-1].blk)
				}
			}
			// back to the split entry, now in the new node
			for _, nd := range path[1:level] {
				f.io.r(nd.blk)
			}
			f.io.r(blk)
		}
		f.io.wi(ino)
	}
	return nil
}
