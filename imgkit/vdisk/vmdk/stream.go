package vmdk

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"hash"
	"io"
	"math"
	"os"
	"slices"
)

// A stream-optimized VMDK's size depends on how well its grains
// compress, so a partition whose size is learned by reading it to its
// end (a command's output, a pipe) is spooled before the disk is laid
// out. Spooled raw it would take its whole uncompressed size beside the
// disk; spooled as the grains the extent stores, compressed, it takes
// about the extent's own size. Its place on the disk is known when it is
// read (place reaches it in slot order; only its size waits for its
// end), so its bytes are cut into the disk's grains as they come: the
// whole grains wholly inside the partition are compressed into grain
// records as vmdksContainer would compress them (compressBatches, the
// same grainCompressor), and the partial grains at its two edges, which
// share their grain with the metadata or another partition, are kept
// raw and written into the raw disk, whose temporary file is a hole
// where the records go. vmdkStream.grains takes the records in grain
// order between the grains it compresses from the raw disk, so that the
// extent's bytes are those of a raw spool.

// grainSpool is a partition's stream spooled as a vmdks extent's grains.
// The file holds the records of the whole grains from the disk's byte lo
// to hi that hold data, in order, each a grain marker and its zlib
// stream padded to whole VMDK sectors, as the extent stores it; head and
// tail are the contents before lo and from hi. A partition that ends
// before its first grain boundary is all head.
type grainSpool struct {
	f          *os.File
	size       int64 // the records' bytes
	start      int64 // the partition's first byte on the disk
	lo, hi     int64
	head, tail []byte
	grainBytes int64
	read       bool // linked or copied: its records are read once
}

// Size returns the contents' length.
func (g *grainSpool) Size() int64 { return int64(len(g.head)) + g.hi - g.lo + int64(len(g.tail)) }

// SpoolStream reads r to its end into f as a grain spool of the
// contents of a partition starting at the disk's byte start: the bytes
// up to the first grain boundary at or after start as head, then the
// grains in batches, compressed on the workers (compressBatches) and
// written in order, and the last partial grain as tail.
func (StreamOptimized) SpoolStream(p *vdisk.Params, f *os.File, start int64, r io.Reader) (vdisk.Stream, error) {
	gb := int64(vmdksGrainBytes(p))
	g := &grainSpool{f: f, start: start, grainBytes: gb}
	g.lo = (g.start + gb - 1) / gb * gb
	head := make([]byte, g.lo-g.start)
	m, err := io.ReadFull(r, head)
	g.head, g.hi = head[:m], g.lo
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return g, nil
	case err != nil:
		return nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	produce := func(newBatch func() *grainBatch, send func(*grainBatch) bool) error {
		for {
			b := newBatch()
			if cap(b.raw) < vmdkBatchGrains*int(gb) {
				b.raw = make([]byte, vmdkBatchGrains*int(gb))
			}
			b.raw = b.raw[:vmdkBatchGrains*int(gb)]
			m, err := io.ReadFull(r, b.raw)
			whole := int64(m) / gb * gb
			g.tail = slices.Clone(b.raw[whole:m])
			b.first, b.count = uint64(g.hi/gb), uint64(whole/gb)
			g.hi += whole
			if whole > 0 && !send(b) {
				return nil
			}
			switch {
			case err == io.EOF || err == io.ErrUnexpectedEOF:
				return nil
			case err != nil:
				return err
			}
		}
	}
	work := func(gc *grainCompressor, b *grainBatch) { gc.compress(b, b.raw[:b.count*uint64(gb)], int(gb)) }
	pad := make([]byte, vmdkSectorSize)
	err = compressBatches(produce, work, func(b *grainBatch) error {
		start := 0
		for i, end := range b.ends {
			rec := b.recs.Bytes()[start:end]
			start = end
			var mk vmdkGrainMarker
			binary.LittleEndian.PutUint64(mk.lba(), b.grains[i]*uint64(gb/vmdkSectorSize))
			binary.LittleEndian.PutUint32(mk.size(), uint32(len(rec)-vmdkGrainMarkerSize))
			copy(rec, mk[:])
			n := (len(rec) + vmdkSectorSize - 1) &^ (vmdkSectorSize - 1)
			w.Write(rec) // a bufio.Writer keeps its first error: the next Write returns it
			if _, err := w.Write(pad[:n-len(rec)]); err != nil {
				return err // a full disk stops the reading
			}
			g.size += int64(n)
		}
		return nil
	})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return nil, err
	}
	return g, nil
}

// CopyTo writes the contents into w at off, their zero grains left
// unwritten, each hashed into h first when h is not nil; the records are
// read once, each piece read giving back its space.
func (g *grainSpool) CopyTo(w io.WriterAt, off int64, h hash.Hash) error {
	if g.read {
		return fmt.Errorf("%w: the spool was read already", vdisk.ErrSourceChanged)
	}
	g.read = true
	write := func(b []byte, at int64) error {
		if len(b) == 0 {
			return nil
		}
		if h != nil {
			h.Write(b)
		}
		_, err := w.WriteAt(b, off+at)
		return err
	}
	if err := write(g.head, 0); err != nil {
		return err
	}
	rd := g.records()
	grain := make([]byte, g.grainBytes)
	pos := g.lo // the disk's byte reached
	var zr io.ReadCloser
	for {
		at, rec, err := rd.next()
		if err == io.EOF {
			break
		}
		if err == nil {
			err = resetInflater(&zr, rec[vmdkGrainMarkerSize:])
		}
		if err == nil {
			_, err = io.ReadFull(zr, grain)
		}
		if err != nil {
			return fmt.Errorf("mkimg: vmdks spool: grain at byte %d: %w", at, err)
		}
		if h != nil {
			diskio.AddZeros(h, at-pos)
		}
		if err := write(grain, at-g.start); err != nil {
			return err
		}
		pos = at + g.grainBytes
	}
	if h != nil {
		diskio.AddZeros(h, g.hi-pos)
	}
	return write(g.tail, g.hi-g.start)
}

