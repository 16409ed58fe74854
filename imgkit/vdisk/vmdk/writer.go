package vmdk

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"io"
	"math"
	"os"
	"slices"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// vmdkDescriptorFormat is the embedded descriptor mkimg writes, with the
// version, CID, createType, the extent's size in VMDK sectors, the
// geometry and a last line of extra text to fill in.
const vmdkDescriptorFormat = "# Disk DescriptorFile\n" +
	"version=1\n" +
	"CID=%08x\n" +
	"parentCID=ffffffff\n" +
	"createType=\"%s\"\n" +
	"# Extent description\n" +
	"RW %d SPARSE \"\"\n" +
	"# The Disk Data Base\n" +
	"#DDB\n" +
	"ddb.adapterType = \"ide\"\n" +
	"ddb.geometry.cylinders = \"%d\"\n" +
	"ddb.geometry.heads = \"%d\"\n" +
	"ddb.geometry.sectors = \"%d\"\n" +
	"%s"

// Resize rounds the disk up to whole MiB, as mkimg's vmdk_resize does,
// and reports the grain it will use under -v.
func (f Format) Resize(p *vdisk.Params, sectors uint64) (uint64, error) {
	return vmdkRound(p, f.Name(), sectors, vmdkGrainBytes(p))
}

// Resize is Format's for the stream-optimized format, whose grain is
// vmdkStreamGrainSize.
func (f StreamOptimized) Resize(p *vdisk.Params, sectors uint64) (uint64, error) {
	return vmdkRound(p, f.Name(), sectors, vmdksGrainBytes(p))
}

// vmdkGrainBytes is a hosted sparse extent's grain in bytes: the physical
// block size, at least vmdkMinGrainSize.
func vmdkGrainBytes(p *vdisk.Params) uint64 { return max(p.BlockSize, vmdkMinGrainSize) }

// vmdksGrainBytes is a stream-optimized extent's grain in bytes: 64 KiB,
// or the sector size when that is larger.
func vmdksGrainBytes(p *vdisk.Params) uint64 { return max(p.SectorSize, vmdkStreamGrainSize) }

// vmdkRound returns sectors rounded up to whole vmdkImageRound bytes, in
// sectors, and logs the size and grain as mkimg -v does. It refuses a
// disk of more grains than mkimg counts (a C int), before the raw disk
// is written.
func vmdkRound(p *vdisk.Params, name string, sectors, grainBytes uint64) (uint64, error) {
	if sectors > (math.MaxInt64-vmdkImageRound)/p.SectorSize {
		return 0, fmt.Errorf("%w: -f %s: a disk of %d sectors of %d bytes is past what a VMDK extent holds", vdisk.ErrTooLarge, name, sectors, p.SectorSize)
	}
	size := (sectors*p.SectorSize + vmdkImageRound - 1) &^ (vmdkImageRound - 1)
	if grains := size / grainBytes; grains > math.MaxInt32 {
		return 0, fmt.Errorf("%w: -f %s: a disk of %d bytes has %d grains of %d bytes, more than the %d mkimg's VMDK grain directory counts", vdisk.ErrTooLarge, name, size, grains, grainBytes, math.MaxInt32)
	}
	p.Logf("VMDK: image size = %d, grain size = %d\n", size, grainBytes)
	return size / p.SectorSize, nil
}

// vmdkCID is the descriptor's content ID: 0 with -y, as mkimg writes it;
// otherwise the first four bytes of p.ID("vmdk"), little-endian, so that
// equal disks get equal ids and none is drawn at random.
func vmdkCID(p *vdisk.Params) uint32 {
	if p.FreeBSDTestMode {
		return 0
	}
	g := p.ID("vmdk")
	return binary.LittleEndian.Uint32(g[:4])
}

