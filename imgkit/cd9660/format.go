package cd9660

import "encoding/binary"

// The on-disk records of ECMA-119 (ISO 9660, 4th edition 2019), the El
// Torito Bootable CD-ROM Format Specification 1.0 (1995) and the System
// Use Sharing Protocol / Rock Ridge Interchange Protocol (IEEE P1281 and
// P1282, 1994). Each record is a byte array or slice with one accessor per
// field, named as the specification names it; an accessor returns the
// field's bytes, so the writer fills them and the reader decodes them.
// Offsets are the specifications' byte positions counted from zero.

// Sizes and positions fixed by ECMA-119.
const (
	// SectorSize is the logical sector and logical block size makefs(8)
	// writes and every reader here expects (ECMA-119 6.1.2, 6.2.2).
	SectorSize = 2048
	// systemAreaSectors is the System Area, logical sectors 0 to 15,
	// ahead of the volume descriptor set (ECMA-119 6.2.1).
	systemAreaSectors = 16
	// dirRecordFixedLen is the length of a directory record without its
	// file identifier and system use area (ECMA-119 9.1).
	dirRecordFixedLen = 33
	// pathRecordFixedLen is the length of a path table record without its
	// directory identifier (ECMA-119 9.4).
	pathRecordFixedLen = 8
	// standardIdentifier is the identifier of every volume descriptor
	// (ECMA-119 8.1.2).
	standardIdentifier = "CD001"
	// elToritoIdentifier is the Boot System Identifier of an El Torito
	// boot record, padded with zero bytes to 32 (El Torito 2.0).
	elToritoIdentifier = "EL TORITO SPECIFICATION"
)

// Volume Descriptor Types (ECMA-119 8.1.1).
const (
	vdTypeBootRecord    = 0
	vdTypePrimary       = 1
	vdTypeSupplementary = 2
	vdTypePartition     = 3
	vdTypeTerminator    = 255
)

// File Flags of a directory record (ECMA-119 9.1.6).
const (
	flagExistence      = 1 << 0 // hidden from the user
	flagDirectory      = 1 << 1
	flagAssociatedFile = 1 << 2
	flagRecord         = 1 << 3
	flagProtection     = 1 << 4
	flagMultiExtent    = 1 << 7
)

// volumeDescriptor is one logical sector of the volume descriptor set
// (ECMA-119 8). The Primary (8.4) and Supplementary (8.5) Volume
// Descriptors share one layout; the Boot Record (8.2) uses the first 71
// bytes and El Torito's boot catalogue pointer after them.
type volumeDescriptor [SectorSize]byte

func (v *volumeDescriptor) volumeDescriptorType() []byte    { return v[0:][:1] }
func (v *volumeDescriptor) standardIdentifier() []byte      { return v[1:][:5] }
func (v *volumeDescriptor) volumeDescriptorVersion() []byte { return v[6:][:1] }

// volumeFlags is unused (zero) in a Primary Volume Descriptor.
func (v *volumeDescriptor) volumeFlags() []byte      { return v[7:][:1] }
func (v *volumeDescriptor) systemIdentifier() []byte { return v[8:][:32] }
func (v *volumeDescriptor) volumeIdentifier() []byte { return v[40:][:32] }
func (v *volumeDescriptor) volumeSpaceSize() []byte  { return v[80:][:8] }
func (v *volumeDescriptor) escapeSequences() []byte  { return v[88:][:32] }
func (v *volumeDescriptor) volumeSetSize() []byte    { return v[120:][:4] }
func (v *volumeDescriptor) volumeSequenceNumber() []byte {
	return v[124:][:4]
}
func (v *volumeDescriptor) logicalBlockSize() []byte { return v[128:][:4] }
func (v *volumeDescriptor) pathTableSize() []byte    { return v[132:][:8] }

