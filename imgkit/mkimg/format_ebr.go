package mkimg

// An Extended Boot Record has the MBR's layout (mbrRecord): a boot area
// mkimg leaves zero, four partition records of which an EBR uses two, and
// the boot signature. Record 0 describes the logical partition, its
// StartingLBA counted from the EBR's own sector; record 1 links to the
// next EBR, its StartingLBA counted from the first EBR, the start of the
// extended partition. Records 2 and 3 stay zero.
const (
	// ebrMaxPartitions is the most logical partitions mkimg chains.
	ebrMaxPartitions = 4096
	// ebrMaxSectorSize is the largest logical sector size mkimg's ebr
	// scheme takes.
	ebrMaxSectorSize = 4096
	// ebrPartRecord and ebrLinkRecord are the records an EBR uses.
	ebrPartRecord, ebrLinkRecord = 0, 1
	// ebrLinkType is the link record's OSType mkimg writes, DOS extended
	// (0x05); a reader also takes 0x0f, extended with LBA.
	ebrLinkType, ebrLinkTypeLBA = 0x05, 0x0f
)
