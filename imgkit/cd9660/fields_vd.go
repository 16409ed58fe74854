package cd9660

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// descriptorPath names the structure of volume descriptor d.
func (l *fieldList) descriptorPath(d *descriptor) string {
	switch d.vd.volumeDescriptorType()[0] {
	case vdTypeBootRecord:
		return "boot record"
	case vdTypePrimary:
		if d == l.f.primary {
			return "primary volume descriptor"
		}
	case vdTypeSupplementary:
		if d == l.f.joliet {
			return "supplementary volume descriptor (Joliet)"
		}
	case vdTypeTerminator:
		return "volume descriptor set terminator"
	}
	return "volume descriptor at sector " + strconv.FormatInt(d.sector, 10)
}

// descriptor describes volume descriptor d field by field.
func (l *fieldList) descriptor(d *descriptor) {
	vd := d.vd
	p := l.descriptorPath(d)
	off := d.sector * SectorSize
	add := func(name string, b []byte, value string) { l.add(p, name, off, vd[:], b, value) }
	add("Volume Descriptor Type", vd.volumeDescriptorType(), byteNum(vd.volumeDescriptorType()))
	add("Standard Identifier", vd.standardIdentifier(), quoted(vd.standardIdentifier()))
	add("Volume Descriptor Version", vd.volumeDescriptorVersion(), byteNum(vd.volumeDescriptorVersion()))
	switch t := vd.volumeDescriptorType()[0]; {
	case t == vdTypePrimary || t == vdTypeSupplementary:
		l.volumeFields(add, vd, d.level > 0)
	case t == vdTypeBootRecord && d == l.f.boot:
		add("Boot System Identifier", vd.bootSystemIdentifier(), quoted(vd.bootSystemIdentifier()))
		add("Boot Identifier", vd.bootIdentifier(), quoted(vd.bootIdentifier()))
		ptr := vd.bootCatalogPointer()
		add("Boot Catalog Pointer", ptr, strconv.FormatUint(uint64(binary.LittleEndian.Uint32(ptr)), 10))
		add("Unused", vd[75:], describe.Sum(vd[75:]))
	case t != vdTypeTerminator:
		add("contents", vd[7:], describe.Sum(vd[7:]))
	}
}

// volumeFields describes the fields of a primary or supplementary volume
// descriptor; joliet says its identifiers are UCS-2.
func (l *fieldList) volumeFields(add func(string, []byte, string), vd *volumeDescriptor, joliet bool) {
	str := quoted
	if joliet {
		str = ucs2Quoted
	}
	add("Volume Flags", vd.volumeFlags(), byteNum(vd.volumeFlags()))
	add("System Identifier", vd.systemIdentifier(), str(vd.systemIdentifier()))
	add("Volume Identifier", vd.volumeIdentifier(), str(vd.volumeIdentifier()))
	add("Unused Field", vd[72:80], describe.Sum(vd[72:80]))
	add("Volume Space Size", vd.volumeSpaceSize(), num733(vd.volumeSpaceSize()))
	add("Escape Sequences", vd.escapeSequences(), strconv.Quote(string(trimZero(vd.escapeSequences()))))
	add("Volume Set Size", vd.volumeSetSize(), num723(vd.volumeSetSize()))
	add("Volume Sequence Number", vd.volumeSequenceNumber(), num723(vd.volumeSequenceNumber()))
	add("Logical Block Size", vd.logicalBlockSize(), num723(vd.logicalBlockSize()))
	add("Path Table Size", vd.pathTableSize(), num733(vd.pathTableSize()))
	lnum := func(b []byte) string { return strconv.FormatUint(uint64(le32(b)), 10) }
	mnum := func(b []byte) string { return strconv.FormatUint(uint64(be32(b)), 10) }
	add("Location of Occurrence of Type L Path Table", vd.locationOfTypeLPathTable(), lnum(vd.locationOfTypeLPathTable()))
	add("Location of Optional Occurrence of Type L Path Table", vd.locationOfOptionalTypeLPathTable(), lnum(vd.locationOfOptionalTypeLPathTable()))
	add("Location of Occurrence of Type M Path Table", vd.locationOfTypeMPathTable(), mnum(vd.locationOfTypeMPathTable()))
	add("Location of Optional Occurrence of Type M Path Table", vd.locationOfOptionalTypeMPathTable(), mnum(vd.locationOfOptionalTypeMPathTable()))
	root := vd.rootDirectoryRecord()
	add("Directory Record for Root Directory", root, recordSummary(root))
	add("Volume Set Identifier", vd.volumeSetIdentifier(), str(vd.volumeSetIdentifier()))
	add("Publisher Identifier", vd.publisherIdentifier(), str(vd.publisherIdentifier()))
	add("Data Preparer Identifier", vd.dataPreparerIdentifier(), str(vd.dataPreparerIdentifier()))
	add("Application Identifier", vd.applicationIdentifier(), str(vd.applicationIdentifier()))
	add("Copyright File Identifier", vd.copyrightFileIdentifier(), str(vd.copyrightFileIdentifier()))
	add("Abstract File Identifier", vd.abstractFileIdentifier(), str(vd.abstractFileIdentifier()))
	add("Bibliographic File Identifier", vd.bibliographicFileIdentifier(), str(vd.bibliographicFileIdentifier()))
	add("Volume Creation Date and Time", vd.volumeCreationDateAndTime(), decTimeString(vd.volumeCreationDateAndTime()))
	add("Volume Modification Date and Time", vd.volumeModificationDateAndTime(), decTimeString(vd.volumeModificationDateAndTime()))
	add("Volume Expiration Date and Time", vd.volumeExpirationDateAndTime(), decTimeString(vd.volumeExpirationDateAndTime()))
	add("Volume Effective Date and Time", vd.volumeEffectiveDateAndTime(), decTimeString(vd.volumeEffectiveDateAndTime()))
	add("File Structure Version", vd.fileStructureVersion(), byteNum(vd.fileStructureVersion()))
	add("Reserved (byte 882)", vd[882:883], byteNum(vd[882:883]))
	add("Application Use", vd.applicationUse(), describe.Sum(vd.applicationUse()))
	add("Reserved for future standardization", vd[1395:], describe.Sum(vd[1395:]))
}