// locationOfTypeLPathTable and its optional copy are little-endian
// (ECMA-119 7.3.1); the Type M ones are big-endian (7.3.2).
func (v *volumeDescriptor) locationOfTypeLPathTable() []byte { return v[140:][:4] }
func (v *volumeDescriptor) locationOfOptionalTypeLPathTable() []byte {
	return v[144:][:4]
}
func (v *volumeDescriptor) locationOfTypeMPathTable() []byte { return v[148:][:4] }
func (v *volumeDescriptor) locationOfOptionalTypeMPathTable() []byte {
	return v[152:][:4]
}
func (v *volumeDescriptor) rootDirectoryRecord() dirRecord  { return dirRecord(v[156:][:34]) }
func (v *volumeDescriptor) volumeSetIdentifier() []byte     { return v[190:][:128] }
func (v *volumeDescriptor) publisherIdentifier() []byte     { return v[318:][:128] }
func (v *volumeDescriptor) dataPreparerIdentifier() []byte  { return v[446:][:128] }
func (v *volumeDescriptor) applicationIdentifier() []byte   { return v[574:][:128] }
func (v *volumeDescriptor) copyrightFileIdentifier() []byte { return v[702:][:37] }
func (v *volumeDescriptor) abstractFileIdentifier() []byte  { return v[739:][:37] }
func (v *volumeDescriptor) bibliographicFileIdentifier() []byte {
	return v[776:][:37]
}
func (v *volumeDescriptor) volumeCreationDateAndTime() decDateTime {
	return decDateTime(v[813:][:17])
}
func (v *volumeDescriptor) volumeModificationDateAndTime() decDateTime {
	return decDateTime(v[830:][:17])
}
func (v *volumeDescriptor) volumeExpirationDateAndTime() decDateTime {
	return decDateTime(v[847:][:17])
}
func (v *volumeDescriptor) volumeEffectiveDateAndTime() decDateTime {
	return decDateTime(v[864:][:17])
}
func (v *volumeDescriptor) fileStructureVersion() []byte { return v[881:][:1] }
func (v *volumeDescriptor) applicationUse() []byte       { return v[883:][:512] }

// Boot Record fields (ECMA-119 8.2, El Torito 2.0).
func (v *volumeDescriptor) bootSystemIdentifier() []byte { return v[7:][:32] }
func (v *volumeDescriptor) bootIdentifier() []byte       { return v[39:][:32] }

// bootCatalogPointer is the absolute sector of the El Torito boot
// catalogue, little-endian (El Torito 2.0, offset 47h).
func (v *volumeDescriptor) bootCatalogPointer() []byte { return v[71:][:4] }

// dirRecord is a directory record (ECMA-119 9.1): 33 fixed bytes, the
// file identifier, a padding byte when the identifier's length is even,
// and the system use area (SUSP entries under Rock Ridge).
type dirRecord []byte

func (r dirRecord) lengthOfDirectoryRecord() []byte       { return r[0:][:1] }
func (r dirRecord) extendedAttributeRecordLength() []byte { return r[1:][:1] }
func (r dirRecord) locationOfExtent() []byte              { return r[2:][:8] }
func (r dirRecord) dataLength() []byte                    { return r[10:][:8] }
func (r dirRecord) recordingDateAndTime() dirDateTime     { return dirDateTime(r[18:][:7]) }
func (r dirRecord) fileFlags() []byte                     { return r[25:][:1] }
func (r dirRecord) fileUnitSize() []byte                  { return r[26:][:1] }
func (r dirRecord) interleaveGapSize() []byte             { return r[27:][:1] }
func (r dirRecord) volumeSequenceNumber() []byte          { return r[28:][:4] }
func (r dirRecord) lengthOfFileIdentifier() []byte        { return r[32:][:1] }
func (r dirRecord) fileIdentifier() []byte                { return r[33:][:r[32]] }
func (r dirRecord) systemUse() []byte                     { return r[dirRecordLen(int(r[32]), 0):r[0]] }
func dirRecordLen(identifierLen, systemUseLen int) int {
	n := dirRecordFixedLen + identifierLen
	if identifierLen%2 == 0 {
		n++ // padding field (ECMA-119 9.1.12)
	}
	return n + systemUseLen
}

// pathTableRecord is one record of a path table (ECMA-119 9.4). The
// extent location and parent number are little-endian in a Type L table
// and big-endian in a Type M table.
type pathTableRecord []byte

func (p pathTableRecord) lengthOfDirectoryIdentifier() []byte   { return p[0:][:1] }
func (p pathTableRecord) extendedAttributeRecordLength() []byte { return p[1:][:1] }
func (p pathTableRecord) locationOfExtent() []byte              { return p[2:][:4] }
func (p pathTableRecord) parentDirectoryNumber() []byte         { return p[6:][:2] }
func (p pathTableRecord) directoryIdentifier() []byte           { return p[8:][:p[0]] }

