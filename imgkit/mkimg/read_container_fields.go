package mkimg

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// containerLayout is the raw disk of a container file that says where
// its bytes lie in the file and what the container's own records hold, so
// that Fields, which describes the file, names the container's fields and
// places the disk's at their bytes in the file.
type containerLayout interface {
	// fileSpans returns the file's ranges holding the n bytes of the
	// disk at off, in order; bytes the file does not hold (absent
	// blocks, read as zeros) have none.
	fileSpans(off, n int64) [][2]int64
	// containerFields returns the fields of the container's records at
	// their offsets in the file.
	containerFields() []describe.Field
}

// remapContainerFields returns fields, the disk's fields at disk offsets,
// placed at their bytes in the container file r is the disk of, after
// the container's own fields; for a raw disk it returns fields.
func remapContainerFields(r io.ReaderAt, fields []describe.Field) []describe.Field {
	c, ok := r.(containerLayout)
	if !ok {
		return fields
	}
	out := c.containerFields()
	for _, f := range fields {
		var spans [][2]int64
		if f.Offset >= 0 {
			spans = c.fileSpans(f.Offset, f.Size)
		} else {
			for _, s := range f.Spans {
				spans = append(spans, c.fileSpans(s[0], s[1]-s[0])...)
			}
		}
		f.Offset, f.Spans = -1, spans
		if len(spans) == 1 && spans[0][1]-spans[0][0] == f.Size {
			f.Offset, f.Spans = spans[0][0], nil
		}
		out = append(out, f)
	}
	return out
}

// blockSpans returns the file ranges of the n bytes at off of a disk of
// blockSize blocks in a file of fileSize bytes, where at gives the file
// offset of a block's byte (false for a block the file does not hold);
// adjacent ranges merge, and none reaches past the file.
func blockSpans(off, n, size, blockSize, fileSize int64, at func(block, within int64) (int64, bool)) [][2]int64 {
	var spans [][2]int64
	for end := min(off+n, size); off < end; {
		within := off % blockSize
		m := min(end-off, blockSize-within)
		if p, ok := at(off/blockSize, within); ok && p >= 0 && p < fileSize {
			q := min(p+m, fileSize)
			if k := len(spans); k > 0 && spans[k-1][1] == p {
				spans[k-1][1] = q
			} else {
				spans = append(spans, [2]int64{p, q})
			}
		}
		off += m
	}
	return spans
}

// vhdFieldList builds fields of one structure at base in the file.
type vhdFieldList struct {
	path string
	base int64
	out  []describe.Field
}

// add adds the field name of b, at off in the structure, with value.
func (l *vhdFieldList) add(name string, off int, b []byte, value string) {
	l.out = append(l.out, describe.Field{Path: l.path, Name: name, Offset: l.base + int64(off), Size: int64(len(b)), Value: value})
}

// num is a big- or little-endian number's value in decimal and hex.
func num(v uint64) string { return strconv.FormatUint(v, 10) + " (" + fmt.Sprintf("%#x", v) + ")" }

// fileSpans places the dynamic VHD's bytes: each block's data after its
// sector bitmap, at the BAT's sector.
func (v *vhdReader) fileSpans(off, n int64) [][2]int64 {
	return blockSpans(off, n, v.size, v.blockSize, v.fileSize, func(block, within int64) (int64, bool) {
		var e [4]byte
		if _, err := v.r.ReadAt(e[:], v.table+4*block); err != nil {
			return 0, false
		}
		s := binary.BigEndian.Uint32(e[:])
		return int64(s)*vhdSectorSize + v.bitmap + within, s != vhdUnusedEntry
	})
}

