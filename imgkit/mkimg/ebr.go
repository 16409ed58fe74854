package mkimg

import (
	"encoding/binary"
	"fmt"
	"io"
)

func init() {
	registerScheme(&scheme{
		name:          "ebr",
		description:   "Extended Boot Record",
		maxParts:      ebrMaxPartitions,
		maxSectorSize: ebrMaxSectorSize,
		hasType:       typeIn(ebrTypes),
		metadata:      ebrMetadata,
		reserved:      ebrReserved,
		write:         func(l *layout, w io.WriterAt, _ guids) error { return l.writeEBR(w) },
		read:          readEBR,
	})
}

// ebrTypes maps mkimg's type aliases to OSType bytes for -s ebr: fat16b,
// fat32 and freebsd as the reference freebsd-mkimg accepts them,
// fat32lba (0x0c), which current FreeBSD's ebr.c adds, and fixturegen's
// Linux aliases that an MBR has a byte for (mbrTypes).
var ebrTypes = map[string]byte{
	"fat16b":   0x06,
	"fat32":    0x0b,
	"fat32lba": 0x0c,
	"freebsd":  0xa5,

	"linux-data": 0x83,
	"linux-swap": 0x82,
	"linux-lvm":  0x8e,
	"linux-raid": 0xfd,
	"xbootldr":   0xea,
}

// ebrMetadata gives each logical partition the track before it for its
// EBR and aligns everything to whole tracks (-T).
func ebrMetadata(l *layout, where int, blk uint64) uint64 {
	if where == metaPartBefore {
		blk++
	}
	return l.roundTrack(blk)
}

// ebrReserved gives each partition's EBR and the rest of the track it
// begins, up to the partition, which record 1 of the EBR before it
// counts as part of the logical partition's extent; it refuses a
// partition too close to the start for its EBR, and two empty ones at one
// sector, whose EBRs would be one sector.
func ebrReserved(l *layout) ([]metaRun, error) {
	runs := make([]metaRun, 0, len(l.parts))
	at := map[uint64]int{}
	for _, p := range l.parts {
		if p.start < l.track {
			return nil, fmt.Errorf("%w: partition %d at sector %d leaves no room for its EBR, which goes one track (-T %d) before it; it may start at sector %d (offset %d) or after", ErrPartition,
				p.index+1, p.start, l.track, l.track, l.track*l.secsz)
		}
		if q, ok := at[p.start]; ok {
			return nil, fmt.Errorf("%w: partitions %d and %d both start at sector %d, so their EBRs would be one sector", ErrPartition, q+1, p.index+1, p.start)
		}
		at[p.start] = p.index
		what := fmt.Sprintf("the EBR of partition %d", p.index+1)
		if l.track > 1 {
			what += " and the rest of its track"
		}
		runs = append(runs, metaRun{start: p.start - l.track, end: p.start, what: what})
	}
	return runs, nil
}

// writeEBR writes one EBR a track before each partition, as mkimg chains
// them: record 0 is the partition, starting a track after its EBR and
// sized in whole tracks; record 1 links to the next EBR, counted from the
// first one at LBA 0, and covers that EBR's track and its partition. The
// CHS fields are mkimg's: record 0's StartingCHS is that of the LBA equal
// to its StartingLBA (one track), and every other CHS field is that of
// the sector it names counted from LBA 0 of the chain.
func (l *layout) writeEBR(w io.WriterAt) error {
	for i, p := range l.parts {
		b := make([]byte, l.secsz)
		m := (*mbrRecord)(b[:512])
		binary.LittleEndian.PutUint16(m.signature(), mbrSignature)
		size := l.roundTrack(p.sectors)
		l.fillRecord(m.partitionRecord(ebrPartRecord), ebrTypes[lower7(p.Type)], l.track, size, l.track, p.start+size-1)
		if i+1 < len(l.parts) {
			next := l.parts[i+1]
			nsize := l.roundTrack(next.sectors)
			l.fillRecord(m.partitionRecord(ebrLinkRecord), ebrLinkType, next.start-l.track, nsize+l.track, next.start-l.track, next.start+nsize-1)
		}
		if err := l.writeAt(w, b, p.start-l.track); err != nil {
			return err
		}
	}
	return nil
}