// pathTableRecordLen is the length of a path table record whose directory
// identifier is n bytes long, with its padding byte (ECMA-119 9.4.7).
func pathTableRecordLen(n int) int { return pathRecordFixedLen + n + n%2 }

// dirDateTime is the 7-byte Recording Date and Time of a directory record
// (ECMA-119 9.1.5): years since 1900, month, day, hour, minute, second,
// and the offset from GMT in 15-minute intervals.
type dirDateTime []byte

func (d dirDateTime) yearsSince1900() []byte { return d[0:][:1] }
func (d dirDateTime) month() []byte          { return d[1:][:1] }
func (d dirDateTime) day() []byte            { return d[2:][:1] }
func (d dirDateTime) hour() []byte           { return d[3:][:1] }
func (d dirDateTime) minute() []byte         { return d[4:][:1] }
func (d dirDateTime) second() []byte         { return d[5:][:1] }
func (d dirDateTime) gmtOffset() []byte      { return d[6:][:1] }

// decDateTime is the 17-byte date and time of a volume descriptor
// (ECMA-119 8.4.26.1): sixteen ASCII digits YYYYMMDDHHMMSScc and the offset
// from GMT in 15-minute intervals. All digits '0' and offset 0 mean "not
// specified".
type decDateTime []byte

func (d decDateTime) year() []byte                { return d[0:][:4] }
func (d decDateTime) month() []byte               { return d[4:][:2] }
func (d decDateTime) day() []byte                 { return d[6:][:2] }
func (d decDateTime) hour() []byte                { return d[8:][:2] }
func (d decDateTime) minute() []byte              { return d[10:][:2] }
func (d decDateTime) second() []byte              { return d[12:][:2] }
func (d decDateTime) hundredthsOfASecond() []byte { return d[14:][:2] }
func (d decDateTime) gmtOffset() []byte           { return d[16:][:1] }

// Numerical values (ECMA-119 7.2 and 7.3): 721/731 little-endian,
// 722/732 big-endian, 723/733 both-byte orders (little first).

func put721(b []byte, v uint16) { binary.LittleEndian.PutUint16(b, v) }
func put722(b []byte, v uint16) { binary.BigEndian.PutUint16(b, v) }
func put731(b []byte, v uint32) { binary.LittleEndian.PutUint32(b, v) }
func put732(b []byte, v uint32) { binary.BigEndian.PutUint32(b, v) }

func put723(b []byte, v uint16) {
	binary.LittleEndian.PutUint16(b[0:2], v)
	binary.BigEndian.PutUint16(b[2:4], v)
}

func put733(b []byte, v uint32) {
	binary.LittleEndian.PutUint32(b[0:4], v)
	binary.BigEndian.PutUint32(b[4:8], v)
}

// get723 and get733 decode a both-byte-order value and report whether its
// two halves agree; readers take the little-endian half, as Linux's isofs
// and libisofs do, and may report the disagreement.
func get723(b []byte) (uint16, bool) {
	le := binary.LittleEndian.Uint16(b[0:2])
	return le, le == binary.BigEndian.Uint16(b[2:4])
}

func get733(b []byte) (uint32, bool) {
	le := binary.LittleEndian.Uint32(b[0:4])
	return le, le == binary.BigEndian.Uint32(b[4:8])
}

// catalogEntry is one 32-byte entry of the El Torito boot catalogue (El
// Torito 2.1 to 2.4). Its first byte tells the kind: 01h Validation Entry,
// 88h or 00h Initial/Default or Section Entry, 90h or 91h Section Header,
// 44h Section Entry Extension.
type catalogEntry [32]byte

// Validation Entry (El Torito 2.1).
func (e *catalogEntry) headerID() []byte   { return e[0:][:1] }
func (e *catalogEntry) platformID() []byte { return e[1:][:1] }
func (e *catalogEntry) idString() []byte   { return e[4:][:24] }
func (e *catalogEntry) checksumWord() []byte {
	return e[28:][:2]
}
func (e *catalogEntry) keyBytes() []byte { return e[30:][:2] }

