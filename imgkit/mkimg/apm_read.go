package mkimg

import (
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe/fieldlist"
	"io"
	"strconv"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// readAPM finds an Apple Partition Map on a disk of size bytes: a
// partition map entry at block 1, with blocks of the driver descriptor
// record's sbBlkSize, or of 512 bytes when the record is absent or its
// size finds no entry (as on CDs, whose record gives 2048-byte blocks and
// whose map uses 512-byte ones). Every entry after the map's own one with
// a pmSig is a partition; its Index is its block less one, the -p slot
// mkimg wrote it for.
func readAPM(r io.ReaderAt, size int64) (*Table, error) {
	var ddr apmDDR
	if size < 2*512 {
		return nil, fmt.Errorf("%w: apm: the disk is %d bytes, too small for a driver descriptor record and a map entry", ErrNoTable, size)
	}
	if _, err := r.ReadAt(ddr[:], 0); err != nil {
		return nil, fmt.Errorf("mkimg: apm: reading the driver descriptor record: %w", err)
	}
	sizes := []int64{512}
	if binary.BigEndian.Uint16(ddr.sbSig()) == apmDDRSig {
		if bs := int64(binary.BigEndian.Uint16(ddr.sbBlkSize())); bs > 512 && bs&(bs-1) == 0 {
			sizes = []int64{bs, 512}
		}
	}
	var first apmEntry
	bs := int64(0)
	for _, s := range sizes {
		if 2*s > size {
			continue
		}
		if _, err := r.ReadAt(first[:], s); err != nil {
			return nil, fmt.Errorf("mkimg: apm: reading the map entry at byte %#x: %w", s, err)
		}
		if binary.BigEndian.Uint16(first.pmSig()) == apmEntrySig {
			bs = s
			break
		}
	}
	if bs == 0 {
		return nil, fmt.Errorf("%w: apm: no partition map entry signature (pmSig \"PM\") at block 1", ErrNoTable)
	}
	count := int64(binary.BigEndian.Uint32(first.pmMapBlkCnt()))
	if count < 1 || count > apmMaxMapBlocks || count > size/bs-1 {
		return nil, noTableErr("apm", bs+fieldAt(first[:], first.pmMapBlkCnt()), "pmMapBlkCnt", "apm: pmMapBlkCnt %d at byte %#x: the map must fit the disk's %d blocks after block 0", count, bs+4, size/bs-1)
	}
	t := &Table{Scheme: "apm", SectorSize: int(bs)}
	t.Fields = apmDDRFields(&ddr)
	t.Fields = append(t.Fields, apmEntryFields(&first, 1, bs)...)
	var e apmEntry
	for b := int64(2); b <= count; b++ {
		if _, err := r.ReadAt(e[:], b*bs); err != nil {
			return nil, fmt.Errorf("mkimg: apm: reading the map entry at byte %#x: %w", b*bs, err)
		}
		if binary.BigEndian.Uint16(e.pmSig()) != apmEntrySig {
			continue // an unused slot
		}
		raw := fieldlist.UntilNUL(e.pmParType())
		t.Partitions = append(t.Partitions, Entry{
			Index:   int(b - 1),
			Type:    aliasOf(apmTypes, raw, raw),
			RawType: raw,
			Label:   fieldlist.UntilNUL(e.pmPartName()),
			Start:   int64(binary.BigEndian.Uint32(e.pmPyPartStart())) * bs,
			Size:    int64(binary.BigEndian.Uint32(e.pmPartBlkCnt())) * bs,
			Fields:  apmEntryFields(&e, b, bs),
		})
	}
	return t, nil
}

// apmDDRFields describes the driver descriptor record's fields.
func apmDDRFields(d *apmDDR) []describe.Field {
	return fieldlist.Of("driver descriptor record", 0, d[:]).
		BE("sbSig", d.sbSig()).
		BE("sbBlkSize", d.sbBlkSize()).
		BE("sbBlkCount", d.sbBlkCount()).
		BE("sbDevType", d.sbDevType()).
		BE("sbDevId", d.sbDevId()).
		BE("sbData", d.sbData()).
		BE("sbDrvrCount", d.sbDrvrCount()).
		List()
}

// apmEntryFields describes the fields of the map entry in block b, for
// blocks of bs bytes.
func apmEntryFields(e *apmEntry, b, bs int64) []describe.Field {
	return fieldlist.Of("partition map entry "+strconv.FormatInt(b, 10), b*bs, e[:]).
		BE("pmSig", e.pmSig()).
		BE("pmMapBlkCnt", e.pmMapBlkCnt()).
		BE("pmPyPartStart", e.pmPyPartStart()).
		BE("pmPartBlkCnt", e.pmPartBlkCnt()).
		Text("pmPartName", e.pmPartName()).
		Text("pmParType", e.pmParType()).
		BE("pmLgDataStart", e.pmLgDataStart()).
		BE("pmDataCnt", e.pmDataCnt()).
		BE("pmPartStatus", e.pmPartStatus()).
		BE("pmLgBootStart", e.pmLgBootStart()).
		BE("pmBootSize", e.pmBootSize()).
		BE("pmBootAddr", e.pmBootAddr()).
		BE("pmBootEntry", e.pmBootEntry()).
		BE("pmBootCksum", e.pmBootCksum()).
		Text("pmProcessor", e.pmProcessor()).
		List()
}