// vmdkDescriptor returns the embedded descriptor of a disk of capacity
// VMDK sectors, padded with zeros to whole sectors.
func vmdkDescriptor(p *vdisk.Params, createType string, capacity uint64, extra string) []byte {
	text := fmt.Sprintf(vmdkDescriptorFormat, vmdkCID(p), createType, capacity,
		uint32(p.Sectors/(p.SectorsPerTrack*p.Heads)), uint32(p.Heads), uint32(p.SectorsPerTrack), extra)
	b := make([]byte, (len(text)+vmdkSectorSize-1)&^(vmdkSectorSize-1))
	copy(b, text)
	return b
}

// vmdkNewHeader returns a header with the fields both formats fill alike.
func vmdkNewHeader(version, flags uint32, capacity, grain, descSectors, overhead uint64) *vmdkHeader {
	var h vmdkHeader
	le32, le64 := binary.LittleEndian.PutUint32, binary.LittleEndian.PutUint64
	le32(h.magicNumber(), vmdkMagic)
	le32(h.version(), version)
	le32(h.flags(), flags)
	le64(h.capacity(), capacity)
	le64(h.grainSize(), grain)
	le64(h.descriptorOffset(), 1)
	le64(h.descriptorSize(), descSectors)
	le32(h.numGTEsPerGT(), vmdkNGTEs)
	le64(h.overHead(), overhead)
	copy(h[73:77], vmdkNLTest) // singleEndLineChar to doubleEndLineChar2
	return &h
}

// vmdkGeometry is what both formats derive from the disk and the grain:
// the capacity in VMDK sectors, the grain in VMDK sectors, the grains,
// the grain tables, and the grain directory's bytes (whole sectors).
type vmdkGeometry struct {
	capacity, grain, grains, tables, gdBytes uint64
}

// vmdkGeometryOf returns the geometry of disk with grains of grainBytes
// (vmdkRound has bounded the grains).
func vmdkGeometryOf(disk *vdisk.Disk, grainBytes uint64) vmdkGeometry {
	var g vmdkGeometry
	g.capacity = uint64(disk.Size()) / vmdkSectorSize
	g.grain = grainBytes / vmdkSectorSize
	g.grains = g.capacity / g.grain
	g.tables = (g.grains + vmdkNGTEs - 1) / vmdkNGTEs
	g.gdBytes = (g.tables*4 + vmdkSectorSize - 1) &^ (vmdkSectorSize - 1)
	return g
}

// errVMDKOffset is the error for an extent whose sector numbers pass the
// 32 bits its grain directory and tables hold them in.
func errVMDKOffset(name string, sector uint64) error {
	return fmt.Errorf("%w: -f %s: the extent needs sector %d, past the 32-bit sector numbers of VMDK grain tables (%d bytes)", vdisk.ErrTooLarge, name, sector, uint64(math.MaxUint32+1)*vmdkSectorSize)
}

// vmdkRun is a run of consecutive data grains: n bytes copied from the
// raw disk at src to the extent at dst.
type vmdkRun struct{ src, dst, n int64 }

