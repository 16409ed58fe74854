package mkimg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe/fieldlist"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// gptMaxEntryArray bounds NumberOfPartitionEntries * SizeOfPartitionEntry
// before the entry array is read: 1 MiB, eight times the 4096 entries of
// 128 bytes FreeBSD allows, and far more than any partitioning tool writes.
const gptMaxEntryArray = 1 << 20

// gptSectorSizes are the logical sector sizes a GPT is looked for with.
var gptSectorSizes = []int64{512, 4096}

// errNoHeader reports a sector without the "EFI PART" signature: no GPT
// header there, as opposed to a broken one.
var errNoHeader = errors.New("no GPT header")

// readGPT finds a GPT on the disk in r: for each sector size, the primary
// header at LBA 1, or when it is missing or fails its checks, the backup
// header at the disk's last LBA (the table then records why in
// Problems). Both headers' HeaderCRC32 and their entry arrays'
// PartitionEntryArrayCRC32 are checked. A disk whose LBA 0 holds a
// protective MBR but no good GPT header is an ErrFormat error; a disk with
// neither is ErrNoTable.
func readGPT(r io.ReaderAt, size int64) (*Table, error) {
	var mbr mbrRecord
	protective := false
	if size >= int64(len(mbr)) {
		if _, err := r.ReadAt(mbr[:], 0); err != nil {
			return nil, fmt.Errorf("mkimg: reading LBA 0: %w", err)
		}
		protective = isProtective(&mbr)
	}
	var broken error
	for _, secsz := range gptSectorSizes {
		t, err := readGPTSectors(r, size, secsz)
		if err == nil {
			if protective {
				t.Fields = append(mbrFields(&mbr, "protective MBR", protectiveSlot(&mbr)), t.Fields...)
			}
			return t, nil
		}
		if !errors.Is(err, errNoHeader) && broken == nil {
			broken = err
		}
	}
	switch {
	case broken != nil:
		return nil, broken
	case protective:
		return nil, formatErr("gpt", 0x1be, "", "protective MBR at byte 0x1be but no GPT header at LBA 1 or the last LBA, with 512- or 4096-byte sectors")
	}
	return nil, fmt.Errorf("%w: no GPT header", ErrNoTable)
}

// isProtective reports whether m is an MBR with a GPT Protective (0xEE)
// partition record.
func isProtective(m *mbrRecord) bool {
	return protectiveSlot(m) >= 0
}

// protectiveSlot returns which of m's records is the 0xEE one, or -1.
func protectiveSlot(m *mbrRecord) int {
	if binary.LittleEndian.Uint16(m.signature()) != mbrSignature {
		return -1
	}
	for i := range mbrPartitions {
		if m.partitionRecord(i).osType()[0] == pmbrOSType {
			return i
		}
	}
	return -1
}

// gptRead is one GPT header with its entry array, as read and checked.
type gptRead struct {
	h     gptHeader
	lba   int64 // where the header is
	array []byte
}

// readGPTSectors reads the GPT of a disk of secsz-byte sectors: the
// primary header, else the backup. The error wraps errNoHeader when
// neither sector holds a header's signature.
func readGPTSectors(r io.ReaderAt, size, secsz int64) (*Table, error) {
	last := size/secsz - 1
	if last < 2 {
		return nil, errNoHeader
	}
	var problems []string
	primary, errP := readGPTHeader(r, size, secsz, 1)
	backupLBA := last
	if errP == nil {
		backupLBA = int64(binary.LittleEndian.Uint64(primary.h.alternateLBA()))
		if backupLBA != last {
			problems = append(problems, fmt.Sprintf("primary GPT header's AlternateLBA %d is not the disk's last LBA %d", backupLBA, last))
		}
		if backupLBA <= 1 || backupLBA > last {
			backupLBA = last
		}
	}
	backup, errB := readGPTHeader(r, size, secsz, backupLBA)
	switch {
	case errP == nil && errB != nil:
		problems = append(problems, "backup "+errB.Error())
	case errP != nil && errB == nil:
		problems = append(problems, "primary "+errP.Error()+"; read the backup header at LBA "+strconv.FormatInt(backupLBA, 10))
	case errP != nil:
		if errors.Is(errP, errNoHeader) && errors.Is(errB, errNoHeader) {
			return nil, errP
		}
		// The place is the primary header's, unless it has no signature.
		var fe *imgfmt.FormatError
		if !errors.As(errP, &fe) && !errors.As(errB, &fe) {
			fe = &imgfmt.FormatError{Off: -1}
		}
		return nil, formatErr("gpt", fe.Off, fe.Field, "primary %v; backup %v", errP, errB)
	}
	use := primary
	if errP != nil {
		use = backup
	}
	t, err := gptTable(use, size, secsz)
	if err != nil {
		return nil, err
	}
	t.Problems = problems
	if errP == nil {
		t.Fields = append(gptHeaderFields(primary, secsz, "GPT header"), t.Fields...)
	}
	if errB == nil {
		t.Fields = append(t.Fields, gptHeaderFields(backup, secsz, "backup GPT header")...)
	}
	return t, nil
}

