package cd9660

import (
	"fmt"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// The bytes of the volume descriptors, path tables, directory extents and
// continuation areas.

// writeSector writes one or more sectors at the given sector.
func writeSector(im *bcache.Image, sector int64, b []byte) error {
	_, err := im.WriteAt(b, sector*SectorSize)
	return err
}

// putDecDate writes t as a volume descriptor date (ECMA-119 8.4.26.1) in
// UTC, hundredths "00", as makefs's cd9660_time_8426 does with TZ=UTC.
func putDecDate(d decDateTime, t time.Time) {
	t = t.UTC()
	copy(d.year(), fmt.Sprintf("%04d", t.Year()))
	copy(d.month(), fmt.Sprintf("%02d", int(t.Month())))
	copy(d.day(), fmt.Sprintf("%02d", t.Day()))
	copy(d.hour(), fmt.Sprintf("%02d", t.Hour()))
	copy(d.minute(), fmt.Sprintf("%02d", t.Minute()))
	copy(d.second(), fmt.Sprintf("%02d", t.Second()))
	copy(d.hundredthsOfASecond(), "00")
	d.gmtOffset()[0] = 0
}

// padded copies s into the field f and fills the rest with blanks.
func padded(f []byte, s string) {
	n := copy(f, s)
	for i := n; i < len(f); i++ {
		f[i] = ' '
	}
}

// descriptorHeader fills the fields every volume descriptor starts with.
func descriptorHeader(vd *volumeDescriptor, typ byte) {
	vd.volumeDescriptorType()[0] = typ
	copy(vd.standardIdentifier(), standardIdentifier)
	vd.volumeDescriptorVersion()[0] = 1
}

// primaryDescriptor builds the Primary Volume Descriptor
// (cd9660_finalize_PVD).
func (v *volume) primaryDescriptor() *volumeDescriptor {
	vd := new(volumeDescriptor)
	descriptorHeader(vd, vdTypePrimary)
	v.fillDescriptor(vd, padded, v.root, v.ptLen, v.lPath, v.mPath)
	v.o.putApplicationUse(vd.applicationUse())
	return vd
}

// fillDescriptor writes the fields the Primary and a Supplementary Volume
// Descriptor share (ECMA-119 8.4 and 8.5): the identifiers, each written
// by put (d-characters, or UCS-2 for Joliet), the volume's size, the path
// tables and root directory record of the hierarchy root, and the dates.
func (v *volume) fillDescriptor(vd *volumeDescriptor, put func(f []byte, s string), root *isoNode, ptLen int, lPath, mPath int64) {
	put(vd.systemIdentifier(), v.o.systemID())
	put(vd.volumeIdentifier(), v.o.Label)
	put733(vd.volumeSpaceSize(), uint32(v.volumeSectors))
	put723(vd.volumeSetSize(), 1)
	put723(vd.volumeSequenceNumber(), 1)
	put723(vd.logicalBlockSize(), SectorSize)
	put733(vd.pathTableSize(), uint32(ptLen))
	put731(vd.locationOfTypeLPathTable(), uint32(lPath))
	put732(vd.locationOfTypeMPathTable(), uint32(mPath))
	rec := vd.rootDirectoryRecord()
	v.fillRecord(rec, root.dot, false)
	rec.lengthOfDirectoryRecord()[0] = 34
	put(vd.volumeSetIdentifier(), v.o.VolumeSetID)
	put(vd.publisherIdentifier(), v.o.Publisher)
	put(vd.dataPreparerIdentifier(), v.o.Preparer)
	put(vd.applicationIdentifier(), v.o.ApplicationID)
	put(vd.copyrightFileIdentifier(), "")
	put(vd.abstractFileIdentifier(), "")
	put(vd.bibliographicFileIdentifier(), "")
	v.putVolumeDates(vd)
	vd.fileStructureVersion()[0] = 1
}

// putVolumeDates writes the creation, modification and effective dates
// (the volume time) and an unspecified expiration date.
func (v *volume) putVolumeDates(vd *volumeDescriptor) {
	putDecDate(vd.volumeCreationDateAndTime(), v.volTime)
	putDecDate(vd.volumeModificationDateAndTime(), v.volTime)
	copy(vd.volumeExpirationDateAndTime(), "0000000000000000")
	putDecDate(vd.volumeEffectiveDateAndTime(), v.volTime)
}

// terminatorDescriptor builds the Volume Descriptor Set Terminator
// (ECMA-119 8.3).
func terminatorDescriptor(*volume) *volumeDescriptor {
	term := new(volumeDescriptor)
	descriptorHeader(term, vdTypeTerminator)
	return term
}

// writeDescriptors writes the volume descriptor set.
func (v *volume) writeDescriptors(im *bcache.Image) error {
	for _, d := range v.descriptors {
		if err := writeSector(im, d.sector, d.build(v)[:]); err != nil {
			return err
		}
	}
	return nil
}

// buildPathTable makes a path table of the directories dirs (ECMA-119
// 9.4), little-endian or big-endian. The identifier and its padding byte
// come from the record's identifier buffer, as makefs copies them (a
// renamed directory leaves a digit in the padding byte).
func buildPathTable(dirs []*isoNode, size int, bigEndian bool) []byte {
	out := make([]byte, sectorsFor(int64(size))*SectorSize)
	off := 0
	for _, d := range dirs {
		p := pathTableRecord(out[off : off+pathTableRecordLen(d.nameLen)])
		p.lengthOfDirectoryIdentifier()[0] = byte(d.nameLen)
		parent := uint16(1)
		if d.parent != nil {
			parent = uint16(d.parent.ptNumber)
		}
		if bigEndian {
			put732(p.locationOfExtent(), d.extent)
			put722(p.parentDirectoryNumber(), parent)
		} else {
			put731(p.locationOfExtent(), d.extent)
			put721(p.parentDirectoryNumber(), parent)
		}
		copy(p[pathRecordFixedLen:], d.identBuf())
		off += len(p)
	}
	return out
}

// writePathTables writes the Type L and Type M path tables.
func (v *volume) writePathTables(im *bcache.Image) error {
	if err := writeSector(im, v.lPath, buildPathTable(v.dirs, v.ptLen, false)); err != nil {
		return err
	}
	return writeSector(im, v.mPath, buildPathTable(v.dirs, v.ptLen, true))
}

// recordSource is the record whose extent, length, date and flags the
// record n shows: "." shows its directory's, ".." the parent's (the
// root's own for the root).
func recordSource(n *isoNode) *isoNode {
	switch n.kind {
	case kindDot:
		return n.parent
	case kindDotDot:
		if n.parent.parent == nil {
			return n.parent
		}
		return n.parent.parent
	}
	return n
}

// fillRecord fills the fixed fields, the identifier and, with rr, the
// System Use field of n's record in rec.
func (v *volume) fillRecord(rec dirRecord, n *isoNode, rr bool) {
	s := recordSource(n)
	rec.lengthOfDirectoryRecord()[0] = byte(len(rec))
	put733(rec.locationOfExtent(), s.extent)
	if s.kind == kindDir {
		put733(rec.dataLength(), uint32(s.sectors*SectorSize))
		rec.fileFlags()[0] = flagDirectory
	} else {
		put733(rec.dataLength(), s.sizeLen)
		if !s.lastSection() {
			rec.fileFlags()[0] = flagMultiExtent
		}
	}
	putDirDate(rec.recordingDateAndTime(), s.date)
	put723(rec.volumeSequenceNumber(), 1)
	rec.lengthOfFileIdentifier()[0] = byte(n.nameLen)
	copy(rec[dirRecordFixedLen:n.baseLen], n.identBuf())
	if rr {
		off := n.baseLen
		for _, e := range n.rr.entries[:n.rr.inSUF] {
			off += copy(rec[off:], e)
		}
	}
	copy(rec[len(rec)-len(n.tail):], n.tail) // at the very end, after any padding byte, as makefs writes it
}

// dirExtentOf builds the extent of the directory d: its records, with
// their Rock Ridge entries when rr, none crossing a sector boundary.
func (v *volume) dirExtentOf(d *isoNode, rr bool) []byte {
	out := make([]byte, d.sectors*SectorSize)
	sector, cur := 0, 0
	for _, c := range d.children {
		rl := c.recordLen(rr)
		if rl+cur >= SectorSize {
			sector++
			cur = 0
		}
		off := sector*SectorSize + cur
		v.fillRecord(dirRecord(out[off:off+rl]), c, rr)
		cur += rl
	}
	return out
}

// writeDirs writes every directory's extent.
func (v *volume) writeDirs(im *bcache.Image) error {
	for _, d := range v.dirs {
		if err := writeSector(im, int64(d.extent), v.dirExtentOf(d, v.o.RockRidge)); err != nil {
			return err
		}
	}
	return nil
}

// writeContinuation writes the continuation areas.
func (v *volume) writeContinuation(im *bcache.Image) error {
	if !v.o.RockRidge {
		return nil
	}
	var err error
	v.eachRecord(v.root, func(n *isoNode) {
		if n.rr.caLen == 0 || err != nil {
			return
		}
		var b []byte
		for _, e := range n.rr.entries[n.rr.inSUF:] {
			b = append(b, e...)
		}
		_, err = im.WriteAt(b, int64(n.rr.caSector)*SectorSize+int64(n.rr.caOff))
	})
	return err
}
