package vmdk

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/verr"
	"io"
	"math"
	"sync"
)

// Bounds the VMDK reader puts on a header before it trusts it.
const (
	// vmdkMaxGrain is the largest grain read, in VMDK sectors (64 MiB):
	// mkimg's grain is the physical block size, and -P takes no more.
	vmdkMaxGrain = 1 << 17
	// vmdkMaxGTEs is the most entries per grain table read; VMware's
	// extents and mkimg's have vmdkNGTEs.
	vmdkMaxGTEs = 1 << 13
	// vmdkCachedTables is the most grain tables kept at once (the cache
	// starts over past it): 1024 tables of 512 entries cover 32 GiB of
	// 64 KiB grains in 2 MiB, and crafted tables take at most 32 MiB.
	vmdkCachedTables = 1024
)

// vmdkMatch reports whether head begins the hosted sparse format (stream
// false) or the stream-optimized one (true): a VMDK sparse extent header
// whose version, flags or compression say which.
func vmdkMatch(head []byte, stream bool) bool {
	if len(head) < vmdkSectorSize {
		return false
	}
	h := (*vmdkHeader)(head[:vmdkSectorSize])
	if binary.LittleEndian.Uint32(h.magicNumber()) != vmdkMagic {
		return false
	}
	return vmdkIsStream(h) == stream
}

// Match reports whether head begins a hosted sparse extent.
func (Format) Match(head []byte) bool { return vmdkMatch(head, false) }

// Match reports whether head begins a stream-optimized extent.
func (StreamOptimized) Match(head []byte) bool { return vmdkMatch(head, true) }

// Open opens the disk a sparse extent of size bytes in r holds, of
// either format.
func (Format) Open(r io.ReaderAt, size int64) (vdisk.Reader, error) { return open(r, size) }

// Open opens the disk a sparse extent of size bytes in r holds, of
// either format.
func (StreamOptimized) Open(r io.ReaderAt, size int64) (vdisk.Reader, error) { return open(r, size) }

// open is both formats' Open.
func open(r io.ReaderAt, size int64) (vdisk.Reader, error) {
	d, _, err := openVMDK(r, size)
	if err != nil {
		return nil, err
	}
	return d.(*vmdkDisk), nil
}

// Size returns the disk's size in bytes.
func (d *vmdkDisk) Size() int64 { return d.size }

// Fields returns the header's fields (fields.go).
func (d *vmdkDisk) Fields() []describe.Field { return vmdkFields(d.head[:]) }

// Close does nothing: the disk holds no file of its own.
func (d *vmdkDisk) Close() error { return nil }

// vmdkIsStream reports whether h is a stream-optimized extent's header:
// version 3, or compressed grains.
func vmdkIsStream(h *vmdkHeader) bool {
	return binary.LittleEndian.Uint32(h.version()) == vmdkVersionStream ||
		binary.LittleEndian.Uint32(h.flags())&vmdkFlagCompressed != 0
}

// vmdkDisk is the raw disk a VMDK sparse extent holds, read through its
// grain directory and tables. Grain tables are read when first needed
// and kept, keyed by their sector, up to vmdkCachedTables of them; the
// last compressed grain read is kept inflated.
type vmdkDisk struct {
	r          io.ReaderAt
	fileSize   int64
	size       int64 // the disk's bytes, capacity sectors
	grainBytes int64
	ngtes      int64
	gdAt       int64 // the grain directory's byte
	gd         []uint32
	compressed bool
	zeroedGTE  bool // a grain table entry of 1 is a grain of zeros

	mu        sync.Mutex
	tables    map[uint32][]uint32
	lastGrain int64 // -1 for none
	last      []byte
	head      vmdkHeader // the header, for Fields
}

