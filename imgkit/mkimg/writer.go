package mkimg

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// WriteFile writes the disk o describes to path, as freebsd-mkimg -f raw
// does. The disk goes through the block cache as the file-system images
// do (imgkit/bcache): made under a temporary name beside path and renamed
// over it only when complete, or written in place when path is a device
// or a pipe; the sectors no partition or metadata fills are holes where
// the file system allows them. o.Output is ignored.
func WriteFile(path string, o *Options) error {
	_, err := writeTarget(imgfmt.ToFile(path), o)
	return err
}

// Write writes the disk o describes to w, every byte of it from offset 0,
// and returns its size. The disk is built in memory first, so nothing is
// written to w when it cannot be made.
func Write(w io.WriterAt, o *Options) (int64, error) {
	im, err := writeTarget(imgfmt.ToWriterAt(w), o)
	if err != nil {
		return 0, err
	}
	return im.Size(), nil
}

// Build returns the disk o describes, built in memory.
func Build(o *Options) ([]byte, error) {
	im, err := writeTarget(imgfmt.ToMemory(), o)
	if err != nil {
		return nil, err
	}
	return im.Bytes(), nil
}

// writeTarget is the one path of WriteFile, Write and Build: it lays the
// disk out and writes it at t through imgfmt.WriteImage.
func writeTarget(t imgfmt.Target, o *Options) (*bcache.Image, error) {
	l, err := plan(o)
	if err != nil {
		return nil, err
	}
	im, err := imgfmt.WriteImage(t, int64(l.sectors*l.secsz), nil, func(im *bcache.Image) error { return l.write(im) })
	if err != nil && !strings.HasPrefix(err.Error(), "mkimg: ") {
		err = fmt.Errorf("mkimg: %w", err) // the block cache's errors name the path only
	}
	return im, err
}

// write copies the partitions' contents into w, then the scheme's
// metadata, whose GUIDs may depend on those contents.
func (l *layout) write(w io.WriterAt) error {
	sums := make([][sha256.Size]byte, len(l.parts))
	for i := range l.parts {
		sum, err := l.copyPartition(w, &l.parts[i])
		if err != nil {
			return err
		}
		sums[i] = sum
	}
	g := l.guids(sums)
	switch l.scheme {
	case "gpt":
		return l.writeGPT(w, g)
	default:
		return l.writeMBR(w)
	}
}

// copyPartition copies a file partition's bytes to its place on the disk
// and returns their SHA-256; an empty partition's sum is that of no bytes.
func (l *layout) copyPartition(w io.WriterAt, p *placed) ([sha256.Size]byte, error) {
	h := sha256.New()
	if p.File == "" {
		return [sha256.Size]byte(h.Sum(nil)), nil
	}
	f, err := os.Open(p.File)
	if err != nil {
		return [sha256.Size]byte{}, fmt.Errorf("%w: partition %d: %s: %w", ErrPartition, p.index+1, p.File, bareError(err))
	}
	defer f.Close()
	dst := io.NewOffsetWriter(w, int64(p.start*l.secsz))
	n, err := io.Copy(io.MultiWriter(dst, h), io.LimitReader(f, int64(p.bytes)))
	if err == nil && uint64(n) != p.bytes {
		err = fmt.Errorf("shrank from %d to %d bytes while being read", p.bytes, n)
	}
	if err != nil {
		return [sha256.Size]byte{}, fmt.Errorf("%w: partition %d: %s: %w", ErrPartition, p.index+1, p.File, bareError(err))
	}
	return [sha256.Size]byte(h.Sum(nil)), nil
}

// writeAt writes b, whole sectors, at sector lba.
func (l *layout) writeAt(w io.WriterAt, b []byte, lba uint64) error {
	if _, err := w.WriteAt(b, int64(lba*l.secsz)); err != nil {
		return fmt.Errorf("mkimg: writing sector %d: %w", lba, err)
	}
	return nil
}

// bootSector returns LBA 0's buffer: the boot code's bytes before the
// partition records, zeros after them, and the boot signature.
func (l *layout) bootSector() ([]byte, *mbrRecord) {
	b := make([]byte, l.secsz)
	m := (*mbrRecord)(b[:512])
	if l.bootcode != nil {
		copy(m.bootArea(), l.bootcode)
	}
	binary.LittleEndian.PutUint16(m.signature(), mbrSignature)
	return b, m
}

// writeMBR writes the MBR in LBA 0: one partition record per used slot,
// sized in whole tracks.
func (l *layout) writeMBR(w io.WriterAt) error {
	b, m := l.bootSector()
	for _, p := range l.parts {
		r := m.partitionRecord(p.index)
		size := l.roundTrack(p.sectors)
		boot := l.active == p.index+1 || (l.active == 0 && p.index == 0 && l.bootcode != nil)
		if boot {
			r.bootIndicator()[0] = 0x80
		}
		l.chs(r.startingCHS(), p.start)
		r.osType()[0] = mbrTypes[lower7(p.Type)]
		l.chs(r.endingCHS(), p.start+size-1)
		binary.LittleEndian.PutUint32(r.startingLBA(), uint32(p.start))
		binary.LittleEndian.PutUint32(r.sizeInLBA(), uint32(size))
	}
	return l.writeAt(w, b, 0)
}

