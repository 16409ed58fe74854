package mkimg

import (
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/fieldlist"
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
		out = append(out, fieldlist.Of("VHD dynamic disk header", v.header, h[:]).
			Quoted("Cookie", h.cookie()).BE("Data Offset", h.dataOffset()).BE("Table Offset", h.tableOffset()).
			BE("Header Version", h.headerVersion()).BE("Max Table Entries", h.maxTableEntries()).
			BE("Block Size", h.blockSize()).BE("Checksum", h.checksum()).
			Hex("Parent Unique ID", h.parentUniqueId()).BE("Parent Time Stamp", h.parentTimeStamp()).
			Sum("Parent Unicode Name", h.parentUnicodeName()).Sum("Parent Locator Entries", h.parentLocatorEntries()).List()...)
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
	g := f.diskGeometry()
	return fieldlist.Of(path, off, f[:]).
		Quoted("Cookie", f.cookie()).BE("Features", f.features()).BE("File Format Version", f.fileFormatVersion()).
		BE("Data Offset", f.dataOffset()).BE("Time Stamp", f.timeStamp()).
		Quoted("Creator Application", f.creatorApplication()).BE("Creator Version", f.creatorVersion()).
		Quoted("Creator Host OS", f.creatorHostOS()).BE("Original Size", f.originalSize()).BE("Current Size", f.currentSize()).
		Add("Disk Geometry", g, fmt.Sprintf("%d/%d/%d", binary.BigEndian.Uint16(g[0:2]), g[2], g[3])).
		BE("Disk Type", f.diskType()).BE("Checksum", f.checksum()).Hex("Unique Id", f.uniqueId()).
		BE("Saved State", f.savedState()).List()
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
	var id vhdxFileTypeIdentifier
	if _, err := v.r.ReadAt(id[:], 0); err == nil {
		out = append(out, fieldlist.Of("VHDX file type identifier", 0, id[:]).
			Quoted("Signature", id.signature()).Sum("Creator", id.creator()).List()...)
	}
	for i, off := range []int64{vhdxHeader1Offset, vhdxHeader2Offset} {
		var h vhdxHeader
		if _, err := v.r.ReadAt(h[:80], off); err != nil {
			continue
		}
		out = append(out, fieldlist.Of("VHDX header "+strconv.Itoa(i+1), off, h[:]).
			Quoted("Signature", h.signature()).LEHex("Checksum", h.checksum()).LEHex("SequenceNumber", h.sequenceNumber()).
			GUID("FileWriteGuid", h.fileWriteGuid()).GUID("DataWriteGuid", h.dataWriteGuid()).GUID("LogGuid", h.logGuid()).
			LEHex("LogVersion", h.logVersion()).LEHex("Version", h.version()).
			LEHex("LogLength", h.logLength()).LEHex("LogOffset", h.logOffset()).List()...)
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