// openVMDK is the open hook of both VMDK formats: it checks the header
// (and the footer of a stream-optimized extent whose grain directory is at
// its end), reads the grain directory, and returns the disk. Everything
// it reads is bounded by the file's size.
func openVMDK(r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	h, err := readVMDKHeader(r, size, 0)
	if err != nil {
		return nil, 0, err
	}
	le32, le64 := binary.LittleEndian.Uint32, binary.LittleEndian.Uint64
	capacity, grain, ngtes := le64(h.capacity()), le64(h.grainSize()), uint64(le32(h.numGTEsPerGT()))
	switch {
	case capacity > math.MaxInt64/vmdkSectorSize:
		return nil, 0, vmdkErr(verr.At(h[:], h.capacity()), "capacity", "capacity of %d sectors is too large", capacity)
	case grain == 0 || grain > vmdkMaxGrain:
		return nil, 0, vmdkErr(verr.At(h[:], h.grainSize()), "grainSize", "grain of %d sectors; want 1 to %d", grain, vmdkMaxGrain)
	case ngtes == 0 || ngtes > vmdkMaxGTEs:
		return nil, 0, vmdkErr(verr.At(h[:], h.numGTEsPerGT()), "numGTEsPerGT", "%d entries per grain table; want 1 to %d", ngtes, vmdkMaxGTEs)
	}
	flags := le32(h.flags())
	compress := binary.LittleEndian.Uint16(h.compressAlgorithm())
	d := &vmdkDisk{r: r, fileSize: size, size: int64(capacity) * vmdkSectorSize, grainBytes: int64(grain) * vmdkSectorSize,
		ngtes: int64(ngtes), zeroedGTE: flags&vmdkFlagZeroedGTE != 0, tables: map[uint32][]uint32{}, lastGrain: -1, head: *h}
	switch {
	case flags&vmdkFlagCompressed == 0:
	case compress == vmdkCompressDeflate:
		d.compressed = true
	default:
		return nil, 0, vmdkErr(verr.At(h[:], h.compressAlgorithm()), "compressAlgorithm", "compressAlgorithm %d; only deflate (1) is read", compress)
	}
	gdOffset, gdField := le64(h.gdOffset()), verr.At(h[:], h.gdOffset())
	if gdOffset == vmdkGDAtEnd {
		// The footer: the second-to-last sector, before the end-of-stream marker.
		f, err := readVMDKHeader(r, size, size-2*vmdkSectorSize)
		if err != nil {
			return nil, 0, fmt.Errorf("footer: %w", err)
		}
		gdField = size - 2*vmdkSectorSize + verr.At(f[:], f.gdOffset())
		if gdOffset = le64(f.gdOffset()); gdOffset == vmdkGDAtEnd {
			return nil, 0, vmdkErr(gdField, "gdOffset", "footer has no grain directory offset")
		}
	}
	grains := (capacity + grain - 1) / grain
	tables := (grains + ngtes - 1) / ngtes
	if gdOffset > uint64(size)/vmdkSectorSize || tables*4 > uint64(size)-gdOffset*vmdkSectorSize {
		return nil, 0, vmdkErr(gdField, "gdOffset", "grain directory of %d entries at sector %d is past the file's %d bytes", tables, gdOffset, size)
	}
	raw := make([]byte, tables*4)
	if _, err := r.ReadAt(raw, int64(gdOffset)*vmdkSectorSize); err != nil {
		return nil, 0, fmt.Errorf("reading the grain directory: %w", err)
	}
	d.gdAt = int64(gdOffset) * vmdkSectorSize
	d.gd = make([]uint32, tables)
	for i := range d.gd {
		d.gd[i] = le32(raw[4*i:])
	}
	return d, d.size, nil
}

// vmdkErr returns the *imgfmt.FormatError of the VMDK structure at byte
// off (-1: none) whose field, as VMware's Virtual Disk Format 5.0 names
// it, is field.
func vmdkErr(off int64, field, format string, args ...any) error {
	return verr.Container(nil, "vmdk", off, field, format, args...)
}

// gteAt returns the byte of grain's entry in its grain table.
func (d *vmdkDisk) gteAt(grain int64) int64 {
	return int64(d.gd[grain/d.ngtes])*vmdkSectorSize + 4*(grain%d.ngtes)
}

// readVMDKHeader reads the sparse extent header at off and checks its
// magic number and version.
func readVMDKHeader(r io.ReaderAt, size, off int64) (*vmdkHeader, error) {
	if off < 0 || size-off < vmdkSectorSize {
		return nil, vmdkErr(-1, "", "file of %d bytes is too short for a header at byte %#x", size, off)
	}
	var h vmdkHeader
	if _, err := r.ReadAt(h[:], off); err != nil {
		return nil, fmt.Errorf("reading the header at byte %#x: %w", off, err)
	}
	if m := binary.LittleEndian.Uint32(h.magicNumber()); m != vmdkMagic {
		return nil, vmdkErr(off+verr.At(h[:], h.magicNumber()), "magicNumber", "magic number %#x at byte %#x; want %#x", m, off, vmdkMagic)
	}
	if v := binary.LittleEndian.Uint32(h.version()); v < 1 || v > 3 {
		return nil, vmdkErr(off+verr.At(h[:], h.version()), "version", "version %d; want 1 to 3", v)
	}
	return &h, nil
}

// ReadAt reads the disk's bytes at off, grain by grain: a grain the
// tables do not allocate reads as zeros.
func (d *vmdkDisk) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("vmdk: negative offset %d", off)
	}
	n := 0
	for n < len(p) {
		if off >= d.size {
			return n, io.EOF
		}
		grain, in := off/d.grainBytes, off%d.grainBytes
		m := int(min(int64(len(p)-n), d.grainBytes-in, d.size-off))
		if err := d.readGrain(p[n:n+m], grain, in); err != nil {
			return n, err
		}
		n += m
		off += int64(m)
	}
	return n, nil
}

