package mkimg

import (
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe/fieldlist"
	"io"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// errNoEBR is what readEBRChain returns when the sector size it tries
// finds no chain at all.
var errNoEBR = fmt.Errorf("%w: no EBR chain at LBA 0", ErrNoTable)

// readEBR reads the chain of EBRs that starts at LBA 0, as mkimg -s ebr
// writes it (the contents of an MBR's extended partition). An EBR here is
// a sector with the boot signature, records 2 and 3 zero, a logical
// partition in record 0 and, in record 1, nothing or a link of type 0x05
// or 0x0f. The chain may hold at most 4096 EBRs, each inside the disk and
// none twice. The sector size is not recorded on the disk; bySectorSize
// infers it from where the partitions end.
// A disk of a single EBR looks like an MBR of one partition; a caller
// that tries both schemes tries mbr first.
func readEBR(r io.ReaderAt, size int64) (*Table, error) {
	return bySectorSize(size, func(secsz int64) (*Table, int64, error) { return readEBRChain(r, size, secsz) })
}

// readEBRChain reads the chain with sectors of secsz bytes and returns its
// table and the byte where its last partition ends.
func readEBRChain(r io.ReaderAt, size, secsz int64) (*Table, int64, error) {
	sectors := size / secsz
	if sectors < 1 {
		return nil, 0, errNoEBR
	}
	t := &Table{Scheme: "ebr", SectorSize: int(secsz)}
	seen := map[int64]bool{}
	var end int64
	lba := int64(0)
	for k := 0; ; k++ {
		if k >= ebrMaxPartitions {
			return nil, 0, formatErr("ebr", -1, "", "ebr: the chain is longer than %d EBRs", ebrMaxPartitions)
		}
		seen[lba] = true
		var m mbrRecord
		if _, err := r.ReadAt(m[:], lba*secsz); err != nil {
			return nil, 0, fmt.Errorf("mkimg: ebr: reading the EBR at LBA %d: %w", lba, err)
		}
		p, link, fe := checkEBR(&m, lba, lba*secsz)
		if fe != nil {
			if k == 0 {
				// No EBR at LBA 0 is no EBR chain, not a broken one.
				return nil, 0, fmt.Errorf("%w: mkimg: %w", errNoEBR, fe)
			}
			fe.Err = ErrFormat
			return nil, 0, fe
		}
		pStart, pSize := lba+int64(fieldlist.LEUint(p.startingLBA())), int64(fieldlist.LEUint(p.sizeInLBA()))
		end = max(end, (pStart+pSize)*secsz)
		path := fmt.Sprintf("EBR %d at LBA %d", k+1, lba)
		t.Partitions = append(t.Partitions, Entry{
			Index:   k + 1,
			Type:    aliasOf(ebrTypes, p.osType()[0], fmt.Sprintf("0x%02x", p.osType()[0])),
			RawType: fmt.Sprintf("0x%02x", p.osType()[0]),
			Start:   pStart * secsz,
			Size:    pSize * secsz,
			Fields:  ebrRecordFields(path+" partition record 0", lba*secsz+mbrPartitionOffset, p),
		})
		t.Fields = append(t.Fields, ebrRecordFields(path+" partition record 1", lba*secsz+mbrPartitionOffset+16, link)...)
		t.Fields = append(t.Fields, fieldlist.Of(path, lba*secsz, m[:]).Add("Signature", m.signature(), fmt.Sprintf("%#04x", fieldlist.LEUint(m.signature()))).List()...)
		if link.osType()[0] == 0 {
			return t, end, nil
		}
		next := int64(fieldlist.LEUint(link.startingLBA()))
		if next >= sectors {
			// A cut image: the chain is listed as far as it goes.
			t.Problems = append(t.Problems, fmt.Sprintf("the EBR at LBA %d links to LBA %d, past the image's end (%d sectors); the chain is listed to there", lba, next, sectors))
			return t, end, nil
		}
		if seen[next] {
			return nil, 0, formatErr("ebr", lba*secsz+mbrPartitionOffset+16+fieldAt(link[:], link.startingLBA()), "StartingLBA", "ebr: the EBR at LBA %d links to LBA %d, already in the chain", lba, next)
		}
		lba = next
	}
}

// checkEBR checks that the sector m at lba, byte off of the disk, is an
// EBR and returns its partition and link records, or the error of what
// it lacks, without a sentinel: its caller says whether that is no chain
// or a broken one.
func checkEBR(m *mbrRecord, lba, off int64) (p, link *mbrPartitionRecord, fe *imgfmt.FormatError) {
	bad := func(field []byte, name, format string, args ...any) (*mbrPartitionRecord, *mbrPartitionRecord, *imgfmt.FormatError) {
		at := int64(-1)
		if field != nil {
			at = off + fieldAt(m[:], field)
		}
		return nil, nil, &imgfmt.FormatError{Format: "ebr", Off: at, Field: name, Msg: "ebr: " + fmt.Sprintf(format, args...)}
	}
	if fieldlist.LEUint(m.signature()) != mbrSignature {
		return bad(m.signature(), "Signature", "no boot signature in the EBR at LBA %d", lba)
	}
	for i := 2; i < mbrPartitions; i++ {
		if *m.partitionRecord(i) != (mbrPartitionRecord{}) {
			return bad(m.partitionRecord(i)[:], "", "partition record %d of the EBR at LBA %d is not empty", i, lba)
		}
	}
	p, link = m.partitionRecord(ebrPartRecord), m.partitionRecord(ebrLinkRecord)
	switch t := p.osType()[0]; {
	case t == 0:
		return bad(p.osType(), "OSType", "partition record 0 of the EBR at LBA %d is empty", lba)
	case fieldlist.LEUint(p.sizeInLBA()) == 0:
		return bad(p.sizeInLBA(), "SizeInLBA", "partition record 0 of the EBR at LBA %d is empty", lba)
	case t == ebrLinkType || t == ebrLinkTypeLBA:
		return bad(p.osType(), "OSType", "partition record 0 of the EBR at LBA %d is a link (OSType 0x%02x)", lba, t)
	case fieldlist.LEUint(p.startingLBA()) == 0:
		return bad(p.startingLBA(), "StartingLBA", "partition record 0 of the EBR at LBA %d starts on the EBR itself", lba)
	}
	switch t := link.osType()[0]; {
	case t == 0 && *link != (mbrPartitionRecord{}):
		return bad(link.osType(), "OSType", "partition record 1 of the EBR at LBA %d has no OSType but is not empty", lba)
	case t != 0 && t != ebrLinkType && t != ebrLinkTypeLBA:
		return bad(link.osType(), "OSType", "partition record 1 of the EBR at LBA %d has OSType 0x%02x, not a link", lba, t)
	}
	return p, link, nil
}

// ebrRecordFields lists the fields of the partition record r at byte off,
// named as UEFI 2.10 table 5.2 names them.
func ebrRecordFields(path string, off int64, r *mbrPartitionRecord) []describe.Field {
	byteHex := func(b []byte) string { return fmt.Sprintf("0x%02x", b[0]) }
	chsHex := func(b []byte) string { return fmt.Sprintf("%02x %02x %02x", b[0], b[1], b[2]) }
	return fieldlist.Of(path, off, r[:]).
		Add("BootIndicator", r.bootIndicator(), byteHex(r.bootIndicator())).
		Add("StartingCHS", r.startingCHS(), chsHex(r.startingCHS())).
		Add("OSType", r.osType(), byteHex(r.osType())).
		Add("EndingCHS", r.endingCHS(), chsHex(r.endingCHS())).
		LE("StartingLBA", r.startingLBA()).
		LE("SizeInLBA", r.sizeInLBA()).
		List()
}
