package mkimg

import (
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe/fieldlist"
	"io"
	"strconv"
)

// readBSD finds a BSD disklabel in the second sector of a disk of 512- to
// 4096-byte sectors (the first whose d_magic, d_magic2 and d_secsize
// agree), checks d_npartitions (at most the 20 entries mkimg writes) and
// d_checksum, and lists its partitions; the raw partition 'c' goes in the
// table's Fields, not its Partitions. Offsets count from the raw
// partition's p_offset, as FreeBSD's g_part_bsd reads them: a label mkimg
// writes, or FreeBSD 10 and later, has 0 there and offsets from the
// label's own start; a label inside an MBR slice written by older tools
// has the slice's start there and offsets from the start of the whole
// disk (bsdOffsets).
func readBSD(r io.ReaderAt, size int64) (*Table, error) {
	for secsz := int64(512); secsz <= 4096; secsz *= 2 {
		if size < 2*secsz {
			break
		}
		sector := make([]byte, secsz)
		if _, err := r.ReadAt(sector, secsz); err != nil {
			return nil, fmt.Errorf("mkimg: bsd: reading sector 1: %w", err)
		}
		var d bsdLabel
		copy(d[:], sector)
		le32 := binary.LittleEndian.Uint32
		if le32(d.dMagic()) != bsdMagic || le32(d.dMagic2()) != bsdMagic || int64(le32(d.dSecsize())) != secsz {
			continue
		}
		return bsdTable(&d, secsz, size)
	}
	return nil, fmt.Errorf("%w: no BSD disklabel (d_magic %#x) in sector 1", ErrNoTable, bsdMagic)
}

// bsdTable checks the label d found at byte secsz of a disk of size bytes
// and returns its Table.
func bsdTable(d *bsdLabel, secsz, size int64) (*Table, error) {
	le32 := func(b []byte) uint64 { return uint64(binary.LittleEndian.Uint32(b)) }
	n := int(fieldlist.LEUint(d.dNpartitions()))
	if n > bsdPartsMax {
		return nil, formatErr("bsd", secsz+bsdNpartitionsOffset, "d_npartitions", "bsd: d_npartitions %d at byte %#x: more than the %d entries mkimg writes", n, secsz+bsdNpartitionsOffset, bsdPartsMax)
	}
	sum := bsdChecksum(d[:bsdHeaderSize+n*bsdPartitionSize])
	if got := uint16(fieldlist.LEUint(d.dChecksum())); got != sum {
		return nil, formatErr("bsd", secsz+bsdChecksumOffset, "d_checksum", "bsd: d_checksum %#04x at byte %#x, want %#04x", got, secsz+bsdChecksumOffset, sum)
	}
	t := &Table{Scheme: "bsd", SectorSize: int(secsz)}
	hex := func(b []byte) string { return fmt.Sprintf("%#x", fieldlist.LEUint(b)) }
	t.Fields = fieldlist.Of("disklabel", secsz, d[:]).
		Add("d_magic", d.dMagic(), hex(d.dMagic())).
		LE("d_type", d.dType()).
		LE("d_subtype", d.dSubtype()).
		LE("d_secsize", d.dSecsize()).
		LE("d_nsectors", d.dNsectors()).
		LE("d_ntracks", d.dNtracks()).
		LE("d_ncylinders", d.dNcylinders()).
		LE("d_secpercyl", d.dSecpercyl()).
		LE("d_secperunit", d.dSecperunit()).
		LE("d_sparespertrack", d.dSparespertrack()).
		LE("d_sparespercyl", d.dSparespercyl()).
		LE("d_acylinders", d.dAcylinders()).
		LE("d_rpm", d.dRpm()).
		LE("d_interleave", d.dInterleave()).
		LE("d_flags", d.dFlags()).
		Add("d_magic2", d.dMagic2(), hex(d.dMagic2())).
		Add("d_checksum", d.dChecksum(), hex(d.dChecksum())).
		LE("d_npartitions", d.dNpartitions()).
		LE("d_bbsize", d.dBbsize()).
		LE("d_sbsize", d.dSbsize()).
		List()
	base := bsdBase(d, n)
	for i := range n {
		e := d.partition(i)
		off, length, fstype := le32(e.pOffset()), le32(e.pSize()), e.pFstype()[0]
		if i != bsdPartRaw && length == 0 && fstype == 0 {
			continue
		}
		at := secsz + bsdHeaderSize + int64(i)*bsdPartitionSize
		if off < base {
			// FreeBSD leaves such an entry out: it lies before the
			// slice the label describes. An empty one is not worth a
			// word.
			if length == 0 {
				continue
			}
			t.Problems = append(t.Problems, fmt.Sprintf("d_partitions[%d] at byte %#x starts at sector %d, before the raw partition's p_offset %d; left out", i, at, off, base))
			continue
		}
		off -= base
		path := fmt.Sprintf("d_partitions[%d]", i)
		fields := fieldlist.Of(path, at, e[:]).
			LE("p_size", e.pSize()).LE("p_offset", e.pOffset()).LE("p_fsize", e.pFsize()).
			LE("p_fstype", e.pFstype()).LE("p_frag", e.pFrag()).LE("p_cpg", e.pCpg()).
			List()
		if i == bsdPartRaw {
			t.Fields = append(t.Fields, fields...)
			continue
		}
		slot := i
		if i > bsdPartRaw {
			slot--
		}
		raw := strconv.Itoa(int(fstype))
		t.Partitions = append(t.Partitions, Entry{
			Index:   slot + 1,
			Type:    aliasOf(bsdTypes, fstype, raw),
			RawType: raw,
			Start:   int64(off) * secsz,
			Size:    int64(length) * secsz,
			Fields:  fields,
		})
	}
	return t, nil
}

// bsdBase returns the sector the offsets of the label d (of n entries)
// count from: the p_offset of the raw partition 'c', 0 in a label
// whose offsets count from its own start (mkimg's, FreeBSD 10's and
// later) and the slice's start in one inside an MBR slice whose offsets
// count from the disk's start (older FreeBSD's, NetBSD's and OpenBSD's).
// A label too short to hold 'c' counts from its start.
func bsdBase(d *bsdLabel, n int) uint64 {
	if n <= bsdPartRaw {
		return 0
	}
	return uint64(binary.LittleEndian.Uint32(d.partition(bsdPartRaw).pOffset()))
}
