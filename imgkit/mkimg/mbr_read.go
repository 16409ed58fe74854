package mkimg

import (
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe/fieldlist"
	"io"
	"strconv"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// readMBR reads the MBR in LBA 0: its four partition records, of which
// those with a non-zero OSType and SizeInLBA are the partitions. A sector
// without the 0xAA55 signature, with a BootIndicator other than 0x00 and
// 0x80, with a GPT Protective record (a GPT's, which readGPT reads), or
// with no partition at all is ErrNoTable. An MBR does not record its
// sector size, which mkimg -S sets: bySectorSize infers it from where the
// partitions end, 512 bytes when they end before the disk's end under
// each size. A partition past the disk's end under every size, as on an
// image cut short, is read with 512-byte sectors (ReadTable's Problems
// say what is missing).
func readMBR(r io.ReaderAt, size int64) (*Table, error) {
	var m mbrRecord
	if size < int64(len(m)) {
		return nil, fmt.Errorf("%w: disk smaller than one sector", ErrNoTable)
	}
	if _, err := r.ReadAt(m[:], 0); err != nil {
		return nil, fmt.Errorf("mkimg: reading LBA 0: %w", err)
	}
	if binary.LittleEndian.Uint16(m.signature()) != mbrSignature {
		return nil, fmt.Errorf("%w: no MBR signature 0xaa55 at byte 0x1fe", ErrNoTable)
	}
	for i := range mbrPartitions {
		p := m.partitionRecord(i)
		if b := p.bootIndicator()[0]; b != 0 && b != 0x80 {
			return nil, fmt.Errorf("%w: MBR partition record %d at byte %#x: BootIndicator %#02x is neither 0x00 nor 0x80", ErrNoTable, i+1, mbrPartitionOffset+16*i, b)
		}
		if p.osType()[0] == pmbrOSType {
			return nil, fmt.Errorf("%w: a GPT protective MBR", ErrNoTable)
		}
	}
	return bySectorSize(size, func(secsz int64) (*Table, int64, error) { return mbrTable(&m, size, secsz) })
}

// mbrTable lists the partitions of the MBR m on a disk of size bytes with
// sectors of secsz bytes, and returns the byte where the last one ends.
func mbrTable(m *mbrRecord, size, secsz int64) (*Table, int64, error) {
	if size < secsz {
		return nil, 0, formatErr("mbr", -1, "", "disk smaller than one sector of %d bytes", secsz)
	}
	t := &Table{Scheme: "mbr", SectorSize: int(secsz), Fields: mbrFields(m, "MBR", -1)}
	var end int64
	for i := range mbrPartitions {
		p := m.partitionRecord(i)
		off := int64(mbrPartitionOffset + 16*i)
		typ := p.osType()[0]
		start := int64(binary.LittleEndian.Uint32(p.startingLBA())) * secsz
		n := int64(binary.LittleEndian.Uint32(p.sizeInLBA())) * secsz
		if typ == 0 || n == 0 {
			continue
		}
		end = max(end, start+n)
		raw := fmt.Sprintf("%#02x", typ)
		t.Partitions = append(t.Partitions, Entry{
			Index:   i + 1,
			Type:    aliasOf(mbrTypes, typ, raw),
			RawType: raw,
			Start:   start,
			Size:    n,
			Fields:  mbrRecordFields(p, off, "MBR partition record "+strconv.Itoa(i+1)),
		})
	}
	if len(t.Partitions) == 0 {
		return nil, 0, fmt.Errorf("%w: an MBR without partitions", ErrNoTable)
	}
	return t, end, nil
}

// mbrFields describes the fields of LBA 0 outside the partition records,
// with UEFI's names (table 5.1), under path, and the record of slot
// (0-based; -1 for none) with table 5.2's.
func mbrFields(m *mbrRecord, path string, slot int) []describe.Field {
	out := fieldlist.Of(path, 0, m[:]).
		Add("BootCode", m[0:440], describe.Sum(m[0:440])).
		Add("UniqueMBRDiskSignature", m[440:444], fmt.Sprintf("%#08x", fieldlist.LEUint(m[440:444]))).
		Add("Unknown", m[444:446], fmt.Sprintf("%#04x", fieldlist.LEUint(m[444:446]))).
		Add("Signature", m.signature(), fmt.Sprintf("%#04x", fieldlist.LEUint(m.signature()))).
		List()
	if slot >= 0 {
		out = append(out, mbrRecordFields(m.partitionRecord(slot), int64(mbrPartitionOffset+16*slot), path+" partition record "+strconv.Itoa(slot+1))...)
	}
	return out
}

// mbrRecordFields describes one partition record at byte off, with
// UEFI's names.
func mbrRecordFields(p *mbrPartitionRecord, off int64, path string) []describe.Field {
	return fieldlist.Of(path, off, p[:]).
		Add("BootIndicator", p.bootIndicator(), fmt.Sprintf("%#02x", p.bootIndicator()[0])).
		Add("StartingCHS", p.startingCHS(), chsString(p.startingCHS())).
		Add("OSType", p.osType(), fmt.Sprintf("%#02x", p.osType()[0])).
		Add("EndingCHS", p.endingCHS(), chsString(p.endingCHS())).
		LE("StartingLBA", p.startingLBA()).
		LE("SizeInLBA", p.sizeInLBA()).
		List()
}

// chsString shows a CHS field as cylinder/head/sector and its bytes.
func chsString(b []byte) string {
	c := int(b[2]) | int(b[1]&0xc0)<<2
	return fmt.Sprintf("%d/%d/%d (%02x%02x%02x)", c, b[0], b[1]&0x3f, b[0], b[1], b[2])
}