// Initial/Default Entry (2.2) and Section Entry (2.4).
func (e *catalogEntry) bootIndicator() []byte         { return e[0:][:1] }
func (e *catalogEntry) bootMediaType() []byte         { return e[1:][:1] }
func (e *catalogEntry) loadSegment() []byte           { return e[2:][:2] }
func (e *catalogEntry) systemType() []byte            { return e[4:][:1] }
func (e *catalogEntry) sectorCount() []byte           { return e[6:][:2] }
func (e *catalogEntry) loadRBA() []byte               { return e[8:][:4] }
func (e *catalogEntry) selectionCriteriaType() []byte { return e[12:][:1] }
func (e *catalogEntry) vendorUniqueSelectionCriteria() []byte {
	return e[13:][:19]
}

// Section Header Entry (2.3).
func (e *catalogEntry) headerIndicator() []byte        { return e[0:][:1] }
func (e *catalogEntry) sectionPlatformID() []byte      { return e[1:][:1] }
func (e *catalogEntry) numberOfSectionEntries() []byte { return e[2:][:2] }
func (e *catalogEntry) sectionIDString() []byte        { return e[4:][:28] }

// El Torito catalogue values (El Torito 2.1 to 2.4).
const (
	etHeaderValidation   = 0x01
	etBootable           = 0x88
	etNotBootable        = 0x00
	etSectionHeader      = 0x90
	etSectionHeaderFinal = 0x91
	etExtension          = 0x44

	etPlatformX86 = 0x00
	etPlatformPPC = 0x01
	etPlatformMac = 0x02
	etPlatformEFI = 0xEF

	etMediaNoEmulation = 0
	etMediaFloppy12    = 1
	etMediaFloppy144   = 2
	etMediaFloppy288   = 3
	etMediaHardDisk    = 4
)

// suspEntry is one System Use Sharing Protocol entry (SUSP 4.1): a
// two-character signature, its length including these four bytes, its
// version, and data.
type suspEntry []byte

func (e suspEntry) signatureWord() []byte { return e[0:][:2] }
func (e suspEntry) length() []byte        { return e[2:][:1] }
func (e suspEntry) systemUseEntryVersion() []byte {
	return e[3:][:1]
}
func (e suspEntry) data() []byte { return e[4:e[2]] }

// suspHeaderLen is the length of an entry's signature, length and version.
const suspHeaderLen = 4

// SUSP entry signatures (SUSP 5) and RRIP entry signatures (RRIP 4.1).
const (
	sigCE = "CE" // continuation area
	sigPD = "PD" // padding
	sigSP = "SP" // SUSP indicator, first entry of the root's "." record
	sigST = "ST" // terminator
	sigER = "ER" // extensions reference
	sigES = "ES" // extension selector

	sigRR = "RR" // Rock Ridge extensions in use (RRIP 1.09, dropped in 1.12)
	sigPX = "PX" // POSIX file attributes
	sigPN = "PN" // POSIX device number
	sigSL = "SL" // symbolic link
	sigNM = "NM" // alternate name
	sigCL = "CL" // child link
	sigPL = "PL" // parent link
	sigRE = "RE" // relocated directory
	sigTF = "TF" // time stamps
	sigSF = "SF" // sparse file

	sigZF = "ZF" // zisofs compressed file (zisofs-tools, not RRIP)
	sigZ2 = "Z2" // zisofs2 compressed file, a ZF of version 2 under another name
)

// Continuation Area entry fields (SUSP 5.1), both-byte order.
func (e suspEntry) blockLocationOfContinuationArea() []byte { return e[4:][:8] }
func (e suspEntry) offsetToStartOfContinuationArea() []byte { return e[12:][:8] }
func (e suspEntry) lengthOfTheContinuationArea() []byte     { return e[20:][:8] }

// SUSP Indicator entry fields (SUSP 5.3).
func (e suspEntry) checkBytes() []byte { return e[4:][:2] }
func (e suspEntry) lenSkp() []byte     { return e[6:][:1] }

// Extensions Reference entry fields (SUSP 5.5).
func (e suspEntry) lenID() []byte               { return e[4:][:1] }
func (e suspEntry) lenDes() []byte              { return e[5:][:1] }
func (e suspEntry) lenSrc() []byte              { return e[6:][:1] }
func (e suspEntry) extVer() []byte              { return e[7:][:1] }
func (e suspEntry) extensionIdentifier() []byte { return e[8:][:e[4]] }