// readGPTHeader reads and checks the GPT header at lba: its Signature,
// HeaderSize, HeaderCRC32 and MyLBA, the bounds of its entry array, and
// the array's PartitionEntryArrayCRC32. An error names the header's byte
// offset and the field that failed; it wraps errNoHeader when there is no
// signature.
func readGPTHeader(r io.ReaderAt, size, secsz, lba int64) (*gptRead, error) {
	off := lba * secsz
	var h gptHeader // only for the places of the fields bad names
	bad := func(field []byte, name, format string, args ...any) (*gptRead, error) {
		at := int64(-1)
		if field != nil {
			at = off + fieldAt(h[:], field)
		}
		// No sentinel: a header that fails is a problem of the table
		// when the other one is good, and readGPTSectors wraps both
		// failures in ErrFormat when neither is.
		return nil, containerErr(nil, "gpt", at, name, "GPT header at byte %#x: "+format, append([]any{off}, args...)...)
	}
	sector := make([]byte, secsz)
	if _, err := r.ReadAt(sector, off); err != nil {
		if errors.Is(err, imgfmt.ErrTruncated) {
			// A partition cut short by its image's end: no header is
			// there to read.
			return nil, fmt.Errorf("GPT header at byte %#x: %w (%w)", off, errNoHeader, err)
		}
		return bad(nil, "", "%v", err)
	}
	g := &gptRead{lba: lba}
	if [8]byte(sector[:8]) != gptSignature {
		return nil, fmt.Errorf("GPT header at byte %#x: %w", off, errNoHeader)
	}
	hsize := binary.LittleEndian.Uint32(sector[12:16])
	if hsize < gptHeaderSize || int64(hsize) > secsz {
		return bad(h.headerSize(), "HeaderSize", "HeaderSize %d is not from %d to the sector size %d", hsize, gptHeaderSize, secsz)
	}
	copy(g.h[:], sector)
	want := binary.LittleEndian.Uint32(g.h.headerCRC32())
	clear(sector[16:20])
	if got := crc32.ChecksumIEEE(sector[:hsize]); got != want {
		return bad(h.headerCRC32(), "HeaderCRC32", "HeaderCRC32 %#08x, but the header's CRC-32 is %#08x", want, got)
	}
	if my := binary.LittleEndian.Uint64(g.h.myLBA()); my != uint64(lba) {
		return bad(h.myLBA(), "MyLBA", "MyLBA %d, want %d", my, lba)
	}
	n := uint64(binary.LittleEndian.Uint32(g.h.numberOfPartitionEntries()))
	esize := uint64(binary.LittleEndian.Uint32(g.h.sizeOfPartitionEntry()))
	if esize < gptEntrySize || esize%8 != 0 {
		return bad(h.sizeOfPartitionEntry(), "SizeOfPartitionEntry", "SizeOfPartitionEntry %d is not a multiple of 8 of at least 128", esize)
	}
	if n*esize > gptMaxEntryArray {
		return bad(h.numberOfPartitionEntries(), "NumberOfPartitionEntries", "entry array of %d entries of %d bytes is larger than %d bytes", n, esize, gptMaxEntryArray)
	}
	alba := binary.LittleEndian.Uint64(g.h.partitionEntryLBA())
	if alba > uint64(size/secsz) || int64(alba)*secsz+int64(n*esize) > size {
		return bad(h.partitionEntryLBA(), "PartitionEntryLBA", "entry array at PartitionEntryLBA %d (%d bytes) runs past the disk's end", alba, n*esize)
	}
	g.array = make([]byte, n*esize)
	if _, err := r.ReadAt(g.array, int64(alba)*secsz); err != nil {
		return bad(h.partitionEntryLBA(), "PartitionEntryLBA", "reading the entry array at LBA %d: %v", alba, err)
	}
	want = binary.LittleEndian.Uint32(g.h.partitionEntryArrayCRC32())
	if got := crc32.ChecksumIEEE(g.array); got != want {
		return bad(h.partitionEntryArrayCRC32(), "PartitionEntryArrayCRC32", "PartitionEntryArrayCRC32 %#08x, but the entry array's CRC-32 is %#08x", want, got)
	}
	return g, nil
}

