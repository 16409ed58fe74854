package mkimg

// Sizes and values fixed by FreeBSD's BSD disklabel (sys/sys/disk/bsd.h).
const (
	// bsdMagic is d_magic and d_magic2, DISKMAGIC.
	bsdMagic uint32 = 0x82564557
	// bsdBootblockSize is the boot area at the start of the disk, in
	// bytes whatever the sector size: the label sits in its second
	// sector and the boot code (-b) fills the rest.
	bsdBootblockSize = 8192
	// bsdPartsMin is the fewest d_partitions entries a label has.
	bsdPartsMin = 8
	// bsdPartsMax is the most d_partitions entries mkimg writes; one of
	// them is the raw partition, so a disk holds bsdPartsMax-1.
	bsdPartsMax = 20
	// bsdPartRaw is the raw partition ('c'), which covers the whole disk.
	bsdPartRaw = 2
	// bsdHeaderSize is the label's bytes before d_partitions.
	bsdHeaderSize = 148
	// bsdPartitionSize is the size of one d_partitions entry.
	bsdPartitionSize = 16
	// bsdChecksumOffset and bsdNpartitionsOffset are where d_checksum
	// and d_npartitions sit in the label.
	bsdChecksumOffset, bsdNpartitionsOffset = 136, 138
	// bsdLabelStructSize is sizeof(struct disklabel): the header and
	// bsdPartsMin entries. mkimg clears only these bytes of the boot
	// code's second sector before writing the label there.
	bsdLabelStructSize = bsdHeaderSize + bsdPartsMin*bsdPartitionSize
	// bsdMaxSectorSize is the largest sector size mkimg's bsd scheme takes.
	bsdMaxSectorSize = 512
	// bsdRPM is the d_rpm mkimg writes.
	bsdRPM = 3600
)

// bsdLabel is a BSD disklabel (struct disklabel, sys/sys/disk/bsd.h) with
// room for bsdPartsMax d_partitions entries; d_npartitions says how many
// count. Fields mkimg leaves zero and the reader does not report
// (d_typename, d_packname, the spares, skews and timings, d_drivedata)
// have no accessor.
type bsdLabel [bsdHeaderSize + bsdPartsMax*bsdPartitionSize]byte

func (d *bsdLabel) dMagic() []byte          { return d[0:4] }
func (d *bsdLabel) dType() []byte           { return d[4:6] }
func (d *bsdLabel) dSubtype() []byte        { return d[6:8] }
func (d *bsdLabel) dSecsize() []byte        { return d[40:44] }
func (d *bsdLabel) dNsectors() []byte       { return d[44:48] }
func (d *bsdLabel) dNtracks() []byte        { return d[48:52] }
func (d *bsdLabel) dNcylinders() []byte     { return d[52:56] }
func (d *bsdLabel) dSecpercyl() []byte      { return d[56:60] }
func (d *bsdLabel) dSecperunit() []byte     { return d[60:64] }
func (d *bsdLabel) dSparespertrack() []byte { return d[64:66] }
func (d *bsdLabel) dSparespercyl() []byte   { return d[66:68] }
func (d *bsdLabel) dAcylinders() []byte     { return d[68:72] }
func (d *bsdLabel) dRpm() []byte            { return d[72:74] }
func (d *bsdLabel) dInterleave() []byte     { return d[74:76] }
func (d *bsdLabel) dFlags() []byte          { return d[88:92] }
func (d *bsdLabel) dMagic2() []byte         { return d[132:136] }
func (d *bsdLabel) dChecksum() []byte       { return d[136:138] }
func (d *bsdLabel) dNpartitions() []byte    { return d[138:140] }
func (d *bsdLabel) dBbsize() []byte         { return d[140:144] }
func (d *bsdLabel) dSbsize() []byte         { return d[144:148] }

// partition returns the i'th d_partitions entry.
func (d *bsdLabel) partition(i int) *bsdPartition {
	return (*bsdPartition)(d[bsdHeaderSize+bsdPartitionSize*i:][:bsdPartitionSize])
}

// bsdPartition is one d_partitions entry (struct partition).
type bsdPartition [bsdPartitionSize]byte

func (p *bsdPartition) pSize() []byte   { return p[0:4] }
func (p *bsdPartition) pOffset() []byte { return p[4:8] }
func (p *bsdPartition) pFsize() []byte  { return p[8:12] }
func (p *bsdPartition) pFstype() []byte { return p[12:13] }
func (p *bsdPartition) pFrag() []byte   { return p[13:14] }
func (p *bsdPartition) pCpg() []byte    { return p[14:16] }
