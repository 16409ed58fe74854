package vhdx

import (
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/uuid"
	"hash/crc32"
	"sync"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// castagnoli is the CRC-32C table VHDX's checksums use, made on first
// use: making it (hash/crc32 fills its SSE4.2 tables too) cost every run
// of the binary at its start.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Resize rounds the disk up to whole 16 MiB payload blocks, as mkimg's
// vhdx_resize does, and refuses a disk past VHDX's 64 TiB.
func (Format) Resize(p *vdisk.Params, sectors uint64) (uint64, error) {
	if sectors > vhdxMaxSize/p.SectorSize {
		return 0, vhdxTooLarge(sectors * p.SectorSize)
	}
	size := (sectors*p.SectorSize + vhdxBlockSize - 1) &^ (vhdxBlockSize - 1)
	if size > vhdxMaxSize {
		return 0, vhdxTooLarge(size)
	}
	return size / p.SectorSize, nil
}

// vhdxTooLarge is the error for a disk of size bytes past VHDX's limit.
func vhdxTooLarge(size uint64) error {
	return fmt.Errorf("%w: -f vhdx: a disk of %d bytes is past VHDX's 64 TiB limit (%d bytes)", vdisk.ErrTooLarge, size, uint64(vhdxMaxSize))
}

// vhdxChunkRatio is the number of payload blocks between the BAT's
// sector bitmap entries for a logical sector size: 2^23 sectors' worth of
// blocks.
func vhdxChunkRatio(secsz uint64) uint64 { return (8 << 20) * secsz / vhdxBlockSize }

// Write lays a VHDX out as mkimg's vhdx_write does: the file type
// identifier, the two headers (sequence numbers 0 and 1), the region
// table twice, the reserved rest of the first MiB and an empty log, the
// metadata (block size, disk size, Virtual Disk ID, logical and physical
// sector sizes), the BAT listing every payload block as present (with a
// zero sector bitmap entry after each chunk of blocks but the last), and
// the raw disk itself as the payload.
func (Format) Write(p *vdisk.Params, disk *vdisk.Disk) (int64, func(*bcache.Image) error, error) {
	size := uint64(disk.Size())
	blocks := (size + vhdxBlockSize - 1) / vhdxBlockSize
	bat := vhdxBAT(p, blocks)
	payload := int64(vhdxBATOffset + len(bat))
	meta := vhdxMetadata(p, size)
	write := func(im *bcache.Image) error {
		var id vhdxFileTypeIdentifier
		copy(id.signature(), vhdxSignature)
		h1, h2 := vhdxHeaders()
		rt := vhdxRegions(len(bat))
		for _, w := range []struct {
			b   []byte
			off int64
		}{
			{id[:], 0}, {h1[:], vhdxHeader1Offset}, {h2[:], vhdxHeader2Offset},
			{rt[:], vhdxRegionTableOffset}, {rt[:], vhdxRegionTable2Offset},
			{meta, vhdxMetadataOffset}, {bat, vhdxBATOffset},
		} {
			if _, err := im.WriteAt(w.b, w.off); err != nil {
				return err
			}
		}
		return disk.CopyTo(im, payload, 0, disk.Size())
	}
	return payload + disk.Size(), write, nil
}

// vhdxHeaders returns mkimg's two headers: version 1, a 1 MiB log at
// 1 MiB, zero GUIDs, sequence numbers 0 and 1 (the second current).
func vhdxHeaders() (*vhdxHeader, *vhdxHeader) {
	var hs [2]vhdxHeader
	le := binary.LittleEndian
	for i := range hs {
		h := &hs[i]
		copy(h.signature(), vhdxHeaderSignature)
		le.PutUint64(h.sequenceNumber(), uint64(i))
		le.PutUint16(h.version(), 1)
		le.PutUint32(h.logLength(), vhdxMiB)
		le.PutUint64(h.logOffset(), vhdxLogOffset)
		le.PutUint32(h.checksum(), crc32.Checksum(h[:], castagnoli()))
	}
	return &hs[0], &hs[1]
}

// vhdxRegions returns mkimg's region table for a BAT of batLen bytes:
// the metadata region at 2 MiB and the BAT region at 3 MiB, each listed
// 1 MiB long and not required. mkimg lists the BAT as 1 MiB whatever its
// size, which leaves the BAT of a disk past about 2040 GiB outside its
// region (qemu-img refuses the file); the package lists such a BAT's
// whole length, and writes mkimg's bytes for every smaller disk.
func vhdxRegions(batLen int) *vhdxRegionTable {
	var t vhdxRegionTable
	le := binary.LittleEndian
	copy(t.signature(), vhdxRegionSignature)
	le.PutUint32(t.entryCount(), 2)
	for i, r := range []struct {
		g   uuid.UUID
		off uint64
		n   int
	}{{vhdxMetadataRegion, vhdxMetadataOffset, vhdxMiB}, {vhdxBATRegion, vhdxBATOffset, max(vhdxMiB, batLen)}} {
		e := t.entry(i)
		r.g.Encode(e.guid())
		le.PutUint64(e.fileOffset(), r.off)
		le.PutUint32(e.length(), uint32(r.n))
	}
	le.PutUint32(t.checksum(), crc32.Checksum(t[:], castagnoli()))
	return &t
}

// vhdxMetadata returns mkimg's 1 MiB metadata region for a disk of size
// bytes: the table's five entries and their data from 64 KiB on.
func vhdxMetadata(p *vdisk.Params, size uint64) []byte {
	region := make([]byte, vhdxMiB)
	t := (*vhdxMetadataTable)(region[:vhdx64K])
	le := binary.LittleEndian
	copy(t.signature(), vhdxMetadataSignature)
	le.PutUint16(t.entryCount(), 5)
	data := uint32(vhdx64K)
	var id [16]byte
	uuid.UUID(p.ID("vhdx")).Encode(id[:])
	for i, item := range []struct {
		g     uuid.UUID
		flags uint32
		value []byte
	}{
		{vhdxFileParameters, vhdxMetaIsRequired, le.AppendUint32(le.AppendUint32(nil, vhdxBlockSize), 0)},
		{vhdxVirtualDiskSize, vhdxMetaIsRequired | vhdxMetaIsVirtualDisk, le.AppendUint64(nil, size)},
		{vhdxVirtualDiskID, vhdxMetaIsRequired | vhdxMetaIsVirtualDisk, id[:]},
		{vhdxLogicalSectorSize, vhdxMetaIsRequired | vhdxMetaIsVirtualDisk, le.AppendUint32(nil, uint32(p.SectorSize))},
		{vhdxPhysicalSectorSz, vhdxMetaIsRequired | vhdxMetaIsVirtualDisk, le.AppendUint32(nil, uint32(p.BlockSize))},
	} {
		e := t.entry(i)
		item.g.Encode(e.itemId())
		le.PutUint32(e.offset(), data)
		le.PutUint32(e.length(), uint32(len(item.value)))
		le.PutUint32(e.flags(), item.flags)
		data += uint32(copy(region[data:], item.value))
	}
	return region
}

// vhdxBAT returns mkimg's BAT for blocks payload blocks, whole MiBs: each
// block fully present at its place after the BAT, in order, and a zero
// sector bitmap entry after every chunk of blocks but the last. A disk of
// no blocks has no BAT.
func vhdxBAT(p *vdisk.Params, blocks uint64) []byte {
	if blocks == 0 {
		return nil
	}
	ratio := vhdxChunkRatio(p.SectorSize)
	entries := blocks + (blocks-1)/ratio
	bat := make([]byte, (entries*8+vhdxMiB-1)&^(vhdxMiB-1))
	mb := uint64(vhdxBATOffset+len(bat)) / vhdxMiB
	le := binary.LittleEndian
	at := 0
	for i := range blocks {
		le.PutUint64(bat[at:], mb<<20|vhdxPayloadFullyPresent)
		at += 8
		mb += vhdxBlockSize / vhdxMiB
		if (i+1)%ratio == 0 && i != blocks-1 {
			at += 8 // the chunk's sector bitmap entry, not present
		}
	}
	return bat
}
