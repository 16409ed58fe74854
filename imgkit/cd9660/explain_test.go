package cd9660

import "fmt"

// explainDiff says where two images first differ in terms of the layout v
// made for b: which volume descriptor field, path table record,
// directory record field, System Use entry, continuation area or file
// contents, and the two bytes. It returns "" when they are equal.
func explainDiff(v *volume, a, b []byte) string {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		if len(a) == len(b) {
			return ""
		}
		return fmt.Sprintf("sizes differ: %d and %d sectors (%s)", len(a)/SectorSize, len(b)/SectorSize, v.describe(int64(n)))
	}
	return fmt.Sprintf("first difference at byte %#x (sector %d): %s: %#02x and %#02x", i, i/SectorSize, v.describe(int64(i)), a[i], b[i])
}

// named is a field of a record, as its accessor returns it.
type named struct {
	name string
	f    []byte
}

// fieldAt names the field of a record holding byte off of it; fields are
// slices of the record, so a field starts at len(record) - cap(field)
// from the record's start when the record's capacity is its length.
func fieldAt(recCap int, off int, fields []named) string {
	for _, f := range fields {
		start := recCap - cap(f.f)
		if off >= start && off < start+len(f.f) {
			return fmt.Sprintf("%s byte %d", f.name, off-start)
		}
	}
	return fmt.Sprintf("byte %d (no named field)", off)
}

// descriptorFields lists the named fields of a volume descriptor.
func descriptorFields(vd *volumeDescriptor) []named {
	return []named{
		{"Volume Descriptor Type", vd.volumeDescriptorType()}, {"Standard Identifier", vd.standardIdentifier()},
		{"Volume Descriptor Version", vd.volumeDescriptorVersion()}, {"Volume Flags", vd.volumeFlags()},
		{"System Identifier", vd.systemIdentifier()}, {"Volume Identifier", vd.volumeIdentifier()},
		{"Volume Space Size", vd.volumeSpaceSize()}, {"Escape Sequences", vd.escapeSequences()},
		{"Volume Set Size", vd.volumeSetSize()}, {"Volume Sequence Number", vd.volumeSequenceNumber()},
		{"Logical Block Size", vd.logicalBlockSize()}, {"Path Table Size", vd.pathTableSize()},
		{"Location of Type L Path Table", vd.locationOfTypeLPathTable()},
		{"Location of Optional Type L Path Table", vd.locationOfOptionalTypeLPathTable()},
		{"Location of Type M Path Table", vd.locationOfTypeMPathTable()},
		{"Location of Optional Type M Path Table", vd.locationOfOptionalTypeMPathTable()},
		{"Directory Record for Root Directory", vd.rootDirectoryRecord()},
		{"Volume Set Identifier", vd.volumeSetIdentifier()}, {"Publisher Identifier", vd.publisherIdentifier()},
		{"Data Preparer Identifier", vd.dataPreparerIdentifier()}, {"Application Identifier", vd.applicationIdentifier()},
		{"Copyright File Identifier", vd.copyrightFileIdentifier()}, {"Abstract File Identifier", vd.abstractFileIdentifier()},
		{"Bibliographic File Identifier", vd.bibliographicFileIdentifier()},
		{"Volume Creation Date and Time", vd.volumeCreationDateAndTime()},
		{"Volume Modification Date and Time", vd.volumeModificationDateAndTime()},
		{"Volume Expiration Date and Time", vd.volumeExpirationDateAndTime()},
		{"Volume Effective Date and Time", vd.volumeEffectiveDateAndTime()},
		{"File Structure Version", vd.fileStructureVersion()}, {"Application Use", vd.applicationUse()},
	}
}

// recordFields lists the named fields of a directory record.
func recordFields(r dirRecord) []named {
	return []named{
		{"Length of Directory Record", r.lengthOfDirectoryRecord()},
		{"Extended Attribute Record Length", r.extendedAttributeRecordLength()},
		{"Location of Extent", r.locationOfExtent()}, {"Data Length", r.dataLength()},
		{"Recording Date and Time", r.recordingDateAndTime()}, {"File Flags", r.fileFlags()},
		{"File Unit Size", r.fileUnitSize()}, {"Interleave Gap Size", r.interleaveGapSize()},
		{"Volume Sequence Number", r.volumeSequenceNumber()},
		{"Length of File Identifier", r.lengthOfFileIdentifier()}, {"File Identifier", r.fileIdentifier()},
	}
}

