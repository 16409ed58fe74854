package cd9660

import (
	"bytes"
	"encoding/binary"
)

// BootCatalog is an El Torito boot catalogue (El Torito 1.0, 2.0 to 2.4):
// the validation entry, the initial/default entry and the sections that
// follow it.
type BootCatalog struct {
	// Sector is the Boot Catalog Pointer of the boot record: the absolute
	// 2048-byte sector where the catalogue starts.
	Sector uint32
	// PlatformID, ID and Checksum are the Validation Entry's Platform ID,
	// ID string (trailing NUL and blank bytes removed) and Checksum Word.
	PlatformID uint8
	ID         string
	Checksum   uint16
	// Default is the Initial/Default Entry.
	Default BootEntry
	// Sections are the Section Header Entries and their Section Entries.
	Sections []BootSection
}

// BootSection is a Section Header Entry (El Torito 2.3) and its Section
// Entries.
type BootSection struct {
	Offset int64 // byte offset of the header in the image
	// HeaderIndicator is 90h when more sections follow, 91h for the last.
	HeaderIndicator uint8
	PlatformID      uint8
	ID              string // ID string, trailing NUL and blank bytes removed
	Entries         []BootEntry
}

// BootEntry is an Initial/Default Entry (El Torito 2.2) or a Section Entry
// (2.4).
type BootEntry struct {
	Offset int64 // byte offset of the entry in the image
	// BootIndicator is 88h for a bootable entry, 00h for one that is not.
	BootIndicator uint8
	// MediaType is the Boot media type byte: 0 no emulation, 1 to 3 the
	// 1.2, 1.44 and 2.88 MB floppies, 4 a hard disk, in its low 4 bits;
	// a Section Entry's bit 5 says an extension entry follows.
	MediaType   uint8
	LoadSegment uint16
	SystemType  uint8
	// SectorCount is the number of 512-byte virtual sectors loaded.
	SectorCount uint16
	// LoadRBA is the boot image's first 2048-byte sector.
	LoadRBA uint32
	// SelectionCriteriaType and SelectionCriteria are a Section Entry's
	// selection criteria (zero in an Initial/Default Entry).
	SelectionCriteriaType uint8
	SelectionCriteria     []byte
}

// Bootable reports whether the entry's Boot Indicator is 88h.
func (e *BootEntry) Bootable() bool { return e.BootIndicator == etBootable }

// Limits of the boot catalogue read.
const (
	maxCatalogSectors = 16 // sectors of catalogue read: 1024 entries
	catalogEntrySize  = 32
	etExtensionMore   = 0x20 // bit 5 of a Section Entry's or extension's byte 1
)

// BootCatalog reads the El Torito boot catalogue that the boot record
// points to. An image without an El Torito boot record gives an error
// wrapping ErrNoBootRecord; a catalogue whose validation entry is wrong, an
// error wrapping ErrFormat.
func (f *FS) BootCatalog() (*BootCatalog, error) {
	if f.boot == nil {
		return nil, ErrNoBootRecord
	}
	ptr := binary.LittleEndian.Uint32(f.boot.vd.bootCatalogPointer())
	off := int64(ptr) * SectorSize
	if off < SectorSize*systemAreaSectors || off >= f.size {
		return nil, formatErr(f.boot.sector*SectorSize+71, "Boot Catalog Pointer", "Boot Catalog Pointer %d at byte %#x is outside the image", ptr, f.boot.sector*SectorSize+71)
	}
	b := make([]byte, min(maxCatalogSectors*SectorSize, f.size-off)/catalogEntrySize*catalogEntrySize)
	if len(b) < 2*catalogEntrySize {
		return nil, formatErr(off, "", "boot catalogue at byte %#x is cut short by the end of the image", off)
	}
	if err := f.readAt(b, off); err != nil {
		return nil, err
	}
	c := &BootCatalog{Sector: ptr}
	if err := c.validation((*catalogEntry)(b[:catalogEntrySize]), off); err != nil {
		return nil, err
	}
	c.Default = decodeBootEntry((*catalogEntry)(b[catalogEntrySize:][:catalogEntrySize]), off+catalogEntrySize)
	c.readSections(b, off)
	return c, nil
}

