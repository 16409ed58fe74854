package vhd

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

// Format is the Virtual Hard Disk: dynamic (vhd), or Fixed (vhdf).
type Format struct{ Fixed bool }

// Name returns vhd, or vhdf for a fixed VHD.
func (f Format) Name() string {
	if f.Fixed {
		return "vhdf"
	}
	return "vhd"
}

// Description returns the line mkimg's usage gives the format.
func (f Format) Description() string {
	if f.Fixed {
		return "Fixed Virtual Hard Disk"
	}
	return "Virtual Hard Disk"
}