// Write lays out a hosted sparse extent as mkimg's vmdk_write
// does: the header, the descriptor, the grain directory and its tables,
// the redundant directory and a copy of the tables, zeros up to a grain
// boundary, then each grain holding data, in disk order.
func (f Format) Write(p *vdisk.Params, disk *vdisk.Disk) (int64, func(*bcache.Image) error, error) {
	grainBytes := vmdkGrainBytes(p)
	g := vmdkGeometryOf(disk, grainBytes)
	desc := vmdkDescriptor(p, "monolithicSparse", g.capacity, "")
	gdSectors := g.gdBytes / vmdkSectorSize
	sec := 1 + uint64(len(desc))/vmdkSectorSize
	gdOffset := sec
	gd := make([]byte, g.gdBytes)
	sec += gdSectors
	for n := uint64(0); n < g.tables; n++ {
		binary.LittleEndian.PutUint32(gd[4*n:], uint32(sec))
		sec += vmdkGTSectors
	}
	rgdOffset := sec
	rgd := make([]byte, g.gdBytes)
	sec += gdSectors
	for n := uint64(0); n < g.tables; n++ {
		binary.LittleEndian.PutUint32(rgd[4*n:], uint32(sec))
		sec += vmdkGTSectors
	}
	// mkimg rounds with the grain as a mask, as a power of two.
	sec = (sec + g.grain - 1) &^ (g.grain - 1)
	if sec > math.MaxUint32 {
		return 0, nil, errVMDKOffset(f.Name(), sec)
	}
	p.Logf("VMDK: overhead = %d\n", sec*vmdkSectorSize)

	h := vmdkNewHeader(vmdkVersion, vmdkFlagNLTest|vmdkFlagRGDUsed, g.capacity, g.grain, uint64(len(desc))/vmdkSectorSize, sec)
	binary.LittleEndian.PutUint64(h.rgdOffset(), rgdOffset)
	binary.LittleEndian.PutUint64(h.gdOffset(), gdOffset)

	gtBytes := int64(g.tables * vmdkNGTEs * 4)
	tables, err := newVMDKTables(disk, gtBytes)
	if err != nil {
		return 0, nil, err
	}
	cur := sec
	err = disk.DataUnits(int64(grainBytes), disk.Scanning(), func(first, n int64) error {
		for grain := uint64(first); grain < uint64(first+n); grain++ {
			if cur+g.grain-1 > math.MaxUint32 {
				return errVMDKOffset(f.Name(), cur+g.grain-1)
			}
			if err := tables.set(grain, uint32(cur)); err != nil {
				return err
			}
			cur += g.grain
		}
		return nil
	})
	if err == nil {
		err = tables.flush()
	}
	if err != nil {
		tables.close()
		return 0, nil, err
	}
	size := int64(cur * vmdkSectorSize)
	gtOff := int64(gdOffset*vmdkSectorSize) + int64(g.gdBytes)
	rgtOff := int64(rgdOffset*vmdkSectorSize) + int64(g.gdBytes)
	write := func(im *bcache.Image) error {
		defer tables.close()
		for _, p := range []struct {
			b   []byte
			off int64
		}{{h[:], 0}, {desc, vmdkSectorSize}, {gd, gtOff - int64(g.gdBytes)}, {rgd, rgtOff - int64(g.gdBytes)}} {
			if _, err := im.WriteAt(p.b, p.off); err != nil {
				return err
			}
		}
		var run vmdkRun // the run of grains being gathered, copied whole
		err := tables.writeTo(im, []int64{gtOff, rgtOff}, func(first uint64, entries []byte) error {
			for i := 0; i < len(entries); i += 4 {
				sector := binary.LittleEndian.Uint32(entries[i:])
				if sector == 0 {
					continue
				}
				src := int64(first+uint64(i/4)) * int64(grainBytes)
				dst := int64(sector) * vmdkSectorSize
				if run.n > 0 && run.src+run.n == src && run.dst+run.n == dst {
					run.n += int64(grainBytes)
					continue
				}
				if run.n > 0 {
					if err := disk.CopyTo(im, run.dst, run.src, run.n); err != nil {
						return err
					}
				}
				run = vmdkRun{src, dst, int64(grainBytes)}
			}
			return nil
		})
		if err != nil || run.n == 0 {
			return err
		}
		return disk.CopyTo(im, run.dst, run.src, run.n)
	}
	return size, write, nil
}

// dataRuns walks the data runs of a raw disk forward, asking the file
// system (SEEK_DATA and SEEK_HOLE of each file holding a part of the
// disk, rawDisk.dataRun) once per run, so that a large sparse disk's
// holes are skipped rather than read as zeros; a disk in memory is all
// data.
type dataRuns struct {
	d      *vdisk.Disk
	lo, hi int64 // the run last found
}

