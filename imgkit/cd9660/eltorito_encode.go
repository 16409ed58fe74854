package cd9660

import "encoding/binary"

// putBootRecord fills v, a zeroed sector, with the El Torito Boot Record
// Volume Descriptor (ECMA-119 8.2, El Torito 2.0) pointing at the
// catalogue in logical sector catalogSector. makefs writes it in sector
// 17, right after the Primary Volume Descriptor.
func putBootRecord(v *volumeDescriptor, catalogSector uint32) {
	v.volumeDescriptorType()[0] = vdTypeBootRecord
	copy(v.standardIdentifier(), standardIdentifier)
	v.volumeDescriptorVersion()[0] = 1
	copy(v.bootSystemIdentifier(), elToritoIdentifier)
	put731(v.bootCatalogPointer(), catalogSector)
}

// catalog returns the boot catalogue's entries, to be written from the
// start of its first sector: the Validation Entry, the Initial/Default
// Entry for the first image given, then for each Section Header
// platform a Section Header and the Section Entries of the other images
// of that platform. makefs reserves sectors for one entry per image only,
// so with 63 or more images the entries can run into the first image's
// sector; the writer writes the catalogue before the images, as makefs
// does, and the image wins.
func (p *bootPlan) catalog() []byte {
	out := make([]catalogEntry, 2, 2+2*len(p.entries))
	initial := &p.entries[p.initial]
	platform := initial.system
	if p.debian {
		platform = etPlatformX86 // Debian's makefs always writes 80x86
	}
	putValidationEntry(&out[0], platform)
	putInitialEntry(&out[1], initial)
	last := -1 // the catalogue's last Section Header
	for _, g := range p.sections() {
		var h catalogEntry
		h.headerIndicator()[0] = etSectionHeader
		h.sectionPlatformID()[0] = g.platform
		// makefs counts the entries in the field's low byte only.
		h.numberOfSectionEntries()[0] = byte(len(g.entries))
		last = len(out)
		out = append(out, h)
		for _, k := range g.entries {
			var s catalogEntry
			putSectionEntry(&s, &p.entries[k])
			out = append(out, s)
		}
	}
	if last >= 0 && !p.debian { // Debian's makefs marks no header the last
		out[last].headerIndicator()[0] = etSectionHeaderFinal
	}
	b := make([]byte, 0, len(out)*len(catalogEntry{}))
	for i := range out {
		b = append(b, out[i][:]...)
	}
	return b
}

// bootSection is one Section Header's platform and the indexes in
// bootPlan.entries of its Section Entries.
type bootSection struct {
	platform byte
	entries  []int
}

// sections groups the images other than the initial one by the platform
// of their Section Header, in the order makefs's catalogue lists them:
// makefs inserts each new header right after the Initial/Default Entry,
// so the platforms appear in the reverse order of their first image, and
// each header's entries in the order of the images (in the reverse order
// in Debian's makefs, which inserts each right after its header).
func (p *bootPlan) sections() []bootSection {
	var groups []bootSection
	for k, e := range p.entries {
		if k == p.initial {
			continue
		}
		g := -1
		for j := range groups {
			if groups[j].platform == e.platform {
				g = j
			}
		}
		if g < 0 {
			groups = append([]bootSection{{platform: e.platform}}, groups...)
			g = 0
		}
		if p.debian {
			groups[g].entries = append([]int{k}, groups[g].entries...)
		} else {
			groups[g].entries = append(groups[g].entries, k)
		}
	}
	return groups
}

// putValidationEntry fills e, a zeroed entry, with the Validation Entry
// (El Torito 2.1) of the platform platform, its checksum making the
// entry's 16-bit little-endian words sum to zero.
func putValidationEntry(e *catalogEntry, platform byte) {
	e.headerID()[0] = etHeaderValidation
	e.platformID()[0] = platform
	copy(e.keyBytes(), []byte{0x55, 0xaa})
	var sum uint16
	for i := 0; i < len(e); i += 2 {
		sum += binary.LittleEndian.Uint16(e[i:])
	}
	put721(e.checksumWord(), -sum)
}

// putInitialEntry fills e, a zeroed entry, with the Initial/Default Entry
// (El Torito 2.2) of the image b. The System Type is the image's Platform
// ID, as makefs writes it (it does not read a hard disk image's
// partition table); the Sector Count is makefs's 512-byte count of whole
// logical sectors, its low 16 bits.
func putInitialEntry(e *catalogEntry, b *bootEntry) {
	e.bootIndicator()[0] = etNotBootable
	if b.bootable {
		e.bootIndicator()[0] = etBootable
	}
	e.bootMediaType()[0] = b.media
	put721(e.loadSegment(), b.segment)
	e.systemType()[0] = b.system
	put721(e.sectorCount(), uint16(b.count))
	put731(e.loadRBA(), b.rba)
}

// putSectionEntry fills e, a zeroed entry, with the Section Entry (El
// Torito 2.4) of the image b. As makefs writes it, it is always bootable
// (no-boot applies to the Initial/Default Entry only) and its System
// Type and selection criteria are zero.
func putSectionEntry(e *catalogEntry, b *bootEntry) {
	e.bootIndicator()[0] = etBootable
	e.bootMediaType()[0] = b.media
	put721(e.loadSegment(), b.segment)
	put721(e.sectorCount(), uint16(b.count))
	put731(e.loadRBA(), b.rba)
}