// gptTable makes the Table of a checked header and its entry array: one
// Entry per entry whose PartitionTypeGUID is not zero.
func gptTable(g *gptRead, size, secsz int64) (*Table, error) {
	t := &Table{Scheme: "gpt", SectorSize: int(secsz)}
	esize := int64(binary.LittleEndian.Uint32(g.h.sizeOfPartitionEntry()))
	alba := int64(binary.LittleEndian.Uint64(g.h.partitionEntryLBA()))
	for i := int64(0); (i+1)*esize <= int64(len(g.array)); i++ {
		e := (*gptEntry)(g.array[i*esize:][:gptEntrySize])
		if allZero(e.partitionTypeGUID()) {
			continue
		}
		off := alba*secsz + i*esize
		first := binary.LittleEndian.Uint64(e.startingLBA())
		end := binary.LittleEndian.Uint64(e.endingLBA())
		if first > end || end >= math.MaxInt64/uint64(secsz) {
			return nil, formatErr("gpt", off+fieldAt(e[:], e.endingLBA()), "EndingLBA", "GPT partition entry %d at byte %#x: StartingLBA %d to EndingLBA %d is not a range of sectors", i+1, off, first, end)
		}
		raw := decodeGUID(e.partitionTypeGUID())
		t.Partitions = append(t.Partitions, Entry{
			Index:   int(i + 1),
			Type:    gptAlias(raw),
			RawType: raw,
			Label:   gptName(e.partitionName()),
			Start:   int64(first) * secsz,
			Size:    int64(end-first+1) * secsz,
			GUID:    decodeGUID(e.uniquePartitionGUID()),
			Fields:  gptEntryFields(e, off, int(i+1)),
		})
	}
	return t, nil
}

// allZero reports whether every byte of b is zero.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// decodeGUID returns the GUID stored in b in UEFI's mixed-endian order as
// its 8-4-4-4-12 lower-case string.
func decodeGUID(b []byte) string { return storedGUID(b).String() }

// gptAlias returns mkimg's alias for the type GUID raw, the first in
// name order when several share it (ms-basic-data and ntfs), or raw.
func gptAlias(raw string) string {
	var names []string
	for n, g := range gptTypes {
		if g.String() == raw {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return raw
	}
	slices.Sort(names)
	return names[0]
}

// gptName decodes a PartitionName: UTF-16LE up to the first NUL.
func gptName(b []byte) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		c := binary.LittleEndian.Uint16(b[i:])
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u))
}

// gptHeaderFields describes a checked header field by field, with UEFI's
// names, under path, and its entry array as a whole by its sum.
func gptHeaderFields(g *gptRead, secsz int64, path string) []describe.Field {
	h := &g.h
	hex32 := func(b []byte) string { return fmt.Sprintf("%#08x", binary.LittleEndian.Uint32(b)) }
	fields := fieldlist.Of(path, g.lba*secsz, h[:]).
		Add("Signature", h.signature(), strconv.Quote(string(h.signature()))).
		Add("Revision", h.revision(), hex32(h.revision())).
		LE("HeaderSize", h.headerSize()).
		Add("HeaderCRC32", h.headerCRC32(), hex32(h.headerCRC32())).
		LE("MyLBA", h.myLBA()).
		LE("AlternateLBA", h.alternateLBA()).
		LE("FirstUsableLBA", h.firstUsableLBA()).
		LE("LastUsableLBA", h.lastUsableLBA()).
		Add("DiskGUID", h.diskGUID(), decodeGUID(h.diskGUID())).
		LE("PartitionEntryLBA", h.partitionEntryLBA()).
		LE("NumberOfPartitionEntries", h.numberOfPartitionEntries()).
		LE("SizeOfPartitionEntry", h.sizeOfPartitionEntry()).
		Add("PartitionEntryArrayCRC32", h.partitionEntryArrayCRC32(), hex32(h.partitionEntryArrayCRC32())).
		List()
	return append(fields, describe.Field{Path: path, Name: "GPT Partition Entry Array", Offset: int64(binary.LittleEndian.Uint64(h.partitionEntryLBA())) * secsz, Size: int64(len(g.array)), Value: describe.Sum(g.array)})
}

// gptEntryFields describes the partition entry e, slot index at byte off,
// with UEFI's names.
func gptEntryFields(e *gptEntry, off int64, index int) []describe.Field {
	return fieldlist.Of("GPT partition entry "+strconv.Itoa(index), off, e[:]).
		Add("PartitionTypeGUID", e.partitionTypeGUID(), decodeGUID(e.partitionTypeGUID())).
		Add("UniquePartitionGUID", e.uniquePartitionGUID(), decodeGUID(e.uniquePartitionGUID())).
		LE("StartingLBA", e.startingLBA()).
		LE("EndingLBA", e.endingLBA()).
		Add("Attributes", e[48:56], fmt.Sprintf("%#016x", fieldlist.LEUint(e[48:56]))).
		Add("PartitionName", e.partitionName(), strconv.Quote(gptName(e.partitionName()))).
		List()
}