// next returns the first byte at or after off that may hold data, or the
// disk's size when only holes follow.
func (r *dataRuns) next(off int64) int64 {
	if r.d.InMemory() || off >= r.d.Size() {
		return min(off, r.d.Size())
	}
	if off >= r.hi {
		r.lo, r.hi = r.d.NextData(off)
	}
	return max(off, r.lo)
}

// Write lays out a stream-optimized extent as mkimg's
// vmdk_stream_write does: the header (its grain directory at the end),
// the descriptor, zeros up to the first grain boundary, then each grain
// holding data as a grain marker and its zlib stream padded to a sector,
// each grain table holding an entry after the grains it covers, the grain
// directory, the footer and the end-of-stream marker. Everything after
// the first grain boundary is compressed into a spool first (in memory
// for a disk in memory, else an unlinked temporary file beside the raw
// disk), as its size must be known before the image is made; a stored
// grain (grainCompressor.incompressible) is not spooled but stored again
// from the raw disk as the image is written, which gives the same bytes
// at a fraction of the spool's writing and reading.
func (f StreamOptimized) Write(p *vdisk.Params, disk *vdisk.Disk) (int64, func(*bcache.Image) error, error) {
	grainBytes := vmdksGrainBytes(p)
	g := vmdkGeometryOf(disk, grainBytes)
	desc := vmdkDescriptor(p, "streamOptimized", g.capacity, "ddb.virtualHWVersion = \"4\"\n")
	overhead := 1 + uint64(len(desc))/vmdkSectorSize
	overhead = (overhead + g.grain - 1) &^ (g.grain - 1)
	h := vmdkNewHeader(vmdkVersionStream, vmdkFlagNLTest|vmdkFlagCompressed|vmdkFlagMarkers, g.capacity, g.grain, uint64(len(desc))/vmdkSectorSize, overhead)
	binary.LittleEndian.PutUint64(h.gdOffset(), vmdkGDAtEnd)
	binary.LittleEndian.PutUint16(h.compressAlgorithm(), vmdkCompressDeflate)
	p.Logf("VMDK: overhead = %d\n", overhead*vmdkSectorSize)

	sp, err := newVMDKSpool(disk)
	if err != nil {
		return 0, nil, err
	}
	s := &vmdkStream{name: f.Name(), w: sp, sec: overhead, gd: make([]byte, g.gdBytes), gt: make([]byte, vmdkNGTEs*4)}
	if err := s.grains(disk, g, grainBytes); err != nil {
		sp.close()
		return 0, nil, err
	}
	if err := s.finish(h, g); err != nil {
		sp.close()
		return 0, nil, err
	}
	start := int64(overhead * vmdkSectorSize)
	size := start + sp.n
	write := func(im *bcache.Image) error {
		defer sp.close()
		if _, err := im.WriteAt(h[:], 0); err != nil {
			return err
		}
		if _, err := im.WriteAt(desc, vmdkSectorSize); err != nil {
			return err
		}
		return sp.copyTo(im, start, disk, int(grainBytes), g.grain)
	}
	return size, write, nil
}

// vmdkStream writes the stream after the first grain boundary of a
// stream-optimized extent, keeping the sector it has reached, the grain
// directory and the grain table being filled.
type vmdkStream struct {
	name   string // the format's, for errors
	w      *vmdkSpool
	sec    uint64 // the extent's sector the next write starts at
	gd, gt []byte
	gtUsed bool
}

