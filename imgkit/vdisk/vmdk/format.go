package vmdk

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

// Format is the hosted sparse extent with its descriptor embedded
// (createType monolithicSparse), mkimg's vmdk.
type Format struct{}

// Name returns vmdk.
func (Format) Name() string { return "vmdk" }

// Description returns the line mkimg's usage gives the format.
func (Format) Description() string { return "Virtual Machine Disk" }

// StreamOptimized is the stream-optimized extent of zlib-compressed
// grains (createType streamOptimized), mkimg's vmdks.
type StreamOptimized struct{}

// Name returns vmdks.
func (StreamOptimized) Name() string { return "vmdks" }

// Description returns the line mkimg's usage gives the format.
func (StreamOptimized) Description() string {
	return "Virtual Machine Disk, stream-optimized (compressed)"
}