// containerFields names the dynamic VHD's footer copy, dynamic header,
// BAT and footer.
func (v *vhdReader) containerFields() []describe.Field {
	var out []describe.Field
	out = append(out, vhdFooterFields(v.r, "VHD footer copy", 0)...)
	var h vhdDynamicHeader
	if _, err := v.r.ReadAt(h[:], v.header); err == nil {
		be := binary.BigEndian
		l := vhdFieldList{path: "VHD dynamic disk header", base: v.header}
		l.add("Cookie", 0, h.cookie(), strconv.Quote(string(h.cookie())))
		l.add("Data Offset", 8, h.dataOffset(), num(be.Uint64(h.dataOffset())))
		l.add("Table Offset", 16, h.tableOffset(), num(be.Uint64(h.tableOffset())))
		l.add("Header Version", 24, h.headerVersion(), num(uint64(be.Uint32(h.headerVersion()))))
		l.add("Max Table Entries", 28, h.maxTableEntries(), num(uint64(be.Uint32(h.maxTableEntries()))))
		l.add("Block Size", 32, h.blockSize(), num(uint64(be.Uint32(h.blockSize()))))
		l.add("Checksum", 36, h.checksum(), num(uint64(be.Uint32(h.checksum()))))
		l.add("Parent Unique ID", 40, h.parentUniqueId(), fmt.Sprintf("%x", h.parentUniqueId()))
		l.add("Parent Time Stamp", 56, h.parentTimeStamp(), num(uint64(be.Uint32(h.parentTimeStamp()))))
		l.add("Parent Unicode Name", 64, h.parentUnicodeName(), describe.Sum(h.parentUnicodeName()))
		l.add("Parent Locator Entries", 576, h.parentLocatorEntries(), describe.Sum(h.parentLocatorEntries()))
		out = append(out, l.out...)
	}
	entries := (v.size + v.blockSize - 1) / v.blockSize
	if sum, err := describe.SumRange(v.r, v.table, 4*entries); err == nil {
		out = append(out, describe.Field{Path: "VHD BAT", Name: "Block Allocation Table", Offset: v.table, Size: 4 * entries, Value: sum})
	}
	return append(out, vhdFooterFields(v.r, "VHD footer", v.fileSize-vhdSectorSize)...)
}

// vhdFooterFields names the fields of the footer at off of r, or none
// when it is no footer.
func vhdFooterFields(r io.ReaderAt, path string, off int64) []describe.Field {
	f, err := readVHDFooter(r, off)
	if err != nil {
		return nil
	}
	be := binary.BigEndian
	l := vhdFieldList{path: path, base: off}
	l.add("Cookie", 0, f.cookie(), strconv.Quote(string(f.cookie())))
	l.add("Features", 8, f.features(), num(uint64(be.Uint32(f.features()))))
	l.add("File Format Version", 12, f.fileFormatVersion(), num(uint64(be.Uint32(f.fileFormatVersion()))))
	l.add("Data Offset", 16, f.dataOffset(), num(be.Uint64(f.dataOffset())))
	l.add("Time Stamp", 24, f.timeStamp(), num(uint64(be.Uint32(f.timeStamp()))))
	l.add("Creator Application", 28, f.creatorApplication(), strconv.Quote(string(f.creatorApplication())))
	l.add("Creator Version", 32, f.creatorVersion(), num(uint64(be.Uint32(f.creatorVersion()))))
	l.add("Creator Host OS", 36, f.creatorHostOS(), strconv.Quote(string(f.creatorHostOS())))
	l.add("Original Size", 40, f.originalSize(), num(be.Uint64(f.originalSize())))
	l.add("Current Size", 48, f.currentSize(), num(be.Uint64(f.currentSize())))
	g := f.diskGeometry()
	l.add("Disk Geometry", 56, g, fmt.Sprintf("%d/%d/%d", be.Uint16(g[0:2]), g[2], g[3]))
	l.add("Disk Type", 60, f.diskType(), num(uint64(be.Uint32(f.diskType()))))
	l.add("Checksum", 64, f.checksum(), num(uint64(be.Uint32(f.checksum()))))
	l.add("Unique Id", 68, f.uniqueId(), fmt.Sprintf("%x", f.uniqueId()))
	l.add("Saved State", 84, f.savedState(), num(uint64(f.savedState()[0])))
	return l.out
}

// fixedVHD is the disk of a fixed VHD: the file's first bytes, then the
// footer.
type fixedVHD struct {
	*io.SectionReader
	r    io.ReaderAt
	size int64 // the file's
}

