package mkimg

// The container formats' records and constants the tests of mkimg's
// containers check their bytes with, as imgkit/vdisk's packages define
// them (copied until those tests move to the packages).

import (
	"encoding/binary"
	"hash/crc32"
	"io"

	"github.com/fixturegen/fixturegen/imgkit/vdisk"
)

// QEMU's copy-on-write formats, as QEMU's docs/interop/qcow2.txt lays out
// version 2 (and the version 3 that shares its first 72 bytes) and QEMU's
// block/qcow.c lays out version 1; every number is big-endian. A file is
// a sequence of clusters of 2^cluster_bits bytes: cluster 0 holds the
// header, and the virtual disk is mapped through a two-level table, an L1
// table of L2 table offsets and L2 tables of data cluster offsets, each
// L2 table one cluster of 8-byte entries. Version 2 also counts the
// references to every cluster in 16-bit refcount blocks, found through a
// refcount table of block offsets.
const (
	// qcowMagic is the header's magic, "QFI\xfb".
	qcowMagic = 0x514649fb
	// qcowV1Bits and qcowV2Bits are the cluster_bits mkimg writes: 4 KiB
	// clusters for version 1, 64 KiB for version 2.
	qcowV1Bits = 12
	qcowV2Bits = 16
	// qcowV1MinBits and qcowV1MaxBits bound a version 1 header's
	// cluster_bits (512 bytes to 64 KiB), as QEMU reads one;
	// qcowV2MinBits and qcowV2MaxBits a version 2 or 3 header's (512
	// bytes to 2 MiB).
	qcowV1MinBits, qcowV1MaxBits = 9, 16
	qcowV2MinBits, qcowV2MaxBits = 9, 21
	// qcowV2MaxL1Entries is the longest L1 table QEMU opens (32 MiB of
	// entries, its QCOW_MAX_L1_SIZE); qcowV1MaxL1Entries the longest a
	// version 1 image may have (QEMU's INT_MAX / 8).
	qcowV2MaxL1Entries = 32 << 20 / 8
	qcowV1MaxL1Entries = (1<<31 - 1) / 8
	// qcowV2MaxRefcountClusters is the largest refcount table QEMU opens,
	// in clusters (8 MiB of entries, its QCOW_MAX_REFTABLE_SIZE), for the
	// 64 KiB clusters mkimg writes.
	qcowV2MaxRefcountClusters = 8 << 20 >> qcowV2Bits
	// qcowCopied is bit 63 of a version 2 L1 or L2 entry, set when the
	// cluster's refcount is exactly one ("QCOW_OFLAG_COPIED"); mkimg sets
	// it on every entry it writes.
	qcowCopied = 1 << 63
	// qcowV2Compressed is bit 62 of a version 2 or 3 L2 entry, a
	// compressed cluster; qcowV1Compressed is bit 63 of a version 1 one.
	qcowV2Compressed = 1 << 62
	qcowV1Compressed = 1 << 63
	// qcowV3Zero is bit 0 of a version 3 L2 entry: the cluster reads as
	// zeros.
	qcowV3Zero = 1
	// qcowDirty, qcowCompressionType and qcowExtendedL2 are the bits of
	// a version 3 header's incompatible_features this reader knows: the
	// refcounts may be stale (bit 0), compression_type says how clusters
	// are compressed (bit 3), and L2 entries are extended, 16 bytes with a
	// subcluster bitmap (bit 4).
	qcowDirty           = 1 << 0
	qcowCompressionType = 1 << 3
	qcowExtendedL2      = 1 << 4
	// qcowCompressionTypeOff is the byte of a version 3 header that holds
	// compression_type, when header_length reaches past it: 0 for
	// deflate (zlib's raw streams), 1 for zstd.
	qcowCompressionTypeOff = 104
	qcowCompressionZstd    = 1
	// qcowExtendedMinBits is the least cluster_bits of an image with
	// extended L2 entries (16 KiB clusters, 32 subclusters of 512 bytes).
	qcowExtendedMinBits = 14
	// qcowV2OffsetMask selects a version 2 or 3 L1 or L2 entry's host
	// offset, bits 9 to 55.
	qcowV2OffsetMask = 0x00fffffffffffe00
	// qcowV3HeaderLen is the length of a version 3 header's fixed part,
	// the least its header_length may say.
	qcowV3HeaderLen = 104
)