// describe names the structure of the layout v that holds byte off.
func (v *volume) describe(off int64) string {
	sector := off / SectorSize
	in := int(off % SectorSize)
	if sector < systemAreaSectors {
		return "System Area"
	}
	if s := v.describeBoot(off); s != "" {
		return s
	}
	for _, d := range v.descriptors {
		if d.sector == sector {
			return d.name + ", " + fieldAt(SectorSize, in, descriptorFields(new(volumeDescriptor)))
		}
	}
	if s := v.describePathTables(off); s != "" {
		return s
	}
	if s := v.describeDirs(off); s != "" {
		return s
	}
	if s := v.describeData(off); s != "" {
		return s
	}
	return "outside every structure (zero padding)"
}

// describePathTables names the path table record holding byte off.
func (v *volume) describePathTables(off int64) string {
	n := sectorsFor(int64(v.ptLen))
	for _, t := range []struct {
		name  string
		start int64
	}{{"Type L Path Table", v.lPath}, {"Type M Path Table", v.mPath}} {
		rel := off - t.start*SectorSize
		if rel < 0 || rel >= n*SectorSize {
			continue
		}
		pos := int64(0)
		for i, d := range v.dirs {
			l := int64(pathTableRecordLen(d.nameLen))
			if rel < pos+l {
				return fmt.Sprintf("%s record %d (%s) byte %d", t.name, i+1, d.path(), rel-pos)
			}
			pos += l
		}
		return t.name + " after its last record"
	}
	return ""
}

// describeDirs names the directory record, field or System Use entry
// holding byte off.
func (v *volume) describeDirs(off int64) string {
	for _, d := range v.dirs {
		start := int64(d.extent) * SectorSize
		if off < start || off >= start+d.sectors*SectorSize {
			continue
		}
		buf := v.dirExtentOf(d, v.o.RockRidge)
		sector, cur := 0, 0
		for _, c := range d.children {
			rl := c.recordLen(v.o.RockRidge)
			if rl+cur >= SectorSize {
				sector, cur = sector+1, 0
			}
			rs := int64(sector*SectorSize + cur)
			if off-start >= rs && off-start < rs+int64(rl) {
				return v.describeRecord(d, c, dirRecord(buf[rs:rs+int64(rl):rs+int64(rl)]), int(off-start-rs))
			}
			cur += rl
		}
		return fmt.Sprintf("directory %s, after its records", d.path())
	}
	return ""
}

// describeRecord names the field of the record rec of c, in directory d,
// at byte in of it.
func (v *volume) describeRecord(d, c *isoNode, rec dirRecord, in int) string {
	name := string(c.ident())
	switch c.kind {
	case kindDot:
		name = "."
	case kindDotDot:
		name = ".."
	}
	what := fmt.Sprintf("directory %s, record %q", d.path(), name)
	if in < c.baseLen {
		return what + ", " + fieldAt(len(rec), in, recordFields(rec))
	}
	pos := c.baseLen
	for i, e := range c.rr.entries[:c.rr.inSUF] {
		if in < pos+len(e) {
			return fmt.Sprintf("%s, System Use entry %d (%s) byte %d", what, i, e.signatureWord(), in-pos)
		}
		pos += len(e)
	}
	return what + ", padding after the System Use field"
}

// describeData names the continuation area or file contents holding byte
// off.
func (v *volume) describeData(off int64) string {
	var out string
	v.eachRecord(v.root, func(n *isoNode) {
		if out != "" {
			return
		}
		if n.rr.caLen > 0 {
			s := int64(n.rr.caSector)*SectorSize + int64(n.rr.caOff)
			if off >= s && off < s+int64(n.rr.caLen) {
				pos := s
				for _, e := range n.rr.entries[n.rr.inSUF:] {
					if off < pos+int64(len(e)) {
						out = fmt.Sprintf("continuation area of %s (%s entry byte %d)", n.path(), e.signatureWord(), off-pos)
						return
					}
					pos += int64(len(e))
				}
			}
		}
		if n.kind == kindFile && n.data != nil && n.dataLen > 0 {
			s := int64(n.data.sector) * SectorSize
			if off >= s && off < s+sectorsFor(n.dataLen)*SectorSize {
				out = fmt.Sprintf("contents of %s at byte %d", n.path(), off-s)
			}
		}
	})
	return out
}