// POSIX File Attributes entry fields (RRIP 4.1.1), both-byte order. The
// File Serial Number is present in RRIP 1.12 entries, which are 44 bytes
// long; RRIP 1.09 entries are 36.
func (e suspEntry) posixFileMode() []byte         { return e[4:][:8] }
func (e suspEntry) posixFileLinks() []byte        { return e[12:][:8] }
func (e suspEntry) posixFileUserID() []byte       { return e[20:][:8] }
func (e suspEntry) posixFileGroupID() []byte      { return e[28:][:8] }
func (e suspEntry) posixFileSerialNumber() []byte { return e[36:][:8] }

// POSIX Device Number entry fields (RRIP 4.1.2), both-byte order.
func (e suspEntry) devTHigh() []byte { return e[4:][:8] }
func (e suspEntry) devTLow() []byte  { return e[12:][:8] }

// flags is the FLAGS byte of the SL (RRIP 4.1.3), NM (4.1.4) and TF
// (4.1.6) entries.
func (e suspEntry) flags() []byte { return e[4:][:1] }

// componentArea is the Component Area of an SL entry (RRIP 4.1.3): its
// Component Records, each a flags byte, a length byte and the content.
func (e suspEntry) componentArea() []byte { return e[5:e[2]] }

// nameContent is the Name Content of an NM entry (RRIP 4.1.4).
func (e suspEntry) nameContent() []byte { return e[5:e[2]] }

// timeStamps is the Time Stamps area of a TF entry (RRIP 4.1.6): 7-byte
// dirDateTime or, with the LONG_FORM flag, 17-byte decDateTime values.
func (e suspEntry) timeStamps() []byte { return e[5:e[2]] }

// Child Link (RRIP 4.1.5.1) and Parent Link (4.1.5.2) entry fields, both-byte
// order.
func (e suspEntry) locationOfChildDirectory() []byte  { return e[4:][:8] }
func (e suspEntry) locationOfParentDirectory() []byte { return e[4:][:8] }

// Sparse File entry fields (RRIP 1.12 4.1.7), both-byte order but the
// table depth.
func (e suspEntry) virtualFileSizeHigh() []byte { return e[4:][:8] }
func (e suspEntry) virtualFileSizeLow() []byte  { return e[12:][:8] }
func (e suspEntry) tableDepth() []byte          { return e[20:][:1] }

// zisofs entry fields (ZF, zisofs_format.txt of libisofs; 16 bytes): the
// algorithm ("pz" for zisofs, zlib), the header size in 4-byte words, the
// binary logarithm of the block size, and the uncompressed size, both-byte
// order in version 1, a little-endian 64-bit number in version 2
// (zisofs2).
func (e suspEntry) zfAlgorithm() []byte        { return e[4:][:2] }
func (e suspEntry) zfHeaderSizeDiv4() []byte   { return e[6:][:1] }
func (e suspEntry) zfLog2BlockSize() []byte    { return e[7:][:1] }
func (e suspEntry) zfUncompressedSize() []byte { return e[8:][:8] }

// The zisofs file header (zisofs_format.txt; 16 bytes): a magic number,
// the uncompressed size (7.3.1, little-endian), the header size in 4-byte
// words and the binary logarithm of the block size. The block pointers,
// 7.3.1 numbers, follow it.
type zisofsHeader []byte

func (h zisofsHeader) magic() []byte            { return h[0:][:8] }
func (h zisofsHeader) uncompressedSize() []byte { return h[8:][:4] }
func (h zisofsHeader) headerSizeDiv4() []byte   { return h[12:][:1] }
func (h zisofsHeader) log2BlockSize() []byte    { return h[13:][:1] }

// The zisofs2 file header (zisofs2_format.txt; 24 bytes): a magic
// number, the header's version (0), its size in 4-byte words, the
// algorithm (1 for zlib), the binary logarithm of the block size and the
// uncompressed size (little-endian, 64 bits). Its block pointers are
// little-endian 64-bit numbers.
func (h zisofsHeader) v2HeaderVersion() []byte    { return h[8:][:1] }
func (h zisofsHeader) v2HeaderSizeDiv4() []byte   { return h[9:][:1] }
func (h zisofsHeader) v2AlgorithmID() []byte      { return h[10:][:1] }
func (h zisofsHeader) v2Log2BlockSize() []byte    { return h[11:][:1] }
func (h zisofsHeader) v2UncompressedSize() []byte { return h[12:][:8] }