// fileSpans places the fixed VHD's bytes where they are, at the file's
// start.
func (f fixedVHD) fileSpans(off, n int64) [][2]int64 {
	end := min(off+n, f.Size())
	if off >= end {
		return nil
	}
	return [][2]int64{{off, end}}
}

// containerFields names the fixed VHD's footer.
func (f fixedVHD) containerFields() []describe.Field {
	return vhdFooterFields(f.r, "VHD footer", f.size-vhdSectorSize)
}

// fileSpans places the VHDX's bytes: each payload block where the BAT
// puts it.
func (v *vhdxReader) fileSpans(off, n int64) [][2]int64 {
	return blockSpans(off, n, v.size, v.blockSize, v.fileSize, func(block, within int64) (int64, bool) {
		var e [8]byte
		if _, err := v.r.ReadAt(e[:], v.bat+8*(block+block/v.chunkRatio)); err != nil {
			return 0, false
		}
		entry := binary.LittleEndian.Uint64(e[:])
		return int64(entry>>20)*vhdxMiB + within, entry&7 == vhdxPayloadFullyPresent
	})
}

// containerFields names the VHDX's file type identifier, headers, region
// table, metadata items and BAT.
func (v *vhdxReader) containerFields() []describe.Field {
	var out []describe.Field
	le := binary.LittleEndian
	var id vhdxFileTypeIdentifier
	if _, err := v.r.ReadAt(id[:], 0); err == nil {
		l := vhdFieldList{path: "VHDX file type identifier"}
		l.add("Signature", 0, id.signature(), strconv.Quote(string(id.signature())))
		l.add("Creator", 8, id.creator(), describe.Sum(id.creator()))
		out = append(out, l.out...)
	}
	for i, off := range []int64{vhdxHeader1Offset, vhdxHeader2Offset} {
		var h vhdxHeader
		if _, err := v.r.ReadAt(h[:80], off); err != nil {
			continue
		}
		l := vhdFieldList{path: "VHDX header " + strconv.Itoa(i+1), base: off}
		l.add("Signature", 0, h.signature(), strconv.Quote(string(h.signature())))
		l.add("Checksum", 4, h.checksum(), num(uint64(le.Uint32(h.checksum()))))
		l.add("SequenceNumber", 8, h.sequenceNumber(), num(le.Uint64(h.sequenceNumber())))
		l.add("FileWriteGuid", 16, h.fileWriteGuid(), storedGUID(h.fileWriteGuid()).String())
		l.add("DataWriteGuid", 32, h.dataWriteGuid(), storedGUID(h.dataWriteGuid()).String())
		l.add("LogGuid", 48, h.logGuid(), storedGUID(h.logGuid()).String())
		l.add("LogVersion", 64, h.logVersion(), num(uint64(le.Uint16(h.logVersion()))))
		l.add("Version", 66, h.version(), num(uint64(le.Uint16(h.version()))))
		l.add("LogLength", 68, h.logLength(), num(uint64(le.Uint32(h.logLength()))))
		l.add("LogOffset", 72, h.logOffset(), num(le.Uint64(h.logOffset())))
		out = append(out, l.out...)
	}
	for i, off := range []int64{vhdxRegionTableOffset, vhdxRegionTable2Offset} {
		if sum, err := describe.SumRange(v.r, off, vhdx64K); err == nil {
			out = append(out, describe.Field{Path: "VHDX region table " + strconv.Itoa(i+1), Name: "region table", Offset: off, Size: vhdx64K, Value: sum})
		}
	}
	for _, m := range v.items {
		out = append(out, describe.Field{Path: "VHDX metadata", Name: m.name, Offset: m.off, Size: int64(len(m.value)), Value: m.show(m.value)})
	}
	entries := (v.size + v.blockSize - 1) / v.blockSize
	if entries > 0 {
		entries += (entries - 1) / v.chunkRatio
	}
	if sum, err := describe.SumRange(v.r, v.bat, 8*entries); err == nil {
		out = append(out, describe.Field{Path: "VHDX BAT", Name: "BAT", Offset: v.bat, Size: 8 * entries, Value: sum})
	}
	return out
}
