package cd9660

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// The tree of directory records, built from the source tree as makefs's
// cd9660_convert_structure builds it: names converted, children sorted,
// collisions renamed, directories deeper than ECMA-119 allows relocated
// into RR_MOVED under Rock Ridge, and "." and ".." records added.

// nodeKind tells the records of the tree apart.
type nodeKind uint8

const (
	kindFile   nodeKind = iota + 1 // a file, symlink, device, fifo or socket, or a relocation placeholder
	kindDir                        // a directory
	kindDot                        // the "." record of a directory
	kindDotDot                     // the ".." record of a directory
)

// maxDirLevel is the level (the root's children are at level 1) at which
// a directory would have children deeper than the eight levels ECMA-119
// 6.8.2.1 allows.
const maxDirLevel = 8

// relocatedName and relocatedRRName are the names of the directory that
// holds relocated directories: its identifier and its Rock Ridge name.
const (
	relocatedName   = "RR_MOVED"
	relocatedRRName = ".rr_moved"
)

// fileData is the extent of a file's contents, shared by the names of a
// hard-link group.
type fileData struct {
	allocated bool
	sector    uint32
}

// isoNode is one directory record and what it describes.
type isoNode struct {
	kind    nodeKind
	virtual bool         // made by the writer: RR_MOVED, or a placeholder of a relocated directory
	src     *fstree.Node // the node described; for a virtual record, the node whose metadata it copies
	orig    string       // the name the identifier was made from

	name    isoName // identifier, as compared and sorted
	oName   isoName // identifier before collision renaming
	nameLen int     // Length of File Identifier
	baseLen int     // record length without the system use area

	date     time.Time
	dataLen  int64  // the file's length; 0 for placeholders, and for symlinks without Joliet
	sizeLen  uint32 // Data Length written for a file
	data     *fileData
	extent   uint32
	sectors  int64 // sectors of a directory's extent
	level    int
	ptNumber int

	// section and sections number the records of a file of 4 GiB or more
	// at level 3 (multiextent.go); sections is 0 for any other record.
	section, sections int

	parent      *isoNode
	children    []*isoNode // "." and ".." first
	dot, dotdot *isoNode

	realParent *isoNode // of a relocated directory: its parent in the source tree
	relocated  *isoNode // of a placeholder: the directory it stands for

	rr    rrRecord    // Rock Ridge entries, when enabled
	tail  []byte      // data at the end of the System Use field (archimedes.go)
	jname []byte      // Joliet identifier, UCS-2 big-endian
	jdir  *jolietInfo // Joliet extent of a directory
}

// ident is the record's identifier: the Joliet name, or the first
// nameLen bytes of the identifier buffer.
func (n *isoNode) ident() []byte {
	if n.jname != nil {
		return n.jname
	}
	return n.name[:n.nameLen]
}

// identBuf is what follows the fixed part of the record up to its System
// Use field: the identifier and the padding byte, which for a primary
// record come from makefs's identifier buffer (a renamed identifier
// leaves its last byte there).
func (n *isoNode) identBuf() []byte {
	if n.jname != nil {
		return n.jname
	}
	return n.name[:]
}

// path is the node's path from the root for errors.
func (n *isoNode) path() string {
	switch {
	case n.kind == kindDot:
		return n.parent.path() + "/."
	case n.kind == kindDotDot:
		return n.parent.path() + "/.."
	case n.src != nil && !n.virtual:
		return n.src.Path()
	case n.parent != nil:
		return n.parent.path() + "/" + n.orig
	}
	return n.orig
}

// builder converts a source tree.
type builder struct {
	o         *Options
	rules     nameRules
	root      *isoNode
	rrMoved   *isoNode
	moveCount int
	volTime   time.Time
	data      map[*fstree.Node]*fileData
}

// buildTree converts the tree t into records, as cd9660_makefs does up to
// its Rock Ridge pass.
func (b *builder) buildTree(t *fstree.Tree) error {
	b.data = map[*fstree.Node]*fileData{}
	root := &isoNode{kind: kindDir, src: t.Root, orig: ".", nameLen: 1, baseLen: 34, date: b.volTime}
	b.root = root
	if err := b.convertDir(t.Root, root, 1); err != nil {
		return err
	}
	if b.rrMoved != nil {
		sortChildren(b.rrMoved)
	}
	expandSections(root)
	addDotRecords(root)
	return nil
}

// convertDir converts the children of the source directory src into
// children of d, at the given level, and renames collisions.
func (b *builder) convertDir(src *fstree.Node, d *isoNode, level int) error {
	for _, c := range src.Children {
		if c.Type == fstree.TypeSocket {
			b.warnf("cd9660: skipping socket %s, as makefs does", c.Path())
			continue
		}
		if c.Type == fstree.TypeFile && c.Size >= 1<<32 && b.rules.level != 3 {
			return fmt.Errorf("%w: %s: %d bytes; one extent holds less than 4 GiB (set Options.ISOLevel 3)", ErrFileTooBig, c.Path(), c.Size)
		}
		n := b.translate(c, d, level)
		add := true
		if c.Type == fstree.TypeDir {
			working := level + 1
			if level == maxDirLevel {
				switch {
				case b.o.RockRidge && b.o.RelocateDeepTrees:
					working, n.level = 3, 2
					b.relocate(n)
					add = false
				case !b.o.AllowDeepTrees && !b.o.RockRidge:
					return fmt.Errorf("%w: %s: a directory at level %d of the hierarchy, the root being 1; ISO 9660 allows %d (set Options.AllowDeepTrees or Options.RockRidge)",
						ErrDeepTree, c.Path(), level+1, maxDirLevel)
				}
			}
			if err := b.convertDir(c, n, working); err != nil {
				return err
			}
		}
		if add {
			insertSorted(d, n)
		}
	}
	for _, c := range d.children {
		c.oName = c.name
	}
	for counter := 0; counter < 100; {
		found := b.rules.handleCollisions(d, counter)
		counter++
		sortChildren(d)
		if !found {
			break
		}
	}
	return nil
}

