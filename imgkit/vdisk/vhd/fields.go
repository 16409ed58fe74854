package vhd

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe/fieldlist"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/blocks"
)

// FileSpans places the dynamic VHD's bytes: each block's data after its
// sector bitmap, at the BAT's sector.
func (v *vhdReader) FileSpans(off, n int64) [][2]int64 {
	return blocks.Spans(off, n, v.size, v.blockSize, v.fileSize, func(block, within int64) (int64, bool) {
		var e [4]byte
		if _, err := v.r.ReadAt(e[:], v.table+4*block); err != nil {
			return 0, false
		}
		s := binary.BigEndian.Uint32(e[:])
		return int64(s)*vhdSectorSize + v.bitmap + within, s != vhdUnusedEntry
	})
}

// Fields names the dynamic VHD's footer copy, dynamic header,
// BAT and footer.
func (v *vhdReader) Fields() []describe.Field {
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

// FileSpans places the fixed VHD's bytes where they are, at the file's
// start.
func (f fixedVHD) FileSpans(off, n int64) [][2]int64 {
	end := min(off+n, f.Size())
	if off >= end {
		return nil
	}
	return [][2]int64{{off, end}}
}

// Fields names the fixed VHD's footer.
func (f fixedVHD) Fields() []describe.Field {
	return vhdFooterFields(f.r, "VHD footer", f.size-vhdSectorSize)
}

// Size returns the disk's size in bytes.
func (v *vhdReader) Size() int64 { return v.size }

// Close does nothing: the disk holds no file of its own.
func (v *vhdReader) Close() error { return nil }

// Close does nothing: the disk holds no file of its own.
func (f fixedVHD) Close() error { return nil }
