package cd9660

// putSystemArea writes into sa, the System Area (logical sectors 0 to 15,
// already holding the generic boot image, or zeros), the partition tables
// makefs's cd9660_write_boot writes for the boot images, and only their
// bytes, so that the rest of the generic image stays:
//
//   - with a powerpc image or chrp, an MBR: the signature, then with chrp
//     an entry of type 96h over the whole image, then an entry of type 41h
//     (PReP Boot) per powerpc image;
//   - with a macppc or mac68k image, an Apple Partition Map: the Driver
//     Descriptor Record, the map's own entry, an Apple_Bootstrap entry per
//     Mac image and a CD_ROM_Mode_1 entry over the whole image.
//
// totalSectors is the image's size in logical sectors, trailing padding
// included. As in makefs, the 512-byte sizes of the image partitions are
// the images' 512-byte sector counts multiplied again by 4 (with 2048-byte
// sectors).
//
// Debian's makefs writes no partition tables.
func (p *bootPlan) putSystemArea(sa []byte, chrp bool, totalSectors uint32) {
	if p.debian {
		return
	}
	per := uint32(p.sectorSize / partitionSectorSize)
	var ppc, mac []*bootEntry
	for k := range p.entries {
		switch e := &p.entries[k]; e.system {
		case etPlatformPPC:
			ppc = append(ppc, e)
		case etPlatformMac:
			mac = append(mac, e)
		}
	}
	if len(ppc) > 0 || chrp {
		put721(sa[mbrSignatureOffset:], 0xaa55)
		n := 0
		if chrp {
			putMBRPartition(sa, n, 0, totalSectors*per, mbrTypeISO9660)
			n++
		}
		for _, e := range ppc {
			putMBRPartition(sa, n, e.rba*per, e.count*per, mbrTypePRePBoot)
			n++
		}
	}
	if len(mac) > 0 {
		putAPM(sa, mac, totalSectors*per, per)
	}
}

// putMBRPartition writes entry idx of the MBR's partition table in sa:
// active, CHS addresses all FFh (use the LBA fields), of type typ, from
// 512-byte sector start for count sectors.
func putMBRPartition(sa []byte, idx int, start, count uint32, typ byte) {
	off := mbrPartitionTableOffset + 16*idx
	e := mbrPartitionEntry(sa[off : off+16])
	e.bootIndicator()[0] = 0x80
	copy(e.startingCHS(), []byte{0xff, 0xff, 0xff})
	e.partitionType()[0] = typ
	copy(e.endingCHS(), []byte{0xff, 0xff, 0xff})
	put731(e.startingLBA(), start)
	put731(e.sizeInLBA(), count)
}

// putAPM writes the Apple Partition Map of the Mac images mac into sa,
// for a disc of blocks 512-byte blocks, per of them to a logical sector.
// makefs counts 2 entries beyond the images' but writes the last one a
// block further on, leaving block len(mac)+2 untouched.
func putAPM(sa []byte, mac []*bootEntry, blocks, per uint32) {
	d := apmDriverDescriptor(sa[:partitionSectorSize])
	put722(d.sbSig(), apmDriverDescriptorSignature)
	put722(d.sbBlkSize(), partitionSectorSize)
	put732(d.sbBlkCount(), blocks)
	put722(d.sbDevType(), 1)
	put722(d.sbDevId(), 1)
	total := uint32(2 + len(mac))
	putAPMPartition(sa, 1, total, 1, total, "Apple", "Apple_partition_map")
	for i, e := range mac {
		putAPMPartition(sa, 2+i, total, e.rba*per, e.count*per, "CD Boot", "Apple_Bootstrap")
	}
	putAPMPartition(sa, 3+len(mac), total, 0, blocks, "ISO9660", "CD_ROM_Mode_1")
}

// putAPMPartition writes the partition map entry in block blk of sa: one
// of total entries, from block start for count blocks, named name, of
// type typ, valid, allocated, readable and writable. Of the name fields
// only the names and their NUL are written.
func putAPMPartition(sa []byte, blk int, total, start, count uint32, name, typ string) {
	p := apmPartition(sa[blk*partitionSectorSize:][:partitionSectorSize])
	put722(p.pmSig(), apmPartitionSignature)
	put722(p.pmSigPad(), 0)
	put732(p.pmMapBlkCnt(), total)
	put732(p.pmPyPartStart(), start)
	put732(p.pmPartBlkCnt(), count)
	copy(p.pmPartName(), name+"\x00")
	copy(p.pmParType(), typ+"\x00")
	put732(p.pmLgDataStart(), 0)
	put732(p.pmDataCnt(), count)
	put732(p.pmPartStatus(), apmStatusValid|apmStatusAllocated|apmStatusReadable|apmStatusWritable)
}