// grains compresses the grains of disk holding data (in parallel, in
// order) and writes each with its marker, and each grain table after the
// grains it covers, as vmdk_stream_write does. The grains of the streams
// spooled as grains (Disk.Streams), which the raw disk holds as
// zeros, come from their spools, in grain order among the others.
func (s *vmdkStream) grains(disk *vdisk.Disk, g vmdkGeometry, grainBytes uint64) error {
	next := uint64(0) // the grain after the last one written
	put := func(grain uint64, rec []byte, stored, fromDisk bool) error {
		if err := s.tablesBefore(next, grain); err != nil {
			return err
		}
		next = grain + 1
		if s.sec > math.MaxUint32 {
			return errVMDKOffset(s.name, s.sec)
		}
		var m vmdkGrainMarker
		binary.LittleEndian.PutUint64(m.lba(), grain*g.grain)
		binary.LittleEndian.PutUint32(m.size(), uint32(len(rec)-vmdkGrainMarkerSize))
		copy(rec, m[:])
		binary.LittleEndian.PutUint32(s.gt[4*(grain%vmdkNGTEs):], uint32(s.sec))
		n := (len(rec) + vmdkSectorSize - 1) &^ (vmdkSectorSize - 1)
		if stored && fromDisk && s.w.mayStore() {
			s.w.stored(grain, len(rec), n)
		} else if err := s.w.write(rec, n); err != nil {
			return err
		} else if fromDisk {
			// Spooled: the grain's raw bytes are read no more.
			disk.Consumed(int64(grain)*int64(grainBytes), int64(grainBytes))
		}
		s.sec += uint64(n) / vmdkSectorSize
		s.gtUsed = true
		return nil
	}
	spooled := spooledGrains{spools: grainSpools(disk)}
	// putSpooled puts the spooled grains before grain.
	putSpooled := func(grain uint64) error {
		for {
			at, rec, err := spooled.peek()
			if err != nil || rec == nil || uint64(at)/grainBytes > grain {
				return err
			}
			if uint64(at)/grainBytes == grain {
				return fmt.Errorf("mkimg: vmdks: grain %d is both spooled and on the raw disk", grain)
			}
			if err := put(uint64(at)/grainBytes, rec, false, false); err != nil {
				return err
			}
			spooled.taken()
		}
	}
	err := compressGrains(disk, g.grains, int(grainBytes), func(grain uint64, rec []byte, stored bool) error {
		if err := putSpooled(grain); err != nil {
			return err
		}
		return put(grain, rec, stored, true)
	})
	if err == nil {
		err = putSpooled(math.MaxUint64)
	}
	if err != nil {
		return err
	}
	// mkimg writes the last filled table on reaching the next table's
	// first grain, or after the last grain: either way right after the
	// table's last data grain, nothing else coming between.
	if s.gtUsed {
		return s.table((next - 1) / vmdkNGTEs)
	}
	return nil
}

// tablesBefore writes the grain table being filled when a grain from
// next up to grain starts a new table, as mkimg does on reaching each
// table's first grain.
func (s *vmdkStream) tablesBefore(next, grain uint64) error {
	if !s.gtUsed {
		return nil
	}
	// The first table boundary in (next-1, grain]: the filled table
	// ends there.
	first := (next + vmdkNGTEs - 1) / vmdkNGTEs * vmdkNGTEs
	if next == 0 || first > grain {
		return nil
	}
	s.gtUsed = false
	return s.table(first/vmdkNGTEs - 1)
}

// table writes the grain table being filled, as entry i of the grain
// directory, with its marker, and clears it.
func (s *vmdkStream) table(i uint64) error {
	if err := s.marker(vmdkGTSectors, vmdkMarkerGT); err != nil {
		return err
	}
	if s.sec > math.MaxUint32 {
		return errVMDKOffset(s.name, s.sec)
	}
	binary.LittleEndian.PutUint32(s.gd[4*i:], uint32(s.sec))
	if err := s.w.write(s.gt, len(s.gt)); err != nil {
		return err
	}
	s.sec += vmdkGTSectors
	clear(s.gt)
	return nil
}

