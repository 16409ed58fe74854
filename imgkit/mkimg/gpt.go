package mkimg

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"unicode/utf16"
)

func init() {
	registerScheme(&scheme{
		name:          "gpt",
		description:   "GUID Partition Table",
		maxParts:      gptMaxPartitions,
		labelMax:      gptLabelMax,
		labelUTF16:    true,
		bootcode:      bootcodeMax,
		maxSectorSize: maxSectorSize,
		hasGUIDs:      true,
		hasType:       typeIn(gptTypes),
		metadata:      gptMetadata,
		reserved:      gptReserved,
		write:         func(l *layout, w io.WriterAt, g guids) error { return l.writeGPT(w, g) },
		read:          readGPT,
	})
}

// gptTypes maps mkimg's scheme-neutral type aliases to GPT partition type
// GUIDs, as FreeBSD's mkimg accepts them for -s gpt, and fixturegen's own
// Linux aliases (linuxAliases) to the GUIDs of the UAPI Group's
// Discoverable Partitions Specification (linux-data, linux-swap, the root
// and /usr types, xbootldr) and the long-standing Linux LVM and RAID
// GUIDs, which sfdisk and sgdisk name.
var gptTypes = map[string]GUID{
	"efi":            mustGUID("c12a7328-f81f-11d2-ba4b-00a0c93ec93b"),
	"freebsd":        mustGUID("516e7cb4-6ecf-11d6-8ff8-00022d09712b"),
	"freebsd-boot":   mustGUID("83bd6b9d-7f41-11dc-be0b-001560b84f0f"),
	"freebsd-nandfs": mustGUID("74ba7dd9-a689-11e1-bd04-00e081286acf"),
	"freebsd-swap":   mustGUID("516e7cb5-6ecf-11d6-8ff8-00022d09712b"),
	"freebsd-ufs":    mustGUID("516e7cb6-6ecf-11d6-8ff8-00022d09712b"),
	"freebsd-vinum":  mustGUID("516e7cb8-6ecf-11d6-8ff8-00022d09712b"),
	"freebsd-zfs":    mustGUID("516e7cba-6ecf-11d6-8ff8-00022d09712b"),
	"mbr":            mustGUID("024dee41-33e7-11d3-9d69-0008c781f39f"),
	"ms-basic-data":  mustGUID("ebd0a0a2-b9e5-4433-87c0-68b6b72699c7"),
	"ntfs":           mustGUID("ebd0a0a2-b9e5-4433-87c0-68b6b72699c7"),
	"prepboot":       mustGUID("9e1a2d38-c612-4316-aa26-8b49521e5a8b"),

	"linux-data":        mustGUID("0fc63daf-8483-4772-8e79-3d69d8477de4"), // SD_GPT_LINUX_GENERIC
	"linux-swap":        mustGUID("0657fd6d-a4ab-43c4-84e5-0933c84b4f4f"), // SD_GPT_SWAP
	"linux-lvm":         mustGUID("e6d6d379-f507-44c2-a23c-238f2a3df928"),
	"linux-raid":        mustGUID("a19d880f-05fc-4d3b-a006-743f0f84911e"),
	"linux-root-x86-64": mustGUID("4f68bce3-e8cd-4db1-96e7-fbcaf984b709"), // SD_GPT_ROOT_X86_64
	"linux-root-arm64":  mustGUID("b921b045-1df0-41c3-af44-4c6f280d3fae"), // SD_GPT_ROOT_ARM64
	"linux-usr-x86-64":  mustGUID("8484680c-9521-48c6-9c11-b0720656f69e"), // SD_GPT_USR_X86_64
	"linux-usr-arm64":   mustGUID("b0e01050-ee5f-4390-949a-9101b17104e9"), // SD_GPT_USR_ARM64
	"xbootldr":          mustGUID("bc13c2ff-59e6-4262-a352-b275fd6f7172"), // SD_GPT_XBOOTLDR
}

// gptTableSectors is the size in sectors of one entry array for slots
// partitions: room for every slot, and at least 16 KiB.
func gptTableSectors(secsz uint64, slots int) uint64 {
	return max(ceilDiv(gptMinEntryArray, secsz), ceilDiv(uint64(slots), secsz/gptEntrySize))
}

// gptMetadata keeps LBA 0, the header and one entry array before the
// partitions and one array and the backup header after them, and aligns
// all of these to the physical block; a partition's absolute offset
// (metaPartAbsolute) is aligned the same way, with nothing added.
func gptMetadata(l *layout, where int, blk uint64) uint64 {
	switch where {
	case metaStart:
		blk += l.gptTable + 2
	case metaEnd:
		blk += l.gptTable + 1
	}
	return l.roundBlock(blk)
}

