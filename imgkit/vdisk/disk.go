package vdisk

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sort"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// A Disk is the finished raw disk a Format's Write lays out, as mkimg's
// image.c holds it before format_write: its bytes, in memory or in a
// temporary file and the files of the partitions linked to it (Piece),
// whose holes are skipped unread. A Write reads it only through its
// methods, and reads each byte for the last time with CopyTo or
// Consumed, which give the temporary file's space back.
type Disk struct {
	// Meter is told of the scans for data (Scanning); nil shows nothing.
	Meter *progress.Meter
	// Streams are the partitions' contents a Streamer spooled in its own
	// form and linked to the disk (Stream.Link), which holds zeros where
	// they go; the Streamer's Write takes them from here.
	Streams []Stream

	r      io.ReaderAt
	size   int64
	file   *os.File // the temporary file holding the disk; nil in memory
	pieces []Piece  // sorted by offset, not overlapping
	spool  func(what string) (*os.File, error)
}

// A Piece is a run of a Disk read from a partition's file: the N bytes at
// the disk's byte Off are the first N bytes of F.
type Piece struct {
	Off, N int64
	F      *os.File
}

// NewDisk returns the disk of the size bytes of r, held in memory.
func NewDisk(r io.ReaderAt, size int64) *Disk { return &Disk{r: r, size: size} }

// NewFileDisk returns the disk of size bytes held by f, a temporary file
// the disk owns, but for the pieces read from the files they name (which
// it closes too). spool makes the unlinked temporary files a Write keeps
// its own spools in, named for what they hold.
func NewFileDisk(f *os.File, size int64, pieces []Piece, spool func(what string) (*os.File, error)) *Disk {
	slices.SortFunc(pieces, func(a, b Piece) int { return int(min(max(a.Off-b.Off, -1), 1)) })
	d := &Disk{size: size, file: f, pieces: pieces, spool: spool}
	d.r = f
	if len(pieces) > 0 {
		d.r = pieceReader{d}
	}
	return d
}

// Size returns the disk's size in bytes.
func (d *Disk) Size() int64 { return d.size }

// ReadAt reads the disk's bytes at off.
func (d *Disk) ReadAt(p []byte, off int64) (int, error) { return d.r.ReadAt(p, off) }

// InMemory reports whether the disk is held in memory: a Write keeps its
// spools in memory too.
func (d *Disk) InMemory() bool { return d.file == nil }

// Spool returns a new unlinked temporary file, named for what it holds,
// beside the disk's; nil for a disk in memory.
func (d *Disk) Spool(what string) (*os.File, error) {
	if d.file == nil {
		return nil, nil
	}
	return d.spool(what)
}

// Scanning begins the step of a scan of the whole disk for its data
// (DataUnits) on the disk's meter.
func (d *Disk) Scanning() *progress.Step { return d.Meter.Step("scanning for data", d.size) }

// Close closes the disk's temporary file and the pieces' files.
func (d *Disk) Close() {
	for _, p := range d.pieces {
		p.F.Close()
	}
	d.pieces = nil
	if d.file != nil {
		d.file.Close()
		d.file = nil
	}
}

// HasData reports whether any of the n bytes at off is other than zero,
// as mkimg's image_data asks of a run of sectors: a container stores only
// the clusters or blocks that hold data. Bytes past the disk's end are
// zeros; the holes of a disk in a sparse file are skipped unread
// (NextData).
func (d *Disk) HasData(off, n int64) (bool, error) {
	if off >= d.size || n <= 0 {
		return false, nil
	}
	end := off + min(n, d.size-off)
	if d.file == nil {
		return d.scan(off, end)
	}
	// Only the files' data can hold other than zeros: their holes are not
	// read (a 2 TiB disk of sparse partitions is mostly holes).
	for off < end {
		lo, hi := d.NextData(off)
		if lo >= end {
			return false, nil
		}
		if found, err := d.scan(lo, min(hi, end)); found || err != nil {
			return found, err
		}
		off = hi
	}
	return false, nil
}

// scan reads the bytes from off to end and reports whether one is other
// than zero.
func (d *Disk) scan(off, end int64) (bool, error) {
	buf := make([]byte, min(end-off, 1<<16))
	for off < end {
		m := min(end-off, int64(len(buf)))
		if _, err := d.r.ReadAt(buf[:m], off); err != nil {
			return false, fmt.Errorf("mkimg: reading the raw disk at byte %d: %w", off, err)
		}
		if !diskio.IsZero(buf[:m]) {
			return true, nil
		}
		off += m
	}
	return false, nil
}

// segmentAt returns the file that holds the disk's byte off, the offset
// in that file, and the end on the disk of the run it holds from there.
func (d *Disk) segmentAt(off int64) (f *os.File, fileOff, end int64) {
	i := sort.Search(len(d.pieces), func(i int) bool { return d.pieces[i].Off+d.pieces[i].N > off })
	if i < len(d.pieces) && d.pieces[i].Off <= off {
		p := d.pieces[i]
		return p.F, off - p.Off, p.Off + p.N
	}
	end = d.size
	if i < len(d.pieces) {
		end = d.pieces[i].Off
	}
	return d.file, off, end
}

// pieceReader reads a disk of pieces: from the temporary file between
// them and from their files within them; the disk's size bounds it.
type pieceReader struct{ d *Disk }

func (r pieceReader) ReadAt(p []byte, off int64) (int, error) {
	done := 0
	for done < len(p) {
		pos := off + int64(done)
		if pos >= r.d.size {
			return done, io.EOF
		}
		f, fileOff, end := r.d.segmentAt(pos)
		m := int(min(int64(len(p)-done), end-pos))
		n, err := f.ReadAt(p[done:done+m], fileOff)
		done += n
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// CopyTo copies the n bytes of the disk at off into im at at: from the
// files that hold them, by the block cache's file path (shared extents
// or copy_file_range), or from memory. It is the last read of those
// bytes (a container copies each run once, in the disk's order, after
// every scan): the temporary file gives back their space a
// diskio.ReleasePiece at a time as they are copied, so that the raw disk
// and the container together take little more than the container.
func (d *Disk) CopyTo(im *bcache.Image, at, off, n int64) error {
	if d.file == nil {
		return im.CopyFrom(at, io.NewSectionReader(d.r, off, n), n)
	}
	for n > 0 {
		f, fileOff, end := d.segmentAt(off)
		m := min(n, end-off)
		if f == d.file {
			m = min(m, diskio.ReleasePiece)
		}
		if _, err := f.Seek(fileOff, io.SeekStart); err != nil {
			return fmt.Errorf("mkimg: raw disk: %w", err)
		}
		if err := im.CopyFrom(at, f, m); err != nil {
			return err
		}
		if f == d.file {
			diskio.PunchHole(f, fileOff, m)
		}
		at, off, n = at+m, off+m, n-m
	}
	return nil
}

// Consumed gives back the space the temporary file takes for the n bytes
// at off, which have been read for the last time (see CopyTo); the
// pieces' files are left alone.
func (d *Disk) Consumed(off, n int64) {
	if d.file == nil {
		return
	}
	for end := min(off+n, d.size); off < end; {
		f, fileOff, segEnd := d.segmentAt(off)
		m := min(end, segEnd) - off
		if f == d.file {
			diskio.PunchHole(f, fileOff, m)
		}
		off += m
	}
}