// warnf writes one line to Options.Warn.
func (b *builder) warnf(format string, args ...any) {
	if b.o.Warn != nil {
		fmt.Fprintf(b.o.Warn, format+"\n", args...)
	}
}

// translate makes the record of the source node c, a child of d.
func (b *builder) translate(c *fstree.Node, d *isoNode, level int) *isoNode {
	n := &isoNode{src: c, orig: c.Name, parent: d, level: level, date: c.Mtime, kind: kindFile}
	if c.Type == fstree.TypeDir {
		n.kind = kindDir
	} else {
		n.dataLen = c.Size
		n.sizeLen = uint32(c.Size)
		if c.Type == fstree.TypeSymlink && !b.o.Joliet {
			n.dataLen = 0 // makefs's link: no sector, the next one's extent (see linkContents)
		}
		key := c
		if c.HardLink != nil {
			key = c.HardLink
		}
		if b.data[key] == nil {
			b.data[key] = &fileData{}
		}
		n.data = b.data[key]
	}
	n.setName(b.rules, c.Name)
	return n
}

// setName sets the identifier made from name.
func (n *isoNode) setName(r nameRules, name string) {
	n.name, n.nameLen = r.convert(name, n.kind != kindDir)
	n.baseLen = dirRecordLen(n.nameLen, 0)
}

// relocate moves the directory n, found at level 8, into RR_MOVED under
// the name of its relocation number, leaving a placeholder file in its
// parent (cd9660_rrip_move_directory).
func (b *builder) relocate(n *isoNode) {
	if b.rrMoved == nil {
		m := &isoNode{kind: kindDir, virtual: true, src: n.src, orig: relocatedName, parent: b.root,
			level: 1, date: b.volTime}
		m.setName(b.rules, relocatedName)
		insertSorted(b.root, m)
		b.rrMoved = m
	}
	p := &isoNode{kind: kindFile, virtual: true, src: n.src, orig: n.orig, parent: n.parent,
		level: n.parent.level + 1, date: b.volTime, data: &fileData{}}
	p.setName(b.rules, n.orig)
	if b.o.debian() {
		// Debian's makefs names the placeholder as the directory it is
		// (from its copied inode): "H", not "H.;1".
		p.name, p.nameLen = b.rules.convert(n.orig, false)
		p.baseLen = dirRecordLen(p.nameLen, 0)
	}
	insertSorted(n.parent, p)
	b.moveCount++
	n.realParent = n.parent
	n.parent = b.rrMoved
	p.relocated = n
	insertSorted(b.rrMoved, n)
	n.name = isoName{}
	copy(n.name[:], fmt.Sprintf("%08d", b.moveCount))
	n.nameLen = 8
	n.baseLen = dirRecordLen(8, 0)
}

// insertSorted inserts n among the children of d before the first child
// it sorts before (cd9660_sorted_child_insert): by identifier, then by
// the names they were made from. The children are in that order already
// (each came in this way, and the order is a total preorder: blank-padded
// name, then extension), so the first such child is found by binary
// search.
func insertSorted(d *isoNode, n *isoNode) {
	n.parent = d
	i := sort.Search(len(d.children), func(i int) bool { return compareRecords(n, d.children[i]) < 0 })
	d.children = slices.Insert(d.children, i, n)
}

// compareRecords orders two records for insertSorted.
func compareRecords(a, b *isoNode) int {
	if r := compareNames(a.name[:], b.name[:]); r != 0 {
		return r
	}
	return compareNames([]byte(a.orig), []byte(b.orig))
}

// sortChildren sorts the children of d by identifier, stably, as
// cd9660_sort_nodes does.
func sortChildren(d *isoNode) {
	slices.SortStableFunc(d.children, func(a, b *isoNode) int { return cstrcmp(a.name[:], b.name[:]) })
}

// addDotRecords gives every directory its "." and ".." records, first
// among its children.
func addDotRecords(d *isoNode) {
	for _, c := range d.children {
		if c.kind == kindDir {
			addDotRecords(c)
		}
	}
	d.dot = &isoNode{kind: kindDot, virtual: true, parent: d, nameLen: 1, baseLen: 34}
	d.dotdot = &isoNode{kind: kindDotDot, virtual: true, parent: d, nameLen: 1, baseLen: 34}
	d.dotdot.name[0] = 1
	d.children = slices.Insert(d.children, 0, d.dot, d.dotdot)
}
