package vhdx

import (
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/uuid"
)

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
	vhdxBATRegion         = uuid.Must("2dc27766-f623-4200-9d64-115e9bfd4a08")
	vhdxMetadataRegion    = uuid.Must("8b7ca206-4790-4b9a-b8fe-575f050f886e")
	vhdxFileParameters    = uuid.Must("caa16737-fa36-4d43-b3b6-33f0aa44e76b")
	vhdxVirtualDiskSize   = uuid.Must("2fa54224-cd1b-4876-b211-5dbed83bf4b8")
	vhdxVirtualDiskID     = uuid.Must("beca12ab-b2e6-4523-93ef-c309e000c746")
	vhdxLogicalSectorSize = uuid.Must("8141bf1d-a96f-4709-ba47-f233a8faab5f")
	vhdxPhysicalSectorSz  = uuid.Must("cda348c7-445d-4471-9cc9-e9885251c556")
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

// Format is the VHDX container, version 2 of the Virtual Hard Disk.
type Format struct{}

// Name returns vhdx.
func (Format) Name() string { return "vhdx" }

// Description returns the line mkimg's usage gives the format.
func (Format) Description() string { return "Virtual Hard Disk, version 2" }