// qcowHeaderV1 is a version 1 header, as QEMU's block/qcow.c (QCowHeader)
// names its fields. mkimg sets magic, version, size, cluster_bits,
// l2_bits and l1_table_offset; there is no backing file, no encryption
// and no mtime. Version 1 has no l1_size: the L1 table holds one entry per
// 2^(cluster_bits+l2_bits) bytes of the disk.
type qcowHeaderV1 [48]byte

func (h *qcowHeaderV1) magic() []byte               { return h[0:4] }
func (h *qcowHeaderV1) version() []byte             { return h[4:8] }
func (h *qcowHeaderV1) backing_file_offset() []byte { return h[8:16] }
func (h *qcowHeaderV1) backing_file_size() []byte   { return h[16:20] }
func (h *qcowHeaderV1) mtime() []byte               { return h[20:24] }
func (h *qcowHeaderV1) size() []byte                { return h[24:32] }
func (h *qcowHeaderV1) cluster_bits() []byte        { return h[32:33] }
func (h *qcowHeaderV1) l2_bits() []byte             { return h[33:34] }
func (h *qcowHeaderV1) padding() []byte             { return h[34:36] }
func (h *qcowHeaderV1) crypt_method() []byte        { return h[36:40] }
func (h *qcowHeaderV1) l1_table_offset() []byte     { return h[40:48] }

// qcowHeaderV2 is a version 2 header, and the first 72 bytes of a version
// 3 one, as qcow2.txt names its fields. mkimg sets magic, version,
// cluster_bits, size, l1_size, l1_table_offset, refcount_table_offset
// and refcount_table_clusters; there is no backing file, no encryption
// and no snapshot.
type qcowHeaderV2 [72]byte

func (h *qcowHeaderV2) magic() []byte                   { return h[0:4] }
func (h *qcowHeaderV2) version() []byte                 { return h[4:8] }
func (h *qcowHeaderV2) backing_file_offset() []byte     { return h[8:16] }
func (h *qcowHeaderV2) backing_file_size() []byte       { return h[16:20] }
func (h *qcowHeaderV2) cluster_bits() []byte            { return h[20:24] }
func (h *qcowHeaderV2) size() []byte                    { return h[24:32] }
func (h *qcowHeaderV2) crypt_method() []byte            { return h[32:36] }
func (h *qcowHeaderV2) l1_size() []byte                 { return h[36:40] }
func (h *qcowHeaderV2) l1_table_offset() []byte         { return h[40:48] }
func (h *qcowHeaderV2) refcount_table_offset() []byte   { return h[48:56] }
func (h *qcowHeaderV2) refcount_table_clusters() []byte { return h[56:60] }
func (h *qcowHeaderV2) nb_snapshots() []byte            { return h[60:64] }
func (h *qcowHeaderV2) snapshots_offset() []byte        { return h[64:72] }

// qcowHeaderV3 is the part of a version 3 header after its first 72
// bytes that a reader must check, as qcow2.txt names the fields: feature
// bits a reader must understand (incompatible_features) and the header's
// length.
type qcowHeaderV3 [qcowV3HeaderLen]byte

func (h *qcowHeaderV3) incompatible_features() []byte { return h[72:80] }
func (h *qcowHeaderV3) compatible_features() []byte   { return h[80:88] }
func (h *qcowHeaderV3) autoclear_features() []byte    { return h[88:96] }
func (h *qcowHeaderV3) refcount_order() []byte        { return h[96:100] }
func (h *qcowHeaderV3) header_length() []byte         { return h[100:104] }

