package mkimg

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

func init() {
	registerScheme(&scheme{
		name:          "apm",
		description:   "Apple Partition Map",
		maxParts:      apmMaxPartitions,
		labelMax:      apmLabelMax,
		maxSectorSize: apmMaxSectorSize,
		hasType:       typeIn(apmTypes),
		metadata:      apmMetadata,
		reserved:      apmReserved,
		write:         func(l *layout, w io.WriterAt, _ guids) error { return l.writeAPM(w) },
		read:          readAPM,
	})
}

// apmTypes maps mkimg's type aliases to APM pmParType names, as FreeBSD's
// mkimg (apm.c) accepts them for -s apm: freebsd-boot is Apple's
// Apple_Bootstrap, the others FreeBSD's own names.
var apmTypes = map[string]string{
	"freebsd":        "FreeBSD",
	"freebsd-boot":   "Apple_Bootstrap",
	"freebsd-nandfs": "FreeBSD-nandfs",
	"freebsd-swap":   "FreeBSD-swap",
	"freebsd-ufs":    "FreeBSD-UFS",
	"freebsd-vinum":  "FreeBSD-Vinum",
	"freebsd-zfs":    "FreeBSD-ZFS",
}

// apmMetadata keeps block 0 (the driver descriptor record), the map's own
// entry and one entry per slot before the partitions, and aligns every
// partition and the disk's end to the physical block.
func apmMetadata(l *layout, where int, blk uint64) uint64 {
	if where == metaStart {
		blk += uint64(l.slots) + 2
	}
	return l.roundBlock(blk)
}

// apmReserved gives block 0 (the driver descriptor record) and the
// partition map, blocks 1 to slots+1.
func apmReserved(l *layout) ([]metaRun, error) {
	return []metaRun{{start: 0, end: uint64(l.slots) + 2, what: "the driver descriptor record and the partition map", leading: true}}, nil
}

// writeAPM writes the driver descriptor record in block 0, the map's own
// entry in block 1 and slot i's entry in block i+2; an unused slot's
// block stays zero, as mkimg leaves it.
func (l *layout) writeAPM(w io.WriterAt) error {
	if l.sectors > math.MaxUint32 {
		return fmt.Errorf("%w: %d sectors do not fit an APM's 32-bit sbBlkCount", ErrTooLarge, l.sectors)
	}
	mapBlocks := uint32(l.slots + 1)
	buf := make([]byte, uint64(l.slots+2)*l.secsz)
	ddr := (*apmDDR)(buf[:512])
	binary.BigEndian.PutUint16(ddr.sbSig(), apmDDRSig)
	binary.BigEndian.PutUint16(ddr.sbBlkSize(), uint16(l.secsz))
	binary.BigEndian.PutUint32(ddr.sbBlkCount(), uint32(l.sectors))

	self := (*apmEntry)(buf[l.secsz:][:512])
	putAPMEntry(self, mapBlocks, 1, mapBlocks, apmMapName, apmMapType)
	for _, p := range l.parts {
		e := (*apmEntry)(buf[uint64(p.index+2)*l.secsz:][:512])
		putAPMEntry(e, mapBlocks, uint32(p.start), uint32(p.sectors), p.Label, apmTypes[lower7(p.Type)])
	}
	return l.writeAt(w, buf, 0)
}

// putAPMEntry fills one partition map entry: its signature, the map's
// length, the partition's place in blocks, and its name and type, each
// NUL-padded.
func putAPMEntry(e *apmEntry, mapBlocks, start, blocks uint32, name, typ string) {
	binary.BigEndian.PutUint16(e.pmSig(), apmEntrySig)
	binary.BigEndian.PutUint32(e.pmMapBlkCnt(), mapBlocks)
	binary.BigEndian.PutUint32(e.pmPyPartStart(), start)
	binary.BigEndian.PutUint32(e.pmPartBlkCnt(), blocks)
	copy(e.pmPartName(), name)
	copy(e.pmParType(), typ)
}

// apmMaxMapBlocks bounds the pmMapBlkCnt the reader follows: far more than
// the 4097 mkimg writes, and few enough blocks to read quickly.
const apmMaxMapBlocks = 1 << 16
