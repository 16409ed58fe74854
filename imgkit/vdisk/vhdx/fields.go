package vhdx

import (
	"encoding/binary"
	"strconv"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe/fieldlist"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/blocks"
)

// FileSpans places the VHDX's bytes: each payload block where the BAT
// puts it.
func (v *reader) FileSpans(off, n int64) [][2]int64 {
	return blocks.Spans(off, n, v.size, v.blockSize, v.fileSize, func(block, within int64) (int64, bool) {
		var e [8]byte
		if _, err := v.r.ReadAt(e[:], v.bat+8*(block+block/v.chunkRatio)); err != nil {
			return 0, false
		}
		entry := binary.LittleEndian.Uint64(e[:])
		return int64(entry>>20)*vhdxMiB + within, entry&7 == vhdxPayloadFullyPresent
	})
}

// Fields names the VHDX's file type identifier, headers, region
// table, metadata items and BAT.
func (v *reader) Fields() []describe.Field {
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

// Size returns the disk's size in bytes.
func (v *reader) Size() int64 { return v.size }

// Close does nothing: the disk holds no file of its own.
func (v *reader) Close() error { return nil }
