package mkimg

// The Apple Partition Map's records, as Inside Macintosh: Devices
// (chapter 3, "SCSI Manager", "Partition Map Entry Record" and "Driver
// Descriptor Record") lays them out; every number is big-endian. Block 0
// holds the driver descriptor record; the partition map follows it, one
// entry per block from block 1, the first entry describing the map itself.
const (
	// apmDDRSig is the driver descriptor record's sbSig, "ER".
	apmDDRSig = 0x4552
	// apmEntrySig is a partition map entry's pmSig, "PM".
	apmEntrySig = 0x504d
	// apmNameLen and apmTypeLen are the sizes of pmPartName and
	// pmParType, NUL-padded strings.
	apmNameLen = 32
	apmTypeLen = 32
	// apmLabelMax is the most label bytes mkimg accepts: pmPartName less
	// its terminating NUL.
	apmLabelMax = apmNameLen - 1
	// apmMaxPartitions is the most partitions mkimg puts in a map.
	apmMaxPartitions = 4096
	// apmMaxSectorSize is the largest logical sector size mkimg takes for
	// an APM.
	apmMaxSectorSize = 4096
	// apmMapType and apmMapName are the pmParType and pmPartName of the
	// entry describing the partition map itself.
	apmMapType = "Apple_partition_map"
	apmMapName = "Apple"
)

// apmDDR is the driver descriptor record in block 0, of which mkimg sets
// sbSig, sbBlkSize and sbBlkCount; the device fields and the driver
// descriptor list stay zero.
type apmDDR [512]byte

func (d *apmDDR) sbSig() []byte       { return d[0:2] }
func (d *apmDDR) sbBlkSize() []byte   { return d[2:4] }
func (d *apmDDR) sbBlkCount() []byte  { return d[4:8] }
func (d *apmDDR) sbDevType() []byte   { return d[8:10] }
func (d *apmDDR) sbDevId() []byte     { return d[10:12] }
func (d *apmDDR) sbData() []byte      { return d[12:16] }
func (d *apmDDR) sbDrvrCount() []byte { return d[16:18] }

// apmEntry is one partition map entry, the first 512 bytes of its block.
// mkimg sets pmSig, pmMapBlkCnt, pmPyPartStart, pmPartBlkCnt, pmPartName
// and pmParType; the logical data, status and boot fields stay zero, as
// does pmSigPad (bytes 2 to 4), which has no accessor.
type apmEntry [512]byte

func (e *apmEntry) pmSig() []byte         { return e[0:2] }
func (e *apmEntry) pmMapBlkCnt() []byte   { return e[4:8] }
func (e *apmEntry) pmPyPartStart() []byte { return e[8:12] }
func (e *apmEntry) pmPartBlkCnt() []byte  { return e[12:16] }
func (e *apmEntry) pmPartName() []byte    { return e[16:48] }
func (e *apmEntry) pmParType() []byte     { return e[48:80] }
func (e *apmEntry) pmLgDataStart() []byte { return e[80:84] }
func (e *apmEntry) pmDataCnt() []byte     { return e[84:88] }
func (e *apmEntry) pmPartStatus() []byte  { return e[88:92] }
func (e *apmEntry) pmLgBootStart() []byte { return e[92:96] }
func (e *apmEntry) pmBootSize() []byte    { return e[96:100] }
func (e *apmEntry) pmBootAddr() []byte    { return e[100:104] }
func (e *apmEntry) pmBootEntry() []byte   { return e[108:112] }
func (e *apmEntry) pmBootCksum() []byte   { return e[116:120] }
func (e *apmEntry) pmProcessor() []byte   { return e[120:136] }
