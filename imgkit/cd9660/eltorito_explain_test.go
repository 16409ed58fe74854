package cd9660

import (
	"fmt"
	"slices"
)

// describeBoot names the El Torito structure of the layout v holding
// byte off: the Boot Record, a catalogue entry and its field, or a boot
// image's contents; "" when off is in none.
func (v *volume) describeBoot(off int64) string {
	if v.boot == nil || v.boot.plan == nil {
		return ""
	}
	p := v.boot.plan
	sector := off / SectorSize
	if i := slices.IndexFunc(v.descriptors, func(d placedDescriptor) bool { return d.sector == sector }); i >= 0 &&
		v.descriptors[i].name == "El Torito Boot Record" {
		vd := new(volumeDescriptor)
		return "El Torito Boot Record, " + fieldAt(SectorSize, int(off%SectorSize), []named{
			{"Boot Record Indicator", vd.volumeDescriptorType()}, {"Standard Identifier", vd.standardIdentifier()},
			{"Version", vd.volumeDescriptorVersion()}, {"Boot System Identifier", vd.bootSystemIdentifier()},
			{"Boot Identifier", vd.bootIdentifier()}, {"Boot Catalog Pointer", vd.bootCatalogPointer()},
		})
	}
	cat := off - int64(p.catalogSector)*SectorSize
	if cat >= 0 && cat < int64(p.catalogSectors)*SectorSize {
		return describeCatalogEntry(int(cat))
	}
	for _, e := range p.entries {
		start := int64(e.rba) * SectorSize
		if off >= start && off < start+e.size {
			return fmt.Sprintf("boot image %d (%s) at byte %d", e.index, v.o.Boot.Images[e.index].File, off-start)
		}
	}
	if sector >= int64(p.catalogSector) && sector < int64(p.end) {
		return "El Torito boot area, after the images"
	}
	return ""
}

// describeCatalogEntry names the catalogue entry and field at byte off of
// the catalogue; fields are named by their offsets, the same in every
// kind of entry that has them.
func describeCatalogEntry(off int) string {
	e := new(catalogEntry)
	i := off / len(e)
	fields := []named{
		{"Boot Indicator or Header ID", e.bootIndicator()}, {"Boot Media Type or Platform ID", e.bootMediaType()},
		{"Load Segment or Number of Section Entries", e.loadSegment()}, {"System Type or ID String", e.systemType()},
		{"Sector Count or ID String", e.sectorCount()}, {"Load RBA or ID String", e.loadRBA()},
		{"Checksum Word", e.checksumWord()}, {"Key Bytes", e.keyBytes()},
		{"Selection Criteria Type", e.selectionCriteriaType()},
		{"Vendor Unique Selection Criteria", e.vendorUniqueSelectionCriteria()},
		{"ID String", e.idString()}, {"Section ID String", e.sectionIDString()},
	}
	return fmt.Sprintf("boot catalogue entry %d, %s", i, fieldAt(len(e), off%len(e), fields))
}