const (
	zisofsMagic      = "\x37\xe4\x53\x96\xc9\xdb\xd6\x07"
	zisofsHeaderLen  = 16
	zisofs2Magic     = "\xef\x22\x55\xa1\xbc\x1b\x95\xa0"
	zisofs2HeaderLen = 24
	zisofs2AlgZlib   = 1
)

// The partition tables makefs writes into the System Area for the boot
// images of some platforms: a master boot record's (for PReP and CHRP
// machines) and an Apple Partition Map (for Macs). Their sectors are 512
// bytes.
const (
	// partitionSectorSize is the sector size of the MBR and the APM.
	partitionSectorSize = 512
	// mbrPartitionTableOffset is the byte offset of the first partition
	// entry in the MBR, sector 0.
	mbrPartitionTableOffset = 0x1be
	// mbrSignatureOffset is the byte offset of the MBR's boot signature
	// 55h AAh.
	mbrSignatureOffset = 0x1fe
	// apmDriverDescriptorSignature ("ER") begins the Driver Descriptor
	// Record in block 0, apmPartitionSignature ("PM") each partition map
	// entry from block 1 on (Inside Macintosh: Devices, chapter 3, "SCSI
	// Manager"; Apple Technical Note 1189).
	apmDriverDescriptorSignature = 0x4552
	apmPartitionSignature        = 0x504d
)

// Partition status bits of an APM entry's pmPartStatus (Apple Technical
// Note 1189).
const (
	apmStatusValid     = 0x01
	apmStatusAllocated = 0x02
	apmStatusReadable  = 0x10
	apmStatusWritable  = 0x20
)

// MBR partition types makefs writes.
const (
	mbrTypePRePBoot = 0x41 // PReP Boot, a powerpc boot image
	mbrTypeISO9660  = 0x96 // CHRP ISO-9660 file system, the whole image
)

// mbrPartitionEntry is one 16-byte entry of an MBR's partition table.
type mbrPartitionEntry []byte

func (e mbrPartitionEntry) bootIndicator() []byte { return e[0:][:1] }
func (e mbrPartitionEntry) startingCHS() []byte   { return e[1:][:3] }
func (e mbrPartitionEntry) partitionType() []byte { return e[4:][:1] }
func (e mbrPartitionEntry) endingCHS() []byte     { return e[5:][:3] }
func (e mbrPartitionEntry) startingLBA() []byte   { return e[8:][:4] }
func (e mbrPartitionEntry) sizeInLBA() []byte     { return e[12:][:4] }

// apmDriverDescriptor is the Driver Descriptor Record (Block0) of an
// Apple Partition Map, the start of block 0; its fields are big-endian.
type apmDriverDescriptor []byte

func (d apmDriverDescriptor) sbSig() []byte      { return d[0:][:2] }
func (d apmDriverDescriptor) sbBlkSize() []byte  { return d[2:][:2] }
func (d apmDriverDescriptor) sbBlkCount() []byte { return d[4:][:4] }
func (d apmDriverDescriptor) sbDevType() []byte  { return d[8:][:2] }
func (d apmDriverDescriptor) sbDevId() []byte    { return d[10:][:2] }

// apmPartition is one partition map entry of an Apple Partition Map, one
// per block from block 1; its fields are big-endian, its names
// NUL-terminated.
type apmPartition []byte

func (p apmPartition) pmSig() []byte         { return p[0:][:2] }
func (p apmPartition) pmSigPad() []byte      { return p[2:][:2] }
func (p apmPartition) pmMapBlkCnt() []byte   { return p[4:][:4] }
func (p apmPartition) pmPyPartStart() []byte { return p[8:][:4] }
func (p apmPartition) pmPartBlkCnt() []byte  { return p[12:][:4] }
func (p apmPartition) pmPartName() []byte    { return p[16:][:32] }
func (p apmPartition) pmParType() []byte     { return p[48:][:32] }
func (p apmPartition) pmLgDataStart() []byte { return p[80:][:4] }
func (p apmPartition) pmDataCnt() []byte     { return p[84:][:4] }
func (p apmPartition) pmPartStatus() []byte  { return p[88:][:4] }
