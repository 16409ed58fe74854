package mkimg

import (
	"encoding/binary"
	"io"
)

func init() {
	registerScheme(&scheme{
		name:          "bsd",
		description:   "BSD disk label",
		maxParts:      bsdPartsMax - 1,
		bootcode:      bsdBootblockSize,
		maxSectorSize: bsdMaxSectorSize,
		hasType:       typeIn(bsdTypes),
		metadata:      bsdMetadata,
		write:         func(l *layout, w io.WriterAt, _ guids) error { return l.writeBSD(w) },
		read:          readBSD,
	})
}

// bsdTypes maps mkimg's type aliases to p_fstype values (FS_NANDFS,
// FS_SWAP, FS_BSDFFS, FS_VINUM, FS_ZFS), as FreeBSD's mkimg accepts them
// for -s bsd.
var bsdTypes = map[string]byte{
	"freebsd-nandfs": 30,
	"freebsd-swap":   1,
	"freebsd-ufs":    7,
	"freebsd-vinum":  14,
	"freebsd-zfs":    27,
}

// bsdMetadata keeps the 8 KiB boot area, which holds the label, before the
// partitions, aligns each partition to the physical block (-P) and ends
// the disk on a whole cylinder (-H times -T sectors), after the boot area
// even where partitions placed by absolute offsets end before it (mkimg
// then cuts the boot area short, or fails).
func bsdMetadata(l *layout, where int, blk uint64) uint64 {
	switch where {
	case metaStart:
		return blk + bsdBootblockSize/l.secsz
	case metaEnd:
		return l.roundCylinder(max(blk, bsdBootblockSize/l.secsz))
	}
	return l.roundBlock(blk)
}

// roundCylinder rounds n sectors up to whole cylinders.
func (l *layout) roundCylinder(n uint64) uint64 {
	cyl := l.heads * l.track
	if r := n % cyl; r != 0 {
		return n + cyl - r
	}
	return n
}

// bsdSlot returns the d_partitions entry of the 0-based mkimg slot i: the
// slots skip the raw partition 'c'.
func bsdSlot(i int) int {
	if i >= bsdPartRaw {
		return i + 1
	}
	return i
}

// writeBSD writes the boot area: the boot code (-b) with the label in its
// second sector, as mkimg lays it out. mkimg clears only
// sizeof(struct disklabel) bytes (eight entries) of the boot code there,
// so with more than seven slots the entries past the eighth that no
// partition fills keep the boot code's bytes, and d_checksum covers them.
func (l *layout) writeBSD(w io.WriterAt) error {
	buf := make([]byte, bsdBootblockSize)
	if l.bootcode != nil {
		copy(buf, l.bootcode)
		clear(buf[l.secsz:][:bsdLabelStructSize])
	}
	d := (*bsdLabel)(buf[l.secsz:][:len(bsdLabel{})])
	entries := max(l.slots+1, bsdPartsMin)
	le32 := binary.LittleEndian.PutUint32
	le32(d.dMagic(), bsdMagic)
	le32(d.dSecsize(), uint32(l.secsz))
	le32(d.dNsectors(), uint32(l.track))
	le32(d.dNtracks(), uint32(l.heads))
	le32(d.dNcylinders(), uint32(l.sectors/(l.track*l.heads)))
	le32(d.dSecpercyl(), uint32(l.track*l.heads))
	le32(d.dSecperunit(), uint32(l.sectors))
	binary.LittleEndian.PutUint16(d.dRpm(), bsdRPM)
	le32(d.dMagic2(), bsdMagic)
	binary.LittleEndian.PutUint16(d.dNpartitions(), uint16(entries))
	le32(d.dBbsize(), bsdBootblockSize)
	le32(d.partition(bsdPartRaw).pSize(), uint32(l.sectors))
	for _, p := range l.parts {
		e := d.partition(bsdSlot(p.index))
		le32(e.pSize(), uint32(p.sectors))
		le32(e.pOffset(), uint32(p.start))
		clear(e.pFsize())
		e.pFstype()[0] = bsdTypes[lower7(p.Type)]
		clear(e.pFrag())
		clear(e.pCpg())
	}
	binary.LittleEndian.PutUint16(d.dChecksum(), bsdChecksum(d[:bsdHeaderSize+entries*bsdPartitionSize]))
	return l.writeAt(w, buf, 0)
}

// bsdChecksum is d_checksum: the XOR of the label's 16-bit little-endian
// words up to the end of its d_npartitions entries, taken with d_checksum
// zero.
func bsdChecksum(b []byte) uint16 {
	var sum uint16
	for i := 0; i+1 < len(b); i += 2 {
		if i == bsdChecksumOffset {
			continue
		}
		sum ^= binary.LittleEndian.Uint16(b[i:])
	}
	return sum
}
