package cd9660

import "slices"

// Files of 4 GiB or more, which ISO 9660 level 3 allows (ECMA-119 6.5.2,
// 9.1.6): one record per section of the file, in a row and with the same
// identifier, all but the last with the Multi-Extent flag, each section
// of at most maxSection bytes in consecutive sectors. FreeBSD's makefs
// refuses isolevel 3; this is fixturegen's own.

// maxSection is the longest section: the longest whole number of
// sectors a Data Length can hold.
const maxSection = 0xFFFFF800

// expandSections replaces the record of every file too long for one
// extent by one record per section, in every directory under d.
func expandSections(d *isoNode) {
	for i := 0; i < len(d.children); i++ {
		c := d.children[i]
		if c.kind == kindDir {
			expandSections(c)
			continue
		}
		if c.virtual || c.src == nil || c.dataLen < 1<<32 {
			continue
		}
		n := int((c.dataLen + maxSection - 1) / maxSection)
		parts := make([]*isoNode, n)
		for k := range parts {
			p := *c
			p.section, p.sections = k, n
			p.sizeLen = uint32(min(c.dataLen-int64(k)*maxSection, maxSection))
			parts[k] = &p
		}
		d.children = slices.Replace(d.children, i, i+1, parts...)
		i += n - 1
	}
}

// sectionExtent is the extent of section k of a file whose data starts at
// sector start.
func sectionExtent(start uint32, k int) uint32 {
	return start + uint32(k)*(maxSection/SectorSize)
}

// lastSection reports whether n is not followed by another section of its
// file (the Multi-Extent flag is clear on it).
func (n *isoNode) lastSection() bool { return n.section == n.sections-1 || n.sections == 0 }