// The Virtual Hard Disk's records, as Microsoft's "Virtual Hard Disk Image
// Format Specification" (version 1.0, 2006) lays them out; every number is
// big-endian. A fixed disk is the raw disk followed by the hard disk
// footer. A dynamic disk is a copy of the footer, the dynamic disk header,
// the block allocation table (BAT), the data blocks (each a sector bitmap
// and the block's sectors) and the footer.
const (
	// vhdSectorSize is the unit of the BAT's offsets and of the bitmaps.
	vhdSectorSize = 512
	// vhdBlockSize is the block size mkimg writes: 2 MiB.
	vhdBlockSize = 4096 * vhdSectorSize
	// vhdFooterCookie and vhdHeaderCookie are the footer's and the
	// dynamic header's Cookie.
	vhdFooterCookie = "conectix"
	vhdHeaderCookie = "cxsparse"
	// vhdFeaturesReserved is the Features bit the specification requires
	// set in every footer.
	vhdFeaturesReserved = 0x00000002
	// vhdVersion is the File Format Version and the dynamic header's
	// Header Version, 1.0.
	vhdVersion = 0x00010000
	// vhdCreatorApplication is mkimg's Creator Application, "*img";
	// vhdCreatorVersion its Creator Version, 2.0; vhdCreatorHostOS the
	// Creator Host OS it claims, "Wi2k".
	vhdCreatorApplication = "*img"
	vhdCreatorVersion     = 0x00020000
	vhdCreatorHostOS      = "Wi2k"
	// The Disk Type values.
	vhdDiskTypeFixed        = 2
	vhdDiskTypeDynamic      = 3
	vhdDiskTypeDifferencing = 4
	// vhdEpoch is the Time Stamp's zero, 2000-01-01 00:00:00 UTC, in
	// seconds since the Unix epoch.
	vhdEpoch = 946684800
	// vhdTestTimeStamp is the Time Stamp mkimg -y writes.
	vhdTestTimeStamp = 0x01234567
	// vhdUnusedEntry is a BAT entry of a block not in the file.
	vhdUnusedEntry = 0xffffffff
)

// vhdFooter is the hard disk footer, the last 512 bytes of every VHD (and
// the first of a dynamic one). Disk Geometry is cylinders (2 bytes),
// heads and sectors per track (1 byte each). Checksum is the one's
// complement of the sum of the footer's bytes with Checksum zero.
type vhdFooter [512]byte

func (f *vhdFooter) cookie() []byte             { return f[0:8] }
func (f *vhdFooter) features() []byte           { return f[8:12] }
func (f *vhdFooter) fileFormatVersion() []byte  { return f[12:16] }
func (f *vhdFooter) dataOffset() []byte         { return f[16:24] }
func (f *vhdFooter) timeStamp() []byte          { return f[24:28] }
func (f *vhdFooter) creatorApplication() []byte { return f[28:32] }
func (f *vhdFooter) creatorVersion() []byte     { return f[32:36] }
func (f *vhdFooter) creatorHostOS() []byte      { return f[36:40] }
func (f *vhdFooter) originalSize() []byte       { return f[40:48] }
func (f *vhdFooter) currentSize() []byte        { return f[48:56] }
func (f *vhdFooter) diskGeometry() []byte       { return f[56:60] }
func (f *vhdFooter) diskType() []byte           { return f[60:64] }
func (f *vhdFooter) checksum() []byte           { return f[64:68] }
func (f *vhdFooter) uniqueId() []byte           { return f[68:84] }
func (f *vhdFooter) savedState() []byte         { return f[84:85] }

// vhdDynamicHeader is the dynamic disk header, 1024 bytes at the footer
// copy's Data Offset. Data Offset is unused (all ones); Table Offset is
// the BAT's byte offset. The parent fields, for differencing disks, stay
// zero in what mkimg writes. Checksum is computed as the footer's.
type vhdDynamicHeader [1024]byte

func (h *vhdDynamicHeader) cookie() []byte               { return h[0:8] }
func (h *vhdDynamicHeader) dataOffset() []byte           { return h[8:16] }
func (h *vhdDynamicHeader) tableOffset() []byte          { return h[16:24] }
func (h *vhdDynamicHeader) headerVersion() []byte        { return h[24:28] }
func (h *vhdDynamicHeader) maxTableEntries() []byte      { return h[28:32] }
func (h *vhdDynamicHeader) blockSize() []byte            { return h[32:36] }
func (h *vhdDynamicHeader) checksum() []byte             { return h[36:40] }
func (h *vhdDynamicHeader) parentUniqueId() []byte       { return h[40:56] }
func (h *vhdDynamicHeader) parentTimeStamp() []byte      { return h[56:60] }
func (h *vhdDynamicHeader) parentUnicodeName() []byte    { return h[64:576] }
func (h *vhdDynamicHeader) parentLocatorEntries() []byte { return h[576:768] }