// recordSummary says a directory record in one line: its extent, data
// length and flags.
func recordSummary(r dirRecord) string {
	return "extent " + num733(r.locationOfExtent()) + ", " + num733(r.dataLength()) + " bytes, flags " + flagsString(r.fileFlags()[0])
}

// trimZero returns b without trailing zero bytes.
func trimZero(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}

// maxPathTable bounds the bytes of a path table described.
const maxPathTable = 1 << 24

// pathTables describes the path tables of volume descriptor d: the Type L
// and Type M tables and their optional copies, record by record.
func (l *fieldList) pathTables(d *descriptor) {
	vd := d.vd
	size, _ := get733(vd.pathTableSize())
	prefix := ""
	if d == l.f.joliet {
		prefix = "Joliet "
	}
	for _, t := range []struct {
		name string
		loc  uint32
		le   bool
	}{
		{"type L path table", le32(vd.locationOfTypeLPathTable()), true},
		{"optional type L path table", le32(vd.locationOfOptionalTypeLPathTable()), true},
		{"type M path table", be32(vd.locationOfTypeMPathTable()), false},
		{"optional type M path table", be32(vd.locationOfOptionalTypeMPathTable()), false},
	} {
		off := int64(t.loc) * l.f.blockSize
		if t.loc == 0 || size == 0 || size > maxPathTable || off+int64(size) > l.f.size {
			continue
		}
		b := make([]byte, size)
		if l.f.readAt(b, off) != nil {
			continue
		}
		l.pathTable(prefix+t.name, b, off, t.le)
	}
}

// pathTable describes the records of the path table b read at byte off.
func (l *fieldList) pathTable(name string, b []byte, off int64, le bool) {
	for p, i := 0, 1; p+pathRecordFixedLen <= len(b); i++ {
		r := pathTableRecord(b[p:])
		n := pathTableRecordLen(int(r[0]))
		if r[0] == 0 || p+n > len(b) {
			return
		}
		r = r[:n]
		path := name + " record " + strconv.Itoa(i)
		add := func(field string, f []byte, value string) { l.add(path, field, off, b, f, value) }
		loc, parent := uint64(le32(r.locationOfExtent())), uint64(binary.LittleEndian.Uint16(r.parentDirectoryNumber()))
		if !le {
			loc, parent = uint64(be32(r.locationOfExtent())), uint64(binary.BigEndian.Uint16(r.parentDirectoryNumber()))
		}
		add("Length of Directory Identifier", r.lengthOfDirectoryIdentifier(), byteNum(r.lengthOfDirectoryIdentifier()))
		add("Extended Attribute Record Length", r.extendedAttributeRecordLength(), byteNum(r.extendedAttributeRecordLength()))
		add("Location of Extent", r.locationOfExtent(), strconv.FormatUint(loc, 10))
		add("Parent Directory Number", r.parentDirectoryNumber(), strconv.FormatUint(parent, 10))
		id := r.directoryIdentifier()
		v := quoted(id)
		if strings.HasPrefix(name, "Joliet") {
			v = ucs2Quoted(id)
		}
		add("Directory Identifier", id, v)
		p += n
	}
}
