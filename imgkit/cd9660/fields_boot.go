package cd9660

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// bootCatalog describes the El Torito boot catalogue entry by entry and
// each boot image as a sum; a catalogue that cannot be read is one field
// saying why.
func (l *fieldList) bootCatalog() {
	c, err := l.f.BootCatalog()
	if err != nil {
		l.out = append(l.out, describe.Field{Path: "boot catalog", Name: "Validation Entry", Offset: -1, Value: "unreadable: " + err.Error()})
		return
	}
	off := int64(c.Sector) * SectorSize
	var v catalogEntry
	if l.f.readAt(v[:], off) != nil {
		return
	}
	p := "boot catalog"
	add := func(name string, b []byte, value string) { l.add(p, "Validation Entry "+name, off, v[:], b, value) }
	add("Header ID", v.headerID(), hexByte(v.headerID()))
	add("Platform ID", v.platformID(), hexByte(v.platformID()))
	add("Reserved", v[2:4], hex16(v[2:4]))
	add("ID String", v.idString(), quoted(trimZero(v.idString())))
	add("Checksum Word", v.checksumWord(), hex16(v.checksumWord()))
	add("Key Bytes", v.keyBytes(), fmt.Sprintf("%#x", v.keyBytes()))
	l.bootEntry(p, "Initial/Default Entry ", c.Default)
	for i, s := range c.Sections {
		l.section(p+" section "+strconv.Itoa(i+1), s)
	}
}

// section describes a Section Header Entry and its Section Entries.
func (l *fieldList) section(p string, s BootSection) {
	var h catalogEntry
	if l.f.readAt(h[:], s.Offset) != nil {
		return
	}
	add := func(name string, b []byte, value string) { l.add(p, "Section Header "+name, s.Offset, h[:], b, value) }
	add("Header Indicator", h.headerIndicator(), hexByte(h.headerIndicator()))
	add("Platform ID", h.sectionPlatformID(), hexByte(h.sectionPlatformID()))
	add("Number of Section Entries", h.numberOfSectionEntries(), strconv.Itoa(int(binary.LittleEndian.Uint16(h.numberOfSectionEntries()))))
	add("ID String", h.sectionIDString(), quoted(trimZero(h.sectionIDString())))
	for i, e := range s.Entries {
		l.bootEntry(p, "Section Entry "+strconv.Itoa(i+1)+" ", e)
	}
}

// bootEntry describes an Initial/Default or Section Entry, with pre
// before its field names, and its boot image.
func (l *fieldList) bootEntry(p, pre string, be BootEntry) {
	var e catalogEntry
	if l.f.readAt(e[:], be.Offset) != nil {
		return
	}
	add := func(name string, b []byte, value string) { l.add(p, pre+name, be.Offset, e[:], b, value) }
	add("Boot Indicator", e.bootIndicator(), indicatorString(e.bootIndicator()[0]))
	add("Boot Media Type", e.bootMediaType(), mediaString(e.bootMediaType()[0]))
	add("Load Segment", e.loadSegment(), hex16(e.loadSegment()))
	add("System Type", e.systemType(), hexByte(e.systemType()))
	add("Unused", e[5:6], hexByte(e[5:6]))
	add("Sector Count", e.sectorCount(), strconv.Itoa(int(be.SectorCount)))
	add("Load RBA", e.loadRBA(), strconv.FormatUint(uint64(be.LoadRBA), 10))
	add("Selection Criteria Type", e.selectionCriteriaType(), hexByte(e.selectionCriteriaType()))
	add("Vendor Unique Selection Criteria", e.vendorUniqueSelectionCriteria(), describe.Sum(e.vendorUniqueSelectionCriteria()))
	off, n := int64(be.LoadRBA)*SectorSize, be.imageSize()
	if off <= 0 || off >= l.f.size {
		return
	}
	n = min(n, l.f.size-off)
	sum, err := describe.SumRange(l.f.r, off, n)
	if err != nil {
		sum = "unreadable: " + err.Error()
	}
	l.out = append(l.out, describe.Field{Path: p, Name: pre + "boot image", Offset: off, Size: n, Value: describe.DataValue(n, sum)})
}

// imageSize returns the bytes of the entry's boot image: the floppy's size
// under floppy emulation, else Sector Count virtual sectors of 512 bytes.
func (e *BootEntry) imageSize() int64 {
	switch e.MediaType & 0x0f {
	case etMediaNoEmulation, etMediaHardDisk:
		return int64(e.SectorCount) * 512
	case etMediaFloppy12:
		return 1228800
	case etMediaFloppy144:
		return 1474560
	case etMediaFloppy288:
		return 2949120
	}
	return int64(e.SectorCount) * 512
}

// indicatorString says a Boot Indicator.
func indicatorString(b byte) string {
	switch b {
	case etBootable:
		return "0x88 bootable"
	case etNotBootable:
		return "0x00 not bootable"
	}
	return fmt.Sprintf("%#02x", b)
}

// mediaString says a Boot media type byte.
func mediaString(b byte) string {
	names := [...]string{etMediaNoEmulation: "no emulation", etMediaFloppy12: "1.2 MB floppy", etMediaFloppy144: "1.44 MB floppy",
		etMediaFloppy288: "2.88 MB floppy", etMediaHardDisk: "hard disk"}
	s := fmt.Sprintf("%#02x", b)
	if int(b&0x0f) < len(names) {
		s += " " + names[b&0x0f]
	}
	return s
}

func hexByte(b []byte) string { return fmt.Sprintf("%#02x", b[0]) }

func hex16(b []byte) string { return fmt.Sprintf("%#04x", binary.LittleEndian.Uint16(b)) }