// vhdChecksum is the footer's and the dynamic header's Checksum of b, a
// record whose Checksum field is zero.
func vhdChecksum(b []byte) uint32 {
	var sum uint32
	for _, c := range b {
		sum += uint32(c)
	}
	return ^sum
}

// The VHDX records, as Microsoft's "VHDX Format Specification" (version
// 1.00, [MS-VHDX]) lays them out; every number is little-endian and every
// checksum CRC-32C (Castagnoli) over the record with its checksum zero.
// The header section's first MiB holds the file type identifier (at 0),
// two headers (at 64 KiB and 128 KiB) and two copies of the region table
// (at 192 KiB and 256 KiB); the regions it lists (the BAT and the
// metadata) and the log follow, then the payload blocks.
const (
	// vhdxSignature is the file type identifier's Signature, "vhdxfile";
	// vhdxHeaderSignature a header's, "head"; vhdxRegionSignature the
	// region table's, "regi"; vhdxMetadataSignature the metadata table's,
	// "metadata".
	vhdxSignature         = "vhdxfile"
	vhdxHeaderSignature   = "head"
	vhdxRegionSignature   = "regi"
	vhdxMetadataSignature = "metadata"
	// vhdxBlockSize is the payload block size mkimg writes: 16 MiB.
	vhdxBlockSize = 16 << 20
	// vhdxMiB is the unit of the BAT's file offsets and of the sections.
	vhdxMiB = 1 << 20
	// vhdx64K is the size of the identifier's, each header's and each
	// region table's slot.
	vhdx64K = 64 << 10
	// The offsets of the headers, region tables, log, metadata and BAT in
	// what mkimg writes.
	vhdxHeader1Offset      = 1 * vhdx64K
	vhdxHeader2Offset      = 2 * vhdx64K
	vhdxRegionTableOffset  = 3 * vhdx64K
	vhdxRegionTable2Offset = 4 * vhdx64K
	vhdxLogOffset          = 1 * vhdxMiB
	vhdxMetadataOffset     = 2 * vhdxMiB
	vhdxBATOffset          = 3 * vhdxMiB
	// vhdxHeaderSize is the bytes of a header its Checksum covers.
	vhdxHeaderSize = 4096
	// The metadata entries' flags: IsVirtualDisk and IsRequired.
	vhdxMetaIsVirtualDisk = 1 << 1
	vhdxMetaIsRequired    = 1 << 2
	// The BAT's payload block states the reader knows.
	vhdxPayloadNotPresent       = 0
	vhdxPayloadUndefined        = 1
	vhdxPayloadZero             = 2
	vhdxPayloadUnmapped         = 3
	vhdxPayloadFullyPresent     = 6
	vhdxPayloadPartiallyPresent = 7
	// vhdxMaxSize is the largest virtual disk the specification allows,
	// 64 TiB.
	vhdxMaxSize = 64 << 40
	// vhdxFileParametersHasParent is File Parameters' HasParent flag.
	vhdxFileParametersHasParent = 1 << 1
)

// The region and metadata item GUIDs the specification gives.
var (
	vhdxBATRegion         = mustGUID("2dc27766-f623-4200-9d64-115e9bfd4a08")
	vhdxMetadataRegion    = mustGUID("8b7ca206-4790-4b9a-b8fe-575f050f886e")
	vhdxFileParameters    = mustGUID("caa16737-fa36-4d43-b3b6-33f0aa44e76b")
	vhdxVirtualDiskSize   = mustGUID("2fa54224-cd1b-4876-b211-5dbed83bf4b8")
	vhdxVirtualDiskID     = mustGUID("beca12ab-b2e6-4523-93ef-c309e000c746")
	vhdxLogicalSectorSize = mustGUID("8141bf1d-a96f-4709-ba47-f233a8faab5f")
	vhdxPhysicalSectorSz  = mustGUID("cda348c7-445d-4471-9cc9-e9885251c556")
)

// vhdxFileTypeIdentifier is the file's first record: the Signature and
// the Creator, a UTF-16 string mkimg leaves empty.
type vhdxFileTypeIdentifier [520]byte