// marker writes a metadata marker of the type, for numSectors sectors.
func (s *vmdkStream) marker(numSectors uint64, typ uint32) error {
	var m vmdkMetadataMarker
	binary.LittleEndian.PutUint64(m.numSectors(), numSectors)
	binary.LittleEndian.PutUint32(m.size(), 0) // zero: a metadata marker, not a grain's
	binary.LittleEndian.PutUint32(m.markerType(), typ)
	s.sec++
	return s.w.write(m[:], len(m))
}

// finish writes the grain directory, the footer (the header with the
// directory's offset) and the end-of-stream marker.
func (s *vmdkStream) finish(h *vmdkHeader, g vmdkGeometry) error {
	if err := s.marker(g.gdBytes/vmdkSectorSize, vmdkMarkerGD); err != nil {
		return err
	}
	gdOffset := s.sec
	if err := s.w.write(s.gd, len(s.gd)); err != nil {
		return err
	}
	s.sec += g.gdBytes / vmdkSectorSize
	if err := s.marker(1, vmdkMarkerFooter); err != nil {
		return err
	}
	footer := *h
	binary.LittleEndian.PutUint64(footer.gdOffset(), gdOffset)
	if err := s.w.write(footer[:], len(footer)); err != nil {
		return err
	}
	s.sec++
	if err := s.marker(0, vmdkMarkerEOS); err != nil {
		return err
	}
	return s.w.flush()
}

// vmdkSpool holds the stream until the image is made: a list of
// segments, each either bytes spooled in memory or in an unlinked
// temporary file (so that nothing is left behind whatever happens),
// written through a buffer, or a stored grain to store again from the
// raw disk.
type vmdkSpool struct {
	mem    bytes.Buffer
	file   *os.File
	buf    []byte
	n      int64 // the stream's bytes
	spoolN int64 // the bytes spooled
	segs   []vmdkSegment
	// maxSegs bounds segs for a spool in a file (vmdkMaxSegments).
	maxSegs int
}

// vmdkSegment is n bytes of the stream at off: spooled bytes from
// spoolOff, or (grain >= 0) the record of a stored grain, recLen bytes
// then zeros.
type vmdkSegment struct {
	off, n, spoolOff int64
	grain            int64
	recLen           int
}

// newVMDKSpool returns a spool in memory for a disk in memory, else in a
// temporary file in the raw disk's directory.
func newVMDKSpool(disk *vdisk.Disk) (*vmdkSpool, error) {
	f, err := disk.Spool("vmdks")
	if err != nil {
		return nil, fmt.Errorf("mkimg: vmdks spool: %w", err)
	}
	if f == nil {
		return &vmdkSpool{}, nil
	}
	return &vmdkSpool{file: f, buf: make([]byte, 0, 1<<20), maxSegs: vmdkMaxSegments}, nil
}

// write appends b, then zeros up to n bytes.
func (s *vmdkSpool) write(b []byte, n int) error {
	if k := len(s.segs) - 1; k >= 0 && s.segs[k].grain < 0 {
		s.segs[k].n += int64(n)
	} else {
		s.segs = append(s.segs, vmdkSegment{off: s.n, n: int64(n), spoolOff: s.spoolN, grain: -1})
	}
	s.n += int64(n)
	s.spoolN += int64(n)
	if s.file == nil {
		s.mem.Write(b)
		s.mem.Write(make([]byte, n-len(b)))
		return nil
	}
	if len(s.buf)+n > cap(s.buf) {
		if err := s.flush(); err != nil {
			return err
		}
	}
	if n > cap(s.buf) {
		_, err := s.file.Write(append(slices.Clone(b), make([]byte, n-len(b))...))
		return s.wrapErr(err)
	}
	s.buf = append(s.buf, b...)
	s.buf = append(s.buf, make([]byte, n-len(b))...)
	return nil
}

// vmdkMaxSegments bounds the segments a spool in a file lists (40 bytes
// each: 10 MiB), which stored grains alternating with compressed ones
// would otherwise make grow with the data (2.5 GiB for 2 TiB of 64 KiB
// grains): past it, a stored grain's record is spooled as a compressed
// one's is.
const vmdkMaxSegments = 1 << 18