// validation checks and takes the Validation Entry e at byte off: its
// header ID, key bytes and the checksum that makes its sixteen words sum
// to zero.
func (c *BootCatalog) validation(e *catalogEntry, off int64) error {
	if e.headerID()[0] != etHeaderValidation {
		return formatErr(off, "Header ID", "boot catalogue Validation Entry at byte %#x: Header ID %#02x is not 01h", off, e.headerID()[0])
	}
	if e.keyBytes()[0] != 0x55 || e.keyBytes()[1] != 0xaa {
		return formatErr(off+30, "Key bytes", "boot catalogue Validation Entry at byte %#x: key bytes %#x are not 55h AAh", off+30, e.keyBytes())
	}
	var sum uint16
	for i := 0; i < len(e); i += 2 {
		sum += binary.LittleEndian.Uint16(e[i:])
	}
	if sum != 0 {
		return formatErr(off+28, "Checksum Word", "boot catalogue Validation Entry at byte %#x: the words sum to %#04x, not 0", off, sum)
	}
	c.PlatformID = e.platformID()[0]
	c.ID = trimID(e.idString())
	c.Checksum = binary.LittleEndian.Uint16(e.checksumWord())
	return nil
}

// readSections reads the sections that follow the default entry in the
// catalogue bytes b read from byte off, up to the final section header
// (91h), an entry that is no section header, or the end of b.
func (c *BootCatalog) readSections(b []byte, off int64) {
	p := 2 * catalogEntrySize
	for p+catalogEntrySize <= len(b) {
		h := (*catalogEntry)(b[p:][:catalogEntrySize])
		ind := h.headerIndicator()[0]
		if ind != etSectionHeader && ind != etSectionHeaderFinal {
			return
		}
		s := BootSection{Offset: off + int64(p), HeaderIndicator: ind, PlatformID: h.sectionPlatformID()[0],
			ID: trimID(h.sectionIDString())}
		n := int(binary.LittleEndian.Uint16(h.numberOfSectionEntries()))
		p += catalogEntrySize
		for i := 0; i < n && p+catalogEntrySize <= len(b); i++ {
			e := (*catalogEntry)(b[p:][:catalogEntrySize])
			s.Entries = append(s.Entries, decodeBootEntry(e, off+int64(p)))
			p += catalogEntrySize
			more := e.bootMediaType()[0]&etExtensionMore != 0
			for more && p+catalogEntrySize <= len(b) && b[p] == etExtension {
				more = b[p+1]&etExtensionMore != 0
				p += catalogEntrySize
			}
		}
		c.Sections = append(c.Sections, s)
		if ind == etSectionHeaderFinal {
			return
		}
	}
}

// decodeBootEntry decodes the Initial/Default or Section Entry e at byte off.
func decodeBootEntry(e *catalogEntry, off int64) BootEntry {
	return BootEntry{
		Offset:                off,
		BootIndicator:         e.bootIndicator()[0],
		MediaType:             e.bootMediaType()[0],
		LoadSegment:           binary.LittleEndian.Uint16(e.loadSegment()),
		SystemType:            e.systemType()[0],
		SectorCount:           binary.LittleEndian.Uint16(e.sectorCount()),
		LoadRBA:               binary.LittleEndian.Uint32(e.loadRBA()),
		SelectionCriteriaType: e.selectionCriteriaType()[0],
		SelectionCriteria:     bytes.Clone(e.vendorUniqueSelectionCriteria()),
	}
}

// trimID returns an ID string without its trailing NUL and blank bytes.
func trimID(b []byte) string {
	return latin1(bytes.TrimRight(b, "\x00 "))
}
