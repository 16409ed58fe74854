package cd9660

import "github.com/fixturegen/fixturegen/imgkit/fstree"

// The layout of the volume, in the order cd9660_makefs computes it: the
// volume descriptors from sector 16, the Type L and Type M path tables,
// then each directory's extent followed by its subdirectories' and then
// its files' extents (cd9660_compute_offsets), the Rock Ridge continuation
// areas, and 150 sectors of padding. A Joliet hierarchy's path tables
// follow the primary ones, and its directories the continuation areas,
// after one zero sector (see placeJolietTree).

// trailingPadding is the number of zero sectors makefs adds at the end
// (CD9660_END_PADDING).
const trailingPadding = 150

// layoutStep is one step of the layout; steps run in order.
type layoutStep func(v *volume) error

// layoutSteps lists the steps of the layout. A step that places something
// after the volume descriptors (the El Torito boot catalogue and images)
// goes after placeDescriptors and advances v.next.
var layoutSteps = []layoutStep{
	(*volume).placeDescriptors,
	(*volume).placeBoot,
	(*volume).placePathTables,
	(*volume).placeJolietPathTables,
	(*volume).placeTree,
	(*volume).placeContinuation,
	(*volume).placeJolietTree,
	(*volume).placeLinkEnds,
	(*volume).placePadding,
}

// A descriptorKind is one kind of volume descriptor the set may hold:
// its name, whether the volume has one, and how it is built (after the
// layout, so it can name every extent).
type descriptorKind struct {
	name  string
	want  func(v *volume) bool
	build func(v *volume) *volumeDescriptor
}

// descriptorKinds lists the volume descriptors in the order of the set
// (ECMA-119 8.1, as cd9660_setup_volume_descriptors orders them): the
// Primary Volume Descriptor at sector 16, then the others, then the
// Volume Descriptor Set Terminator. El Torito's Boot Record goes right
// after the primary one, at sector 17.
var descriptorKinds = []descriptorKind{
	{"Primary Volume Descriptor", func(*volume) bool { return true }, (*volume).primaryDescriptor},
	{"El Torito Boot Record", func(v *volume) bool { return len(v.o.Boot.Images) > 0 }, (*volume).bootRecord},
	{"Joliet Supplementary Volume Descriptor", func(v *volume) bool { return v.joliet != nil }, (*volume).jolietDescriptor},
	{"Volume Descriptor Set Terminator", func(*volume) bool { return true }, terminatorDescriptor},
}

// placedDescriptor is a volume descriptor of the set and its sector.
type placedDescriptor struct {
	*descriptorKind
	sector int64
}

// placeDescriptors gives each volume descriptor the volume has its
// sector, from sector 16 on.
func (v *volume) placeDescriptors() error {
	v.next = systemAreaSectors
	for i := range descriptorKinds {
		if k := &descriptorKinds[i]; k.want(v) {
			v.descriptors = append(v.descriptors, placedDescriptor{k, v.next})
			v.next++
		}
	}
	return nil
}

// pathTable lists the directories in path table order, breadth first
// from the root (cd9660_generate_path_table), numbers them from 1 and
// returns the table's length in bytes.
func pathTable(root *isoNode, nameLen func(*isoNode) int) ([]*isoNode, int) {
	dirs := []*isoNode{root}
	size := 0
	for i := 0; i < len(dirs); i++ {
		d := dirs[i]
		d.ptNumber = i + 1
		size += pathTableRecordLen(nameLen(d))
		for _, c := range d.children {
			if c.kind == kindDir {
				dirs = append(dirs, c)
			}
		}
	}
	return dirs, size
}

// sectorsFor is the number of sectors that n bytes take.
func sectorsFor(n int64) int64 { return (n + SectorSize - 1) / SectorSize }

// placePathTables puts the Type L path table and then the Type M one
// after what is placed so far.
func (v *volume) placePathTables() error {
	v.dirs, v.ptLen = pathTable(v.root, func(d *isoNode) int { return d.nameLen })
	n := sectorsFor(int64(v.ptLen))
	v.lPath = v.next
	v.mPath = v.next + n
	v.next += 2 * n
	return nil
}

// placeTree gives every directory and file its extent, from v.next on.
func (v *volume) placeTree() error {
	v.caInline = v.needCAInline()
	used := v.placeDir(v.root, v.next*SectorSize)
	v.next += sectorsFor(used)
	return nil
}

