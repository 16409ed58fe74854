package vhdx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe/fieldlist"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/blocks"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/uuid"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/verr"
	"hash/crc32"
	"io"
)

// ErrFormat reports a VHDX the reader cannot open: a differencing disk, a
// log to replay, or a record that fails its checks.
var ErrFormat = errors.New("mkimg: not a VHDX the package reads")

// Match reports whether head begins a VHDX: the file type identifier's
// Signature "vhdxfile".
func (Format) Match(head []byte) bool {
	return len(head) >= 8 && string(head[:8]) == vhdxSignature
}

// Open opens the disk a VHDX of size bytes in r holds (vhdxOpen).
func (Format) Open(r io.ReaderAt, size int64) (vdisk.Reader, error) {
	v, _, err := vhdxOpen(r, size)
	if err != nil {
		return nil, err
	}
	return v.(*reader), nil
}

// vhdxErr returns the *imgfmt.FormatError, wrapping ErrFormat, of the
// VHDX structure at byte off (-1: none) whose field, as MS-VHDX names
// it, is field.
func vhdxErr(off int64, field, format string, args ...any) error {
	return verr.Container(ErrFormat, "vhdx", off, field, format, args...)
}

// vhdxOpen opens a VHDX of size bytes in r: the current header (the
// valid one of the two with the greater SequenceNumber, with no log to
// replay), the region table (the first valid copy), the metadata items
// the reader needs (block size, disk size, logical sector size) and the
// BAT, whose entries are read as the disk is. Everything is checked
// against the file's size.
func vhdxOpen(r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	if err := vhdxCurrentHeader(r); err != nil {
		return nil, 0, err
	}
	bat, meta, err := vhdxReadRegions(r, size)
	if err != nil {
		return nil, 0, err
	}
	v, err := vhdxReadMetadata(r, meta)
	if err != nil {
		return nil, 0, err
	}
	v.r, v.fileSize, v.bat = r, size, bat
	entries := uint64(v.size+v.blockSize-1) / uint64(v.blockSize)
	if entries > 0 {
		entries += (entries - 1) / uint64(v.chunkRatio)
	}
	if uint64(bat) > uint64(size) || (uint64(size)-uint64(bat))/8 < entries {
		at := bat
		if uint64(bat) > uint64(size) {
			at = -1
		}
		return nil, 0, vhdxErr(at, "", "a BAT of %d entries at byte %#x past the file's %d bytes", entries, bat, size)
	}
	return v, v.size, nil
}

// vhdxCurrentHeader checks the headers and that the current one needs no
// log replayed.
func vhdxCurrentHeader(r io.ReaderAt) error {
	var cur *vhdxHeader
	var curOff int64
	for _, off := range []int64{vhdxHeader1Offset, vhdxHeader2Offset} {
		var h vhdxHeader
		if _, err := r.ReadAt(h[:], off); err != nil {
			continue
		}
		want := binary.LittleEndian.Uint32(h.checksum())
		g := h
		clear(g.checksum())
		if string(h.signature()) != vhdxHeaderSignature || crc32.Checksum(g[:], castagnoli()) != want {
			continue
		}
		if cur == nil || binary.LittleEndian.Uint64(h.sequenceNumber()) > binary.LittleEndian.Uint64(cur.sequenceNumber()) {
			cur, curOff = &h, off
		}
	}
	switch {
	case cur == nil:
		return vhdxErr(-1, "", "neither header is valid")
	case binary.LittleEndian.Uint16(cur.version()) != 1:
		return vhdxErr(curOff+verr.At(cur[:], cur.version()), "Version", "header Version %d, want 1", binary.LittleEndian.Uint16(cur.version()))
	case !diskio.IsZero(cur.logGuid()):
		return vhdxErr(curOff+verr.At(cur[:], cur.logGuid()), "LogGuid", "the header's LogGuid is set: a log to replay")
	}
	return nil
}