func (f *vhdxFileTypeIdentifier) signature() []byte { return f[0:8] }
func (f *vhdxFileTypeIdentifier) creator() []byte   { return f[8:520] }

// vhdxHeader is one of the two headers; the one with the greater
// SequenceNumber is current. mkimg leaves the three GUIDs zero (no log
// to replay) and puts the log at 1 MiB.
type vhdxHeader [vhdxHeaderSize]byte

func (h *vhdxHeader) signature() []byte      { return h[0:4] }
func (h *vhdxHeader) checksum() []byte       { return h[4:8] }
func (h *vhdxHeader) sequenceNumber() []byte { return h[8:16] }
func (h *vhdxHeader) fileWriteGuid() []byte  { return h[16:32] }
func (h *vhdxHeader) dataWriteGuid() []byte  { return h[32:48] }
func (h *vhdxHeader) logGuid() []byte        { return h[48:64] }
func (h *vhdxHeader) logVersion() []byte     { return h[64:66] }
func (h *vhdxHeader) version() []byte        { return h[66:68] }
func (h *vhdxHeader) logLength() []byte      { return h[68:72] }
func (h *vhdxHeader) logOffset() []byte      { return h[72:80] }

// vhdxRegionTable is a region table, 64 KiB whose Checksum covers all of
// it: a 16-byte header and EntryCount entries of 32 bytes.
type vhdxRegionTable [vhdx64K]byte

func (t *vhdxRegionTable) signature() []byte  { return t[0:4] }
func (t *vhdxRegionTable) checksum() []byte   { return t[4:8] }
func (t *vhdxRegionTable) entryCount() []byte { return t[8:12] }

// entry returns the i'th region table entry (i below 2047).
func (t *vhdxRegionTable) entry(i int) *vhdxRegionEntry {
	return (*vhdxRegionEntry)(t[16+32*i : 48+32*i])
}

// vhdxRegionEntry is one region: its GUID, where it is and how long, and
// whether a reader must know it (mkimg writes Required as 0).
type vhdxRegionEntry [32]byte

func (e *vhdxRegionEntry) guid() []byte       { return e[0:16] }
func (e *vhdxRegionEntry) fileOffset() []byte { return e[16:24] }
func (e *vhdxRegionEntry) length() []byte     { return e[24:28] }
func (e *vhdxRegionEntry) required() []byte   { return e[28:32] }

// vhdxMetadataTable is the metadata region's first 64 KiB: a 32-byte
// header and EntryCount entries of 32 bytes; the items' data follows it
// in the region.
type vhdxMetadataTable [vhdx64K]byte

func (t *vhdxMetadataTable) signature() []byte  { return t[0:8] }
func (t *vhdxMetadataTable) entryCount() []byte { return t[10:12] }

// entry returns the i'th metadata table entry (i below 2047).
func (t *vhdxMetadataTable) entry(i int) *vhdxMetadataEntry {
	return (*vhdxMetadataEntry)(t[32+32*i : 64+32*i])
}

// vhdxMetadataEntry is one metadata item: its ItemId, where its data is
// in the region (Offset) and how long, and its flags.
type vhdxMetadataEntry [32]byte

func (e *vhdxMetadataEntry) itemId() []byte { return e[0:16] }
func (e *vhdxMetadataEntry) offset() []byte { return e[16:20] }
func (e *vhdxMetadataEntry) length() []byte { return e[20:24] }
func (e *vhdxMetadataEntry) flags() []byte  { return e[24:28] }

