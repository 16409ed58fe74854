package mkimg

import (
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe/fieldlist"
	"io"
	"math"
	"math/bits"
	"strconv"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// readVTOC8 finds a Sun VTOC8 disk label in sector 0 of a disk of size
// bytes: magic 0xDABE and a cksum that XORs the label to zero. Slot 2,
// the whole disk, goes in the Table's Fields; every other slot with a
// tag, start or length is a partition, numbered as mkimg numbers -p slots
// (map entry 0 and 1 are slots 1 and 2, entry 3 to 7 slots 3 to 7).
func readVTOC8(r io.ReaderAt, size int64) (*Table, error) {
	var v vtocLabel
	if size < int64(len(v)) {
		return nil, fmt.Errorf("%w: vtoc8: the disk is %d bytes, too small for a disk label", ErrNoTable, size)
	}
	if _, err := r.ReadAt(v[:], 0); err != nil {
		return nil, fmt.Errorf("mkimg: vtoc8: reading the disk label: %w", err)
	}
	if m := binary.BigEndian.Uint16(v.magic()); m != vtocMagic {
		return nil, noTableErr("vtoc8", fieldAt(v[:], v.magic()), "magic", "vtoc8: magic %#04x at byte 0x1fc, want %#04x", m, vtocMagic)
	}
	if sum := vtocChecksum(&v); sum != binary.BigEndian.Uint16(v.cksum()) {
		return nil, noTableErr("vtoc8", fieldAt(v[:], v.cksum()), "cksum", "vtoc8: cksum %#04x at byte 0x1fe, want %#04x", binary.BigEndian.Uint16(v.cksum()), sum)
	}
	spc := uint64(binary.BigEndian.Uint16(v.nhead())) * uint64(binary.BigEndian.Uint16(v.nsect()))
	t := &Table{Scheme: "vtoc8", SectorSize: vtocSectorSize, Fields: vtocLabelFields(&v)}
	t.Fields = append(t.Fields, vtocSlotFields(&v, vtocRawPart)...)
	for n := range vtocParts {
		if n == vtocRawPart {
			continue
		}
		tag := binary.BigEndian.Uint16(v.tag(n))
		cylno := uint64(binary.BigEndian.Uint32(v.cylno(n)))
		nblk := int64(binary.BigEndian.Uint32(v.nblk(n)))
		if tag == 0 && cylno == 0 && nblk == 0 {
			continue // an unused slot
		}
		hi, start := bits.Mul64(cylno, spc)
		if hi != 0 || start > math.MaxInt64/vtocSectorSize {
			return nil, noTableErr("vtoc8", fieldAt(v[:], v.cylno(n)), "cylno", "vtoc8: partition %d starts at cylinder %d of %d sectors, past any disk", n, cylno, spc)
		}
		raw := fmt.Sprintf("%#04x", tag)
		alias, ok := vtocTagAliases[tag]
		if !ok {
			alias = raw
		}
		index := n + 1
		if n > vtocRawPart {
			index = n
		}
		t.Partitions = append(t.Partitions, Entry{
			Index:   index,
			Type:    alias,
			RawType: raw,
			Start:   int64(start) * vtocSectorSize,
			Size:    nblk * vtocSectorSize,
			Fields:  vtocSlotFields(&v, n),
		})
	}
	return t, nil
}

// vtocLabelFields describes the label's fields other than the per-slot
// ones.
func vtocLabelFields(v *vtocLabel) []describe.Field {
	hex := func(b []byte) string { return fmt.Sprintf("%x", b) }
	return fieldlist.Of("disk label", 0, v[:]).
		Text("asciilabel", v.asciilabel()).
		BE("vtoc_version", v.vtocVersion()).
		Text("vtoc_volume", v.vtocVolume()).
		BE("vtoc_nparts", v.vtocNparts()).
		Add("vtoc_bootinfo", v.vtocBootinfo(), hex(v.vtocBootinfo())).
		BE("vtoc_sanity", v.vtocSanity()).
		Add("vtoc_timestamp", v.vtocTimestamp(), hex(v.vtocTimestamp())).
		BE("write_reinstruct", v.writeReinstruct()).
		BE("read_reinstruct", v.readReinstruct()).
		BE("rpm", v.rpm()).
		BE("pcyl", v.pcyl()).
		BE("apc", v.apc()).
		BE("intrlv", v.intrlv()).
		BE("ncyl", v.ncyl()).
		BE("acyl", v.acyl()).
		BE("nhead", v.nhead()).
		BE("nsect", v.nsect()).
		BE("magic", v.magic()).
		BE("cksum", v.cksum()).
		List()
}

// vtocSlotFields describes slot n's tag and flag and its map entry.
func vtocSlotFields(v *vtocLabel, n int) []describe.Field {
	return fieldlist.Of("partition "+strconv.Itoa(n), 0, v[:]).
		BE("p_tag", v.tag(n)).
		BE("p_flag", v.flag(n)).
		BE("cylno", v.cylno(n)).
		BE("nblk", v.nblk(n)).
		List()
}