// vhdxReadRegions returns the BAT's and the metadata region's offsets
// from the first valid region table.
func vhdxReadRegions(r io.ReaderAt, size int64) (bat, meta int64, err error) {
	for _, off := range []int64{vhdxRegionTableOffset, vhdxRegionTable2Offset} {
		var t vhdxRegionTable
		if _, err := r.ReadAt(t[:], off); err != nil {
			continue
		}
		want := binary.LittleEndian.Uint32(t.checksum())
		g := t
		clear(g.checksum())
		n := binary.LittleEndian.Uint32(t.entryCount())
		if string(t.signature()) != vhdxRegionSignature || crc32.Checksum(g[:], castagnoli()) != want || n > 2047 {
			continue
		}
		bat, meta = -1, -1
		for i := range int(n) {
			e := t.entry(i)
			eAt := off + 16 + 32*int64(i) // the entry's byte
			at := binary.LittleEndian.Uint64(e.fileOffset())
			if at >= uint64(size) {
				return 0, 0, vhdxErr(eAt+verr.At(e[:], e.fileOffset()), "FileOffset", "region %d at byte %#x past the file's %d bytes", i, at, size)
			}
			switch uuid.Stored(e.guid()) {
			case vhdxBATRegion:
				bat = int64(at)
			case vhdxMetadataRegion:
				meta = int64(at)
			default:
				if binary.LittleEndian.Uint32(e.required())&1 != 0 {
					return 0, 0, vhdxErr(eAt+verr.At(e[:], e.required()), "Required", "region %d is required and unknown", i)
				}
			}
		}
		if bat < 0 || meta < 0 {
			return 0, 0, vhdxErr(off, "", "the region table lacks the BAT or the metadata")
		}
		return bat, meta, nil
	}
	return 0, 0, vhdxErr(-1, "", "neither region table is valid")
}

// vhdxReadMetadata reads the metadata table at off and the items the
// reader needs, and returns the disk's reader with its geometry set.
func vhdxReadMetadata(r io.ReaderAt, off int64) (*reader, error) {
	var t vhdxMetadataTable
	if _, err := r.ReadAt(t[:32], off); err != nil {
		if verr.PastEnd(err) {
			return nil, vhdxErr(off, "", "the metadata table at byte %#x runs past the file's end", off)
		}
		return nil, fmt.Errorf("%w: reading the metadata table: %w", ErrFormat, err)
	}
	n := int(binary.LittleEndian.Uint16(t.entryCount()))
	if string(t.signature()) != vhdxMetadataSignature || n > 2047 {
		return nil, vhdxErr(off, "", "no metadata table at byte %#x", off)
	}
	if _, err := r.ReadAt(t[32:32+32*n], off+32); err != nil {
		if verr.PastEnd(err) {
			return nil, vhdxErr(off+verr.At(t[:], t.entryCount()), "EntryCount", "the metadata table's %d entries run past the file's end", n)
		}
		return nil, fmt.Errorf("%w: reading the metadata table's %d entries: %w", ErrFormat, n, err)
	}
	items := map[uuid.UUID][]byte{}
	itemAt := map[uuid.UUID]int64{}
	var known []vhdxItem
	for i := range n {
		e := t.entry(i)
		id := uuid.Stored(e.itemId())
		length := binary.LittleEndian.Uint32(e.length())
		name, ok := vhdxItemNames[id]
		if !ok {
			continue
		}
		if length > 16 {
			return nil, vhdxErr(off+32+32*int64(i)+verr.At(e[:], e.length()), "Length", "metadata item %d of %d bytes", i, length)
		}
		b := make([]byte, 16)
		at := off + int64(binary.LittleEndian.Uint32(e.offset()))
		if _, err := r.ReadAt(b[:length], at); err != nil {
			if verr.PastEnd(err) {
				return nil, vhdxErr(off+32+32*int64(i)+verr.At(e[:], e.offset()), "Offset", "metadata item %d at byte %#x runs past the file's end", i, at)
			}
			return nil, fmt.Errorf("%w: reading metadata item %d: %w", ErrFormat, i, err)
		}
		items[id], itemAt[id] = b, at
		known = append(known, vhdxItem{name: name, off: at, value: b[:length], guid: id == vhdxVirtualDiskID})
	}
	fp, ds, ss := items[vhdxFileParameters], items[vhdxVirtualDiskSize], items[vhdxLogicalSectorSize]
	if fp == nil || ds == nil || ss == nil {
		return nil, vhdxErr(off, "", "the metadata lacks the file parameters, disk size or logical sector size")
	}
	bsize := uint64(binary.LittleEndian.Uint32(fp[0:4]))
	if bsize < vhdxMiB || bsize > 256*vhdxMiB || bsize&(bsize-1) != 0 {
		return nil, vhdxErr(itemAt[vhdxFileParameters], "BlockSize", "BlockSize %d, want a power of two from 1 MiB to 256 MiB", bsize)
	}
	if binary.LittleEndian.Uint32(fp[4:8])&vhdxFileParametersHasParent != 0 {
		return nil, vhdxErr(itemAt[vhdxFileParameters]+4, "HasParent", "a differencing VHDX, which needs its parent")
	}
	secsz := uint64(binary.LittleEndian.Uint32(ss[0:4]))
	if secsz != 512 && secsz != 4096 {
		return nil, vhdxErr(itemAt[vhdxLogicalSectorSize], "LogicalSectorSize", "LogicalSectorSize %d, want 512 or 4096", secsz)
	}
	dsize := binary.LittleEndian.Uint64(ds)
	if dsize > vhdxMaxSize {
		return nil, vhdxErr(itemAt[vhdxVirtualDiskSize], "VirtualDiskSize", "VirtualDiskSize %d past 64 TiB", dsize)
	}
	return &reader{size: int64(dsize), blockSize: int64(bsize), chunkRatio: int64((8 << 20) * secsz / bsize), items: known}, nil
}