// Sizes and values fixed by VMware's Virtual Disk Format 1.1 (the hosted
// sparse extent and the stream-optimized extent) and by the choices
// FreeBSD's mkimg makes within it (vmdk.c).
const (
	// vmdkSectorSize is the VMDK sector, the unit of every offset and
	// size in the extent, whatever the disk's logical sector size.
	vmdkSectorSize = 512
	// vmdkMagic is magicNumber, "KDMV" read as a little-endian uint32.
	vmdkMagic = 0x564d444b
	// vmdkVersion is the version of a hosted sparse extent mkimg writes
	// (vmdk); vmdkVersionStream that of a stream-optimized one (vmdks).
	vmdkVersion, vmdkVersionStream = 1, 3
	// The flags bits: the newline test is valid, the redundant grain
	// directory is used, grains are compressed, and markers are present.
	vmdkFlagNLTest, vmdkFlagRGDUsed = 1 << 0, 1 << 1
	vmdkFlagZeroedGTE               = 1 << 2
	vmdkFlagCompressed              = 1 << 16
	vmdkFlagMarkers                 = 1 << 17
	// vmdkNGTEs is numGTEsPerGT, the entries of one grain table; one
	// table is vmdkGTSectors sectors.
	vmdkNGTEs     = 512
	vmdkGTSectors = vmdkNGTEs * 4 / vmdkSectorSize
	// vmdkGDAtEnd is the gdOffset of a stream-optimized header: the
	// grain directory's place is in the footer.
	vmdkGDAtEnd = 0xffffffffffffffff
	// vmdkNLTest are the four newline-test characters, singleEndLineChar
	// to doubleEndLineChar2, as they sit in the header.
	vmdkNLTest = "\n \r\n"
	// vmdkCompressDeflate is compressAlgorithm for zlib (RFC 1950)
	// streams of deflate data.
	vmdkCompressDeflate = 1
	// vmdkImageRound is what mkimg rounds a VMDK disk up to, in bytes.
	vmdkImageRound = 1 << 20
	// vmdkMinGrainSize is the least grain of a hosted sparse extent, in
	// bytes (mkimg takes the physical block size when it is larger);
	// vmdkStreamGrainSize is the grain of a stream-optimized one (or the
	// sector size when that is larger).
	vmdkMinGrainSize, vmdkStreamGrainSize = 8192, 65536
	// vmdkGrainMarkerSize is the bytes of a grain marker before its
	// compressed data.
	vmdkGrainMarkerSize = 12
	// The type of a metadata marker: end of stream, grain table, grain
	// directory, footer.
	vmdkMarkerEOS, vmdkMarkerGT, vmdkMarkerGD, vmdkMarkerFooter = 0, 1, 2, 3
)

// vmdkHeader is the SparseExtentHeader (Virtual Disk Format 1.1, "Hosted
// Sparse Extent Header"), one sector at the start of the extent and, for
// a stream-optimized extent, again as the footer. The pad after
// compressAlgorithm stays zero.
type vmdkHeader [vmdkSectorSize]byte

func (h *vmdkHeader) magicNumber() []byte        { return h[0:4] }
func (h *vmdkHeader) version() []byte            { return h[4:8] }
func (h *vmdkHeader) flags() []byte              { return h[8:12] }
func (h *vmdkHeader) capacity() []byte           { return h[12:20] }
func (h *vmdkHeader) grainSize() []byte          { return h[20:28] }
func (h *vmdkHeader) descriptorOffset() []byte   { return h[28:36] }
func (h *vmdkHeader) descriptorSize() []byte     { return h[36:44] }
func (h *vmdkHeader) numGTEsPerGT() []byte       { return h[44:48] }
func (h *vmdkHeader) rgdOffset() []byte          { return h[48:56] }
func (h *vmdkHeader) gdOffset() []byte           { return h[56:64] }
func (h *vmdkHeader) overHead() []byte           { return h[64:72] }
func (h *vmdkHeader) uncleanShutdown() []byte    { return h[72:73] }
func (h *vmdkHeader) singleEndLineChar() []byte  { return h[73:74] }
func (h *vmdkHeader) nonEndLineChar() []byte     { return h[74:75] }
func (h *vmdkHeader) doubleEndLineChar1() []byte { return h[75:76] }
func (h *vmdkHeader) doubleEndLineChar2() []byte { return h[76:77] }
func (h *vmdkHeader) compressAlgorithm() []byte  { return h[77:79] }

// vmdkGrainMarker is the GrainMarker before each grain of a
// stream-optimized extent (Virtual Disk Format 1.1, "Stream-Optimized
// Compressed Sparse Extents"): the grain's first sector on the disk and
// the size of the compressed data that follows it.
type vmdkGrainMarker [vmdkGrainMarkerSize]byte

