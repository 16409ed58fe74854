package mkimg

import (
	"encoding/binary"
	"io"
)

func init() {
	registerScheme(&scheme{
		name:          "mbr",
		description:   "Master Boot Record",
		maxParts:      mbrPartitions,
		bootcode:      bootcodeMax,
		maxSectorSize: maxSectorSize,
		hasType:       typeIn(mbrTypes),
		metadata:      mbrMetadata,
		reserved: func(*layout) ([]metaRun, error) {
			return []metaRun{{start: 0, end: 1, what: "the MBR", leading: true}}, nil
		},
		write: func(l *layout, w io.WriterAt, _ guids) error { return l.writeMBR(w) },
		read:  readMBR,
	})
}

// mbrTypes maps mkimg's type aliases to MBR OSType bytes, as the reference
// freebsd-mkimg accepts them for -s mbr, and those of fixturegen's Linux
// aliases that have a byte (the root and /usr types of the Discoverable
// Partitions Specification are GUIDs only).
var mbrTypes = map[string]byte{
	"ebr":      0x05,
	"efi":      0xef,
	"fat16b":   0x06,
	"fat32":    0x0b,
	"freebsd":  0xa5,
	"ntfs":     0x07,
	"prepboot": 0x41,

	"linux-data": 0x83,
	"linux-swap": 0x82,
	"linux-lvm":  0x8e,
	"linux-raid": 0xfd,
	"xbootldr":   0xea,
}

// mbrMetadata keeps LBA 0 before the partitions and aligns everything to
// whole tracks, a partition's absolute offset (metaPartAbsolute) too.
func mbrMetadata(l *layout, where int, blk uint64) uint64 {
	if where == metaStart {
		blk++
	}
	return l.roundTrack(blk)
}

// writeMBR writes the MBR in LBA 0: one partition record per used slot,
// sized in whole tracks.
func (l *layout) writeMBR(w io.WriterAt) error {
	b, m := l.bootSector()
	for _, p := range l.parts {
		if l.leftUnused(&p) {
			continue
		}
		r := m.partitionRecord(p.index)
		size := l.roundTrack(p.sectors)
		boot := l.active == p.index+1 || (l.active == 0 && p.index == 0 && l.bootcode != nil)
		if boot {
			r.bootIndicator()[0] = 0x80
		}
		l.fillRecord(r, mbrTypes[lower7(p.Type)], p.start, size, p.start, p.start+size-1)
	}
	return l.writeAt(w, b, 0)
}

// fillRecord fills the partition record r as mkimg does: OSType typ,
// StartingLBA start, SizeInLBA size, and the CHS addresses of the sectors
// first and last, which an EBR counts from another origin than its
// StartingLBA.
func (l *layout) fillRecord(r *mbrPartitionRecord, typ byte, start, size, first, last uint64) {
	l.chs(r.startingCHS(), first)
	r.osType()[0] = typ
	l.chs(r.endingCHS(), last)
	binary.LittleEndian.PutUint32(r.startingLBA(), uint32(start))
	binary.LittleEndian.PutUint32(r.sizeInLBA(), uint32(size))
}

// chs stores lba's cylinder-head-sector address in the three bytes of an
// MBR CHS field, with the simulated geometry and cylinders up to 1023.
// Without a geometry (one head or one sector per track), or past cylinder
// 1023, every bit is set, as mkimg sets them.
func (l *layout) chs(dst []byte, lba uint64) {
	cyl, hd, sec := uint64(0xffffffff), uint64(0xffffffff), uint64(0xffffffff)
	if l.heads > 1 && l.track > 1 {
		s := lba%l.track + 1
		rest := lba / l.track
		h := rest % l.heads
		if c := rest / l.heads; c <= 1023 {
			cyl, hd, sec = c, h, s
		}
	}
	dst[0] = byte(hd)
	dst[1] = byte(sec&0x3f) | byte((cyl>>2)&0xc0)
	dst[2] = byte(cyl)
}