// placeDir is cd9660_compute_offsets for the directory d starting at byte
// start: its extent (records never cross a sector, and a record that
// would end a sector exactly starts the next one), its subdirectories',
// then its files'. A file's extent is where the next free sector is when
// it comes first among its hard links; empty files, symlinks and special
// files take no sector there. It returns the bytes used.
func (v *volume) placeDir(d *isoNode, start int64) int64 {
	d.extent = uint32(sectorsFor(start))
	d.sectors = 1
	cur := 0
	for _, c := range d.children {
		rl := c.recordLen(v.o.RockRidge)
		if rl+cur >= SectorSize {
			cur = 0
			d.sectors++
		}
		cur += rl
	}
	used := d.sectors * SectorSize
	if v.caInline {
		used += v.placeDirCA(d, start+used)
	}
	for _, c := range d.children[2:] {
		if c.kind == kindDir {
			used += v.placeDir(c, start+used)
		}
	}
	for _, c := range d.children[2:] {
		if c.kind == kindDir {
			continue
		}
		if !c.data.allocated {
			c.data.allocated = true
			c.data.sector = uint32(sectorsFor(start + used))
			used += sectorsFor(c.dataLen) * SectorSize
		}
		c.extent = sectionExtent(c.data.sector, c.section)
	}
	return used
}

// placeDirCA places the continuation areas of the records of d from
// byte start on, each within one sector, and returns the bytes of the
// sectors they take.
func (v *volume) placeDirCA(d *isoNode, start int64) int64 {
	off := int64(0)
	for _, c := range d.children {
		n := int64(c.rr.caLen)
		if n == 0 {
			continue
		}
		if off%SectorSize+n > SectorSize {
			off = sectorsFor(off) * SectorSize
		}
		c.rr.caSector = uint32((start + off) / SectorSize)
		c.rr.caOff = uint32((start + off) % SectorSize)
		off += n
	}
	return sectorsFor(off) * SectorSize
}

// needCAInline reports whether the continuation areas go after each
// directory's extent instead of after the tree, where makefs puts them.
// libarchive reads an image in one pass and takes a CE entry's area into
// account only when it reaches it before it hands out the entry: a
// regular file's area after its contents is an error ("Invalid parameter
// in SUSP CE extension"), as is an area that ends past the sector its CE
// entry names, and the names, modes and link targets in the areas of
// other records are lost. So the areas stay where makefs puts them only
// when the root's "." record is the one record that has one (its SP and
// ER always push its PX and TF there); see Deviations in DETAILS.md.
func (v *volume) needCAInline() bool {
	if !v.o.RockRidge || v.rr.caSize > SectorSize {
		return v.o.RockRidge
	}
	inline := false
	v.eachRecord(v.root, func(n *isoNode) {
		if n.rr.caLen > 0 && n != v.root.dot {
			inline = true
		}
	})
	return inline
}

// placeContinuation puts the Rock Ridge continuation areas after the
// tree, one after the other from the start of a sector, as makefs does,
// unless they went after their directories, and fills the CE, CL and PL
// entries.
func (v *volume) placeContinuation() error {
	if !v.o.RockRidge {
		return nil
	}
	if v.caInline {
		v.rr.finalize(v.root, nil)
		return nil
	}
	caStart := v.next
	var off int64
	v.rr.finalize(v.root, func(r *rrRecord) {
		r.caSector, r.caOff = uint32(caStart), uint32(off)
		off += int64(r.caLen)
	})
	v.next += sectorsFor(v.rr.caSize)
	return nil
}

// placeLinkEnds makes the volume hold, under Rock Ridge, the sectors a
// symbolic link's Data Length (its target's length, as makefs writes it)
// spans from its extent, the next free sector when it was placed. makefs
// puts the continuation areas after the tree, so that sector holds them;
// when nothing follows the tree (the areas follow their directories, and
// there is no Joliet hierarchy) a link that comes last would run past the
// end of the volume, and bsdtar refuses the image ("Invalid location of
// extent of file"). Those sectors are then zero sectors of the volume.
func (v *volume) placeLinkEnds() error {
	if !v.o.RockRidge {
		return nil
	}
	v.eachRecord(v.root, func(n *isoNode) {
		if n.kind == kindFile && n.src.Type == fstree.TypeSymlink {
			v.next = max(v.next, int64(n.extent)+sectorsFor(int64(n.sizeLen)))
		}
	})
	return nil
}

// placePadding ends the volume, with makefs's trailing padding unless
// Options.NoTrailingPadding.
func (v *volume) placePadding() error {
	v.volumeSectors = v.next
	if !v.o.NoTrailingPadding {
		v.next += trailingPadding
	}
	return nil
}