// resetInflater points *zr at the zlib stream b.
func resetInflater(zr *io.ReadCloser, b []byte) error {
	if *zr == nil {
		r, err := zlib.NewReader(bytes.NewReader(b))
		*zr = r
		return err
	}
	return (*zr).(zlib.Resetter).Reset(bytes.NewReader(b), nil)
}

// Link writes the spool's edges, the partial grains, into w (the raw
// disk) where they go, and leaves its records for the Write of the
// disk it is linked to (Disk.Streams).
func (g *grainSpool) Link(w io.WriterAt) error {
	if g.read {
		return fmt.Errorf("%w: the spool was read already", vdisk.ErrSourceChanged)
	}
	g.read = true
	for _, e := range []struct {
		b  []byte
		at int64
	}{{g.head, g.start}, {g.tail, g.hi}} {
		if len(e.b) == 0 {
			continue
		}
		if _, err := w.WriteAt(e.b, e.at); err != nil {
			return err
		}
	}
	return nil
}

// grainSpools returns the grain spools linked to the disk, in disk
// order.
func grainSpools(d *vdisk.Disk) []*grainSpool {
	var out []*grainSpool
	for _, s := range d.Streams {
		if g, ok := s.(*grainSpool); ok {
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b *grainSpool) int { return int(min(max(a.lo-b.lo, -1), 1)) })
	return out
}

// grainReader reads a grain spool's records in order, once: each
// diskio.ReleasePiece read gives back its space (punchHole), so that the spool
// shrinks as what is made from it grows.
type grainReader struct {
	g        *grainSpool
	r        *bufio.Reader
	pos      int64 // the bytes of the file read
	released int64 // the bytes given back
	rec      []byte
}

// records returns the reader of g's records.
func (g *grainSpool) records() *grainReader {
	return &grainReader{g: g, r: bufio.NewReaderSize(io.NewSectionReader(g.f, 0, g.size), 1<<20)}
}

// next returns the next record's grain (its first byte on the disk) and
// the record, a marker and its zlib stream without the padding, valid
// until the next call; io.EOF after the last.
func (r *grainReader) next() (at int64, rec []byte, err error) {
	if r.pos >= r.g.size {
		r.release(r.pos)
		return 0, nil, io.EOF
	}
	if len(r.rec) < vmdkSectorSize {
		r.rec = make([]byte, vmdkSectorSize)
	}
	if _, err := io.ReadFull(r.r, r.rec[:vmdkSectorSize]); err != nil {
		return 0, nil, r.errAt(err)
	}
	var mk vmdkGrainMarker
	copy(mk[:], r.rec)
	lba := binary.LittleEndian.Uint64(mk.lba())
	size := int64(binary.LittleEndian.Uint32(mk.size()))
	n := (vmdkGrainMarkerSize + size + vmdkSectorSize - 1) &^ (vmdkSectorSize - 1)
	if size == 0 || n > r.g.size-r.pos || lba > math.MaxInt64/vmdkSectorSize {
		return 0, nil, r.errAt(errors.New("not a grain record"))
	}
	if int64(len(r.rec)) < n {
		r.rec = append(r.rec, make([]byte, n-int64(len(r.rec)))...)
	}
	if _, err := io.ReadFull(r.r, r.rec[vmdkSectorSize:n]); err != nil {
		return 0, nil, r.errAt(err)
	}
	r.pos += n
	if r.pos-r.released >= diskio.ReleasePiece {
		r.release(r.pos)
	}
	return int64(lba) * vmdkSectorSize, r.rec[:vmdkGrainMarkerSize+size], nil
}

// release gives back the space of the records before to.
func (r *grainReader) release(to int64) {
	diskio.PunchHole(r.g.f, r.released, to-r.released)
	r.released = to
}

// errAt names the spool and the byte of a read error.
func (r *grainReader) errAt(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("mkimg: reading the vmdks spool at byte %d: %w", r.pos, err)
}

// spooledGrains reads the records of grain spools in disk order, one
// spool after the other.
type spooledGrains struct {
	spools []*grainSpool // the spools not finished, the current one first
	r      *grainReader  // the current spool's reader
	at     int64         // the record peeked: its grain's byte on the disk,
	rec    []byte        // and the record; nil when none is peeked
}

// peek returns the next record and its grain's first byte, as
// grainReader.next does, without taking it; a nil record after the
// last.
func (s *spooledGrains) peek() (at int64, rec []byte, err error) {
	for s.rec == nil {
		if s.r == nil {
			if len(s.spools) == 0 {
				return 0, nil, nil
			}
			s.r = s.spools[0].records()
		}
		s.at, s.rec, err = s.r.next()
		if err == io.EOF {
			s.spools, s.r, s.rec = s.spools[1:], nil, nil
			continue
		}
		if err != nil {
			return 0, nil, err
		}
	}
	return s.at, s.rec, nil
}

// taken moves past the record peeked.
func (s *spooledGrains) taken() { s.rec = nil }