func (m *vmdkGrainMarker) lba() []byte  { return m[0:8] }
func (m *vmdkGrainMarker) size() []byte { return m[8:12] }

// vmdkMetadataMarker is the sector before each piece of metadata of a
// stream-optimized extent (a grain table, the grain directory, the
// footer), saying its size in sectors and its type; a sector of zeros
// (type EOS) ends the stream. size is always zero, which tells it from a
// grain marker.
type vmdkMetadataMarker [vmdkSectorSize]byte

func (m *vmdkMetadataMarker) numSectors() []byte { return m[0:8] }
func (m *vmdkMetadataMarker) size() []byte       { return m[8:12] }
func (m *vmdkMetadataMarker) markerType() []byte { return m[12:16] }

// castagnoli is the CRC-32C table VHDX's checksums use.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// The limits the writers put on a disk.
const (
	vhdMaxSize       = 0xff000000 * vhdSectorSize
	vhdMaxCHSSectors = 65535 * 16 * 255
	// qcowInflatedClusters and vmdkProbeBytes are the readers' and
	// writers' cache and probe sizes the tests reach past.
	qcowInflatedClusters = 4
	vmdkProbeBytes       = 4096
)

// qcowBits returns the cluster_bits mkimg writes for a version.
func qcowBits(version uint32) uint {
	if version == 1 {
		return qcowV1Bits
	}
	return qcowV2Bits
}

// openWith opens the virtual disk of the container in r as f reads it.
func openWith(f vdisk.Opener, r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	c, err := f.Open(r, size)
	if err != nil {
		return nil, 0, err
	}
	return c, c.Size(), nil
}

func openQCOW(r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	return openWith(containers[1], r, size)
}
func vhdOpen(r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	return openWith(containers[2], r, size)
}
func vhdxOpen(r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	return openWith(containers[4], r, size)
}
func openVMDK(r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	return openWith(containers[5], r, size)
}
func openVMDKDescriptor(r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	return openWith(readOnlyContainers[0], r, size)
}

var _ = binary.LittleEndian

func vhdxHeaders() (*vhdxHeader, *vhdxHeader) {
	var hs [2]vhdxHeader
	le := binary.LittleEndian
	for i := range hs {
		h := &hs[i]
		copy(h.signature(), vhdxHeaderSignature)
		le.PutUint64(h.sequenceNumber(), uint64(i))
		le.PutUint16(h.version(), 1)
		le.PutUint32(h.logLength(), vhdxMiB)
		le.PutUint64(h.logOffset(), vhdxLogOffset)
		le.PutUint32(h.checksum(), crc32.Checksum(h[:], castagnoli))
	}
	return &hs[0], &hs[1]
}
func vhdCommandLineGeometry(heads, track uint64) bool {
	return heads > 1 && heads < 256 && track > 1 && track < 256
}
func vhdRoundCHS(size, heads, track uint64) uint64 {
	if vhdCommandLineGeometry(heads, track) {
		cyl := size / vhdSectorSize / (heads * track)
		if (size/vhdSectorSize)%(heads*track) != 0 {
			cyl++
		}
		if cyl <= 65535 {
			return cyl * heads * track * vhdSectorSize
		}
	}
	if size > vhdMaxCHSSectors*vhdSectorSize {
		return size
	}
	newsz := size
	for range 1 << 20 {
		c, h, s := vhdStandardGeometry(newsz / vhdSectorSize)
		newsz = c * h * s * vhdSectorSize
		if newsz >= size {
			return newsz
		}
		newsz += h * s * vhdSectorSize
	}
	return size // not reached: the loop ends within a few rounds
}
func vhdStandardGeometry(sectors uint64) (cyl, heads, track uint64) {
	sectors = min(sectors, 65536*16*255)
	if sectors >= 65535*16*63 {
		return min(sectors/(16*255), 65535), 16, 255
	}
	track = 17
	cth := sectors / 17
	heads = uint64(uint8((cth + 1023) / 1024))
	heads = max(heads, 4)
	if cth >= heads*1024 || heads > 16 {
		heads, track = 16, 31
		cth = sectors / 31
	}
	if cth >= heads*1024 {
		heads, track = 16, 63
		cth = sectors / 63
	}
	return cth / heads, heads, track
}