// readGrain fills p with the bytes of grain from byte in of it.
func (d *vmdkDisk) readGrain(p []byte, grain, in int64) error {
	sector, err := d.entry(grain)
	if err != nil {
		return err
	}
	if sector == 0 || sector == 1 && d.zeroedGTE {
		clear(p)
		return nil
	}
	if !d.compressed {
		pos := int64(sector)*vmdkSectorSize + in
		if pos+int64(len(p)) > d.fileSize {
			return vmdkErr(d.gteAt(grain), "", "vmdk: grain %d at sector %d is past the file's end", grain, sector)
		}
		if _, err := d.r.ReadAt(p, pos); err != nil {
			return fmt.Errorf("vmdk: reading grain %d: %w", grain, err)
		}
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lastGrain != grain {
		d.lastGrain = -1
		if d.last, err = d.inflate(grain, sector, d.last[:0]); err != nil {
			return err
		}
		d.lastGrain = grain
	}
	clear(p)
	if in < int64(len(d.last)) {
		copy(p, d.last[in:])
	}
	return nil
}

// entry returns the sector the grain tables give grain, 0 for none.
func (d *vmdkDisk) entry(grain int64) (uint32, error) {
	t := grain / d.ngtes
	if t >= int64(len(d.gd)) || d.gd[t] == 0 {
		return 0, nil
	}
	sector := d.gd[t]
	d.mu.Lock()
	defer d.mu.Unlock()
	gt, ok := d.tables[sector]
	if !ok {
		pos := int64(sector) * vmdkSectorSize
		if pos+4*d.ngtes > d.fileSize {
			return 0, vmdkErr(d.gdAt+4*t, "", "vmdk: grain table %d at sector %d is past the file's end", t, sector)
		}
		raw := make([]byte, 4*d.ngtes)
		if _, err := d.r.ReadAt(raw, pos); err != nil {
			return 0, fmt.Errorf("vmdk: reading grain table %d: %w", t, err)
		}
		gt = make([]uint32, d.ngtes)
		for i := range gt {
			gt[i] = binary.LittleEndian.Uint32(raw[4*i:])
		}
		if len(d.tables) >= vmdkCachedTables {
			clear(d.tables)
		}
		d.tables[sector] = gt
	}
	return gt[grain%d.ngtes], nil
}

// inflate reads the compressed grain at sector (its marker, then its
// zlib stream) into buf and returns it; the stream may inflate to no
// more than a grain, and its marker must name the grain.
func (d *vmdkDisk) inflate(grain int64, sector uint32, buf []byte) ([]byte, error) {
	pos := int64(sector) * vmdkSectorSize
	var m vmdkGrainMarker
	if pos+vmdkGrainMarkerSize > d.fileSize {
		return nil, vmdkErr(d.gteAt(grain), "", "vmdk: grain %d at sector %d is past the file's end", grain, sector)
	}
	if _, err := d.r.ReadAt(m[:], pos); err != nil {
		return nil, fmt.Errorf("vmdk: reading grain %d: %w", grain, err)
	}
	grainSectors := d.grainBytes / vmdkSectorSize
	if lba := binary.LittleEndian.Uint64(m.lba()); lba != uint64(grain*grainSectors) {
		return nil, vmdkErr(pos+verr.At(m[:], m.lba()), "lba", "vmdk: grain %d's marker says sector %d, want %d", grain, lba, grain*grainSectors)
	}
	n := int64(binary.LittleEndian.Uint32(m.size()))
	if n > d.fileSize-pos-vmdkGrainMarkerSize {
		return nil, vmdkErr(pos+verr.At(m[:], m.size()), "size", "vmdk: grain %d's %d compressed bytes are past the file's end", grain, n)
	}
	zr, err := zlib.NewReader(io.NewSectionReader(d.r, pos+vmdkGrainMarkerSize, n))
	if err != nil {
		return nil, vmdkErr(pos+vmdkGrainMarkerSize, "", "vmdk: grain %d: %v", grain, err)
	}
	b := bytes.NewBuffer(buf)
	if _, err := b.ReadFrom(io.LimitReader(zr, d.grainBytes+1)); err != nil {
		return nil, vmdkErr(pos+vmdkGrainMarkerSize, "", "vmdk: grain %d: %v", grain, err)
	}
	if int64(b.Len()) > d.grainBytes {
		return nil, vmdkErr(pos+vmdkGrainMarkerSize, "", "vmdk: grain %d inflates past its %d bytes", grain, d.grainBytes)
	}
	return b.Bytes(), nil
}