// reader reads the disk a VHDX holds, looking each payload block up
// in the BAT as it is read.
type reader struct {
	r              io.ReaderAt
	fileSize, size int64
	bat            int64 // the BAT's byte offset
	blockSize      int64
	chunkRatio     int64 // payload blocks per sector bitmap entry
	items          []vhdxItem
}

// vhdxItemNames are the names of the metadata items the reader reads,
// for Fields.
var vhdxItemNames = map[uuid.UUID]string{
	vhdxFileParameters:    "File Parameters",
	vhdxVirtualDiskSize:   "Virtual Disk Size",
	vhdxVirtualDiskID:     "Virtual Disk ID",
	vhdxLogicalSectorSize: "Logical Sector Size",
	vhdxPhysicalSectorSz:  "Physical Sector Size",
}

// vhdxItem is one metadata item as read: where its data is in the file.
type vhdxItem struct {
	name  string
	off   int64
	value []byte
	guid  bool // the value is a GUID, else little-endian numbers
}

// show returns the item's value in words: a GUID, a number, or (File
// Parameters) its two 32-bit numbers.
func (m vhdxItem) show(b []byte) string {
	le := binary.LittleEndian
	switch {
	case m.guid && len(b) == 16:
		return uuid.Stored(b).String()
	case len(b) == 8 && m.name == "File Parameters":
		return "BlockSize " + fieldlist.HexNum(uint64(le.Uint32(b))) + ", flags " + fieldlist.HexNum(uint64(le.Uint32(b[4:])))
	case len(b) == 8:
		return fieldlist.HexNum(le.Uint64(b))
	case len(b) == 4:
		return fieldlist.HexNum(uint64(le.Uint32(b)))
	}
	return fmt.Sprintf("%x", b)
}

// ReadAt reads the disk's bytes at off: a payload block's data where the
// BAT has it present, zeros where the block is not present, undefined,
// zero or unmapped.
func (v *reader) ReadAt(p []byte, off int64) (int, error) {
	return blocks.Read(p, off, v.size, v.blockSize, func(b []byte, block, within int64) error {
		var e [8]byte
		i := block + block/v.chunkRatio
		if _, err := v.r.ReadAt(e[:], v.bat+8*i); err != nil {
			if verr.PastEnd(err) {
				return vhdxErr(-1, "", "BAT entry %d at byte %#x runs past the file's end", i, v.bat+8*i)
			}
			return fmt.Errorf("%w: reading BAT entry %d: %w", ErrFormat, i, err)
		}
		entry := binary.LittleEndian.Uint64(e[:])
		switch state := entry & 7; state {
		case vhdxPayloadNotPresent, vhdxPayloadUndefined, vhdxPayloadZero, vhdxPayloadUnmapped:
			clear(b)
			return nil
		case vhdxPayloadFullyPresent:
		default:
			return vhdxErr(v.bat+8*i, "State", "BAT entry %d has state %d", i, state)
		}
		mb := entry >> 20
		if mb > uint64(v.fileSize)/vhdxMiB {
			return vhdxErr(v.bat+8*i, "FileOffsetMB", "block %d at MiB %d past the file's %d bytes", block, mb, v.fileSize)
		}
		at := int64(mb)*vhdxMiB + within
		if at+int64(len(b)) > v.fileSize {
			return vhdxErr(v.bat+8*i, "FileOffsetMB", "block %d at MiB %d ends past the file's %d bytes", block, mb, v.fileSize)
		}
		_, err := v.r.ReadAt(b, at)
		return err
	})
}