// chs stores lba's cylinder-head-sector address in the three bytes of an
// MBR CHS field, with the simulated geometry and cylinders up to 1023.
// Without a geometry (one head or one sector per track), or past cylinder
// 1023, every bit is set, as mkimg sets them.
func (l *layout) chs(dst []byte, lba uint64) {
	cyl, hd, sec := uint64(0xffffffff), uint64(0xffffffff), uint64(0xffffffff)
	if l.heads > 1 && l.track > 1 {
		s := lba%l.track + 1
		rest := lba / l.track
		h := rest % l.heads
		if c := rest / l.heads; c <= 1023 {
			cyl, hd, sec = c, h, s
		}
	}
	dst[0] = byte(hd)
	dst[1] = byte(sec&0x3f) | byte((cyl>>2)&0xc0)
	dst[2] = byte(cyl)
}

// writeGPT writes the protective MBR, the primary header and entry array
// at LBA 1 and 2, and the backup array and header at the end of the disk.
func (l *layout) writeGPT(w io.WriterAt, g guids) error {
	b, m := l.bootSector()
	r := m.partitionRecord(0)
	protectiveCHS(r)
	r.osType()[0] = pmbrOSType
	binary.LittleEndian.PutUint32(r.startingLBA(), 1)
	secs := uint32(0xffffffff)
	if l.sectors <= 0xffffffff {
		secs = uint32(l.sectors - 1)
	}
	binary.LittleEndian.PutUint32(r.sizeInLBA(), secs)
	if err := l.writeAt(w, b, 0); err != nil {
		return err
	}

	table := make([]byte, l.gptTable*l.secsz)
	for i, p := range l.parts {
		e := (*gptEntry)(table[p.index*gptEntrySize:][:gptEntrySize])
		gptTypes[lower7(p.Type)].encode(e.partitionTypeGUID())
		g.parts[i].encode(e.uniquePartitionGUID())
		binary.LittleEndian.PutUint64(e.startingLBA(), p.start)
		binary.LittleEndian.PutUint64(e.endingLBA(), p.start+p.sectors-1)
		name := e.partitionName()
		for j := 0; j < len(p.Label); j++ {
			binary.LittleEndian.PutUint16(name[2*j:], uint16(p.Label[j]))
		}
	}
	backupTable := l.sectors - l.gptTable - 1
	if err := l.writeAt(w, table, 2); err != nil {
		return err
	}
	if err := l.writeAt(w, table, backupTable); err != nil {
		return err
	}

	var h gptHeader
	copy(h.signature(), gptSignature[:])
	binary.LittleEndian.PutUint32(h.revision(), gptRevision)
	binary.LittleEndian.PutUint32(h.headerSize(), gptHeaderSize)
	binary.LittleEndian.PutUint64(h.firstUsableLBA(), 2+l.gptTable)
	binary.LittleEndian.PutUint64(h.lastUsableLBA(), l.sectors-l.gptTable-2)
	g.disk.encode(h.diskGUID())
	binary.LittleEndian.PutUint32(h.numberOfPartitionEntries(), uint32(l.gptTable*l.secsz/gptEntrySize))
	binary.LittleEndian.PutUint32(h.sizeOfPartitionEntry(), gptEntrySize)
	binary.LittleEndian.PutUint32(h.partitionEntryArrayCRC32(), crc32.ChecksumIEEE(table))
	if err := l.writeHeader(w, &h, 1, l.sectors-1, 2); err != nil {
		return err
	}
	return l.writeHeader(w, &h, l.sectors-1, 1, backupTable)
}

// protectiveCHS fills the protective MBR record's CHS fields as mkimg
// does: StartingCHS 0x000200 (sector 2, the record's StartingLBA 1) and
// EndingCHS all ones.
func protectiveCHS(r *mbrPartitionRecord) {
	copy(r.startingCHS(), []byte{0x00, 0x02, 0x00})
	copy(r.endingCHS(), []byte{0xff, 0xff, 0xff})
}

// writeHeader sets the header's own, alternate and entry array LBAs and
// its HeaderCRC32 and writes it, in a zeroed sector, at LBA self.
func (l *layout) writeHeader(w io.WriterAt, h *gptHeader, self, alt, table uint64) error {
	binary.LittleEndian.PutUint64(h.myLBA(), self)
	binary.LittleEndian.PutUint64(h.alternateLBA(), alt)
	binary.LittleEndian.PutUint64(h.partitionEntryLBA(), table)
	clear(h.headerCRC32())
	binary.LittleEndian.PutUint32(h.headerCRC32(), crc32.ChecksumIEEE(h[:]))
	sector := make([]byte, l.secsz)
	copy(sector, h[:])
	return l.writeAt(w, sector, self)
}

// lower7 lowers an ASCII type alias for the type tables.
func lower7(s string) string {
	return strings.ToLower(s)
}