// gptReserved gives the sectors outside FirstUsableLBA to LastUsableLBA
// (UEFI 2.10 section 5.3.2): LBA 0, the header and the entry array, and
// the backup array and header at the disk's end.
func gptReserved(l *layout) ([]metaRun, error) {
	return []metaRun{
		{start: 0, end: 2 + l.gptTable, what: "the protective MBR, the GPT header and its entry array", leading: true},
		{start: l.sectors - l.gptTable - 1, end: l.sectors, what: "the backup GPT entry array and header"},
	}, nil
}

// writeGPT writes the protective MBR, the primary header and entry array
// at LBA 1 and 2, and the backup array and header at the end of the disk.
func (l *layout) writeGPT(w io.WriterAt, g guids) error {
	b, m := l.bootSector()
	r := m.partitionRecord(0)
	protectiveCHS(r)
	r.osType()[0] = pmbrOSType
	binary.LittleEndian.PutUint32(r.startingLBA(), 1)
	secs := uint32(0xffffffff)
	if l.sectors <= 0xffffffff {
		secs = uint32(l.sectors - 1)
	}
	binary.LittleEndian.PutUint32(r.sizeInLBA(), secs)
	if err := l.writeAt(w, b, 0); err != nil {
		return err
	}

	table := make([]byte, l.gptTable*l.secsz)
	for i, p := range l.parts {
		if l.leftUnused(&p) {
			continue
		}
		e := (*gptEntry)(table[p.index*gptEntrySize:][:gptEntrySize])
		gptTypes[lower7(p.Type)].encode(e.partitionTypeGUID())
		g.parts[i].encode(e.uniquePartitionGUID())
		binary.LittleEndian.PutUint64(e.startingLBA(), p.start)
		binary.LittleEndian.PutUint64(e.endingLBA(), p.start+p.sectors-1)
		name := e.partitionName()
		for j, u := range utf16.Encode([]rune(p.Label)) {
			binary.LittleEndian.PutUint16(name[2*j:], u)
		}
	}
	backupTable := l.sectors - l.gptTable - 1
	if err := l.writeAt(w, table, 2); err != nil {
		return err
	}
	if err := l.writeAt(w, table, backupTable); err != nil {
		return err
	}

	var h gptHeader
	copy(h.signature(), gptSignature[:])
	binary.LittleEndian.PutUint32(h.revision(), gptRevision)
	binary.LittleEndian.PutUint32(h.headerSize(), gptHeaderSize)
	binary.LittleEndian.PutUint64(h.firstUsableLBA(), 2+l.gptTable)
	binary.LittleEndian.PutUint64(h.lastUsableLBA(), l.sectors-l.gptTable-2)
	g.disk.encode(h.diskGUID())
	binary.LittleEndian.PutUint32(h.numberOfPartitionEntries(), uint32(l.gptTable*l.secsz/gptEntrySize))
	binary.LittleEndian.PutUint32(h.sizeOfPartitionEntry(), gptEntrySize)
	binary.LittleEndian.PutUint32(h.partitionEntryArrayCRC32(), crc32.ChecksumIEEE(table))
	if err := l.writeHeader(w, &h, 1, l.sectors-1, 2); err != nil {
		return err
	}
	return l.writeHeader(w, &h, l.sectors-1, 1, backupTable)
}

// protectiveCHS fills the protective MBR record's CHS fields as mkimg
// does: StartingCHS 0x000200 (sector 2, the record's StartingLBA 1) and
// EndingCHS all ones.
func protectiveCHS(r *mbrPartitionRecord) {
	copy(r.startingCHS(), []byte{0x00, 0x02, 0x00})
	copy(r.endingCHS(), []byte{0xff, 0xff, 0xff})
}

// writeHeader sets the header's own, alternate and entry array LBAs and
// its HeaderCRC32 and writes it, in a zeroed sector, at LBA self.
func (l *layout) writeHeader(w io.WriterAt, h *gptHeader, self, alt, table uint64) error {
	binary.LittleEndian.PutUint64(h.myLBA(), self)
	binary.LittleEndian.PutUint64(h.alternateLBA(), alt)
	binary.LittleEndian.PutUint64(h.partitionEntryLBA(), table)
	clear(h.headerCRC32())
	binary.LittleEndian.PutUint32(h.headerCRC32(), crc32.ChecksumIEEE(h[:]))
	sector := make([]byte, l.secsz)
	copy(sector, h[:])
	return l.writeAt(w, sector, self)
}
