package qcow

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

// Format is the qcow container of a Version: 1 (qcow) or 2 (qcow2,
// whose reader also opens version 3).
type Format struct{ Version uint32 }

// Name returns qcow or qcow2.
func (f Format) Name() string {
	if f.Version == 1 {
		return "qcow"
	}
	return "qcow2"
}

// Description returns the line mkimg's usage gives the format.
func (f Format) Description() string {
	if f.Version == 1 {
		return "QEMU Copy-On-Write, version 1"
	}
	return "QEMU Copy-On-Write, version 2"
}
