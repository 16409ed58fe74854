package mkimg

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
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