// mayStore reports whether the next stored grain may be listed as a
// segment rather than spooled: always for a spool in memory, whose
// bytes cost more than the segments, and for one in a file until it
// lists vmdkMaxSegments-1 segments (the next spooled bytes may take one
// more).
func (s *vmdkSpool) mayStore() bool {
	return s.file == nil || len(s.segs) < s.maxSegs-1
}

// stored appends the record of a stored grain, recLen bytes padded to n,
// without its bytes.
func (s *vmdkSpool) stored(grain uint64, recLen, n int) {
	s.segs = append(s.segs, vmdkSegment{off: s.n, n: int64(n), grain: int64(grain), recLen: recLen})
	s.n += int64(n)
}

// flush writes the buffered bytes to the file.
func (s *vmdkSpool) flush() error {
	if s.file == nil || len(s.buf) == 0 {
		return nil
	}
	_, err := s.file.Write(s.buf)
	s.buf = s.buf[:0]
	return s.wrapErr(err)
}

// wrapErr names the spool in a write error.
func (s *vmdkSpool) wrapErr(err error) error {
	if err != nil {
		return fmt.Errorf("mkimg: writing the vmdks spool: %w", err)
	}
	return nil
}

// copyTo writes the stream into im at start: the spooled segments from
// the spool, the stored grains stored again from disk (grainBytes each,
// grain VMDK sectors), each of the length it had when spooled. It is the
// last read of both: the spool gives back the space of what is copied a
// diskio.ReleasePiece at a time, and the raw disk that of each grain stored
// again, so that they and the image together take little more than the
// image.
func (s *vmdkSpool) copyTo(im *bcache.Image, start int64, disk *vdisk.Disk, grainBytes int, grain uint64) error {
	var c grainCompressor
	var rec bytes.Buffer
	raw := make([]byte, grainBytes)
	for _, seg := range s.segs {
		off := start + seg.off
		if seg.grain < 0 {
			if s.file == nil {
				if _, err := im.WriteAt(s.mem.Bytes()[seg.spoolOff:seg.spoolOff+seg.n], off); err != nil {
					return err
				}
				continue
			}
			for k := int64(0); k < seg.n; k += diskio.ReleasePiece {
				m := min(seg.n-k, diskio.ReleasePiece)
				if _, err := s.file.Seek(seg.spoolOff+k, io.SeekStart); err != nil {
					return fmt.Errorf("mkimg: reading the vmdks spool: %w", err)
				}
				if err := im.CopyFrom(off+k, s.file, m); err != nil {
					return err
				}
				diskio.PunchHole(s.file, seg.spoolOff+k, m)
			}
			continue
		}
		src := seg.grain * int64(grainBytes)
		if _, err := disk.ReadAt(raw, src); err != nil {
			return fmt.Errorf("mkimg: reading the raw disk at byte %d: %w", src, err)
		}
		rec.Reset()
		var m vmdkGrainMarker
		binary.LittleEndian.PutUint64(m.lba(), uint64(seg.grain)*grain)
		binary.LittleEndian.PutUint32(m.size(), uint32(seg.recLen-vmdkGrainMarkerSize))
		rec.Write(m[:])
		c.deflate(&rec, raw, zlib.NoCompression)
		if rec.Len() != seg.recLen {
			return fmt.Errorf("mkimg: vmdks: grain %d stored again in %d bytes, not %d", seg.grain, rec.Len(), seg.recLen)
		}
		rec.Write(make([]byte, seg.n-int64(seg.recLen)))
		if _, err := im.WriteAt(rec.Bytes(), off); err != nil {
			return err
		}
		disk.Consumed(src, int64(grainBytes))
	}
	return nil
}

// close releases the spool.
func (s *vmdkSpool) close() {
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
	s.mem = bytes.Buffer{}
}
