package mkimg

import (
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/fieldlist"
	"io"
	"math"
	"math/bits"
	"strconv"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

func init() {
	registerScheme(&scheme{
		name:          "vtoc8",
		description:   "SMI VTOC8 disk labels",
		maxParts:      vtocParts - 1,
		maxSectorSize: vtocSectorSize,
		hasType:       typeIn(vtocTypes),
		metadata:      vtocMetadata,
		write:         func(l *layout, w io.WriterAt, _ guids) error { return l.writeVTOC8(w) },
		read:          readVTOC8,
	})
}

// vtocTypes maps mkimg's type aliases to VTOC p_tag values, FreeBSD's
// tags (high byte ELFOSABI_FREEBSD), as FreeBSD's mkimg (vtoc8.c) accepts
// them for -s vtoc8. freebsd-zfs gets the nandfs tag 0x0905, not ZFS's
// 0x0904: mkimg's table has that slip (still so in current FreeBSD), and
// its bytes are what this package writes.
var vtocTypes = map[string]uint16{
	"freebsd-nandfs": 0x0905,
	"freebsd-swap":   0x0901,
	"freebsd-ufs":    0x0902,
	"freebsd-vinum":  0x0903,
	"freebsd-zfs":    0x0905,
}

// vtocTagAliases names the FreeBSD tags for the reader, 0x0904 included,
// which gpart(8) writes for freebsd-zfs.
var vtocTagAliases = map[uint16]string{
	0x0901: "freebsd-swap",
	0x0902: "freebsd-ufs",
	0x0903: "freebsd-vinum",
	0x0904: "freebsd-zfs",
	0x0905: "freebsd-nandfs",
}

// vtocMetadata keeps sector 0 (the label) before the partitions and
// aligns every partition and the disk's end to whole cylinders of the
// simulated geometry (-H heads of -T sectors), as the map counts starts
// in cylinders.
func vtocMetadata(l *layout, where int, blk uint64) uint64 {
	if where == metaStart {
		blk++
	}
	cyl := l.heads * l.track
	if r := blk % cyl; r != 0 {
		blk += cyl - r
	}
	return blk
}

// writeVTOC8 writes the label in sector 0: the geometry, the whole disk
// in slot 2, and slot i's partition in map entry i, or i+1 from slot 2
// on, as mkimg skips the whole-disk slot. pcyl and ncyl keep the low 16
// bits of the cylinder count, as mkimg stores them.
func (l *layout) writeVTOC8(w io.WriterAt) error {
	if l.sectors > math.MaxUint32 {
		return fmt.Errorf("%w: %d sectors do not fit a VTOC8's 32-bit nblk", ErrTooLarge, l.sectors)
	}
	cyl := l.heads * l.track
	ncyl := l.sectors / cyl
	var v vtocLabel
	copy(v.asciilabel(), fmt.Sprintf("FreeBSD%dM", ncyl*cyl*l.secsz/(1<<20)))
	binary.BigEndian.PutUint32(v.vtocVersion(), vtocVersion)
	binary.BigEndian.PutUint16(v.vtocNparts(), vtocParts)
	binary.BigEndian.PutUint32(v.vtocSanity(), vtocSanity)
	binary.BigEndian.PutUint16(v.rpm(), vtocRPM)
	binary.BigEndian.PutUint16(v.pcyl(), uint16(ncyl))
	binary.BigEndian.PutUint16(v.ncyl(), uint16(ncyl))
	binary.BigEndian.PutUint16(v.nhead(), uint16(l.heads))
	binary.BigEndian.PutUint16(v.nsect(), uint16(l.track))
	binary.BigEndian.PutUint16(v.magic(), vtocMagic)
	binary.BigEndian.PutUint32(v.nblk(vtocRawPart), uint32(ncyl*cyl))
	for _, p := range l.parts {
		n := p.index
		if n >= vtocRawPart {
			n++
		}
		binary.BigEndian.PutUint16(v.tag(n), vtocTypes[lower7(p.Type)])
		binary.BigEndian.PutUint32(v.cylno(n), uint32(p.start/cyl))
		binary.BigEndian.PutUint32(v.nblk(n), uint32(p.sectors))
	}
	binary.BigEndian.PutUint16(v.cksum(), vtocChecksum(&v))
	return l.writeAt(w, v[:], 0)
}

// vtocChecksum is the XOR of the label's 16-bit words before cksum, the
// value cksum holds so that all 256 words XOR to zero.
func vtocChecksum(v *vtocLabel) uint16 {
	var sum uint16
	for off := 0; off < len(v)-2; off += 2 {
		sum ^= binary.BigEndian.Uint16(v[off:])
	}
	return sum
}

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
		return nil, fmt.Errorf("%w: vtoc8: magic %#04x at byte 0x1fc, want %#04x", ErrNoTable, m, vtocMagic)
	}
	if sum := vtocChecksum(&v); sum != binary.BigEndian.Uint16(v.cksum()) {
		return nil, fmt.Errorf("%w: vtoc8: cksum %#04x at byte 0x1fe, want %#04x", ErrNoTable, binary.BigEndian.Uint16(v.cksum()), sum)
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
			return nil, fmt.Errorf("%w: vtoc8: partition %d starts at cylinder %d of %d sectors, past any disk", ErrNoTable, n, cylno, spc)
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
