package mkimg

import (
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"hash"
	"io"
	"os"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// linkedFormats are the container formats that read their raw disk only
// through rawDisk's methods (r, dataUnits, copyRun), never through its
// file: for them the raw disk's temporary file holds only the metadata,
// and each partition of a regular file is linked to its file instead of
// copied into it, so that a container of a large partition copies its
// data once, from the partition file to the container, not twice. A
// format's file adds itself from init.
var linkedFormats = map[string]bool{}

// rawPiece is a run of the raw disk read from a partition's file: the n
// bytes at disk offset off are the file's first n bytes.
type rawPiece struct {
	off, n int64
	f      *os.File
}

// link links p's file to the raw disk instead of copying it, when its
// source is a regular file that no metadata can share sectors with (no
// absolute offset), and reports whether it did; the file is hashed into
// h, when h is not nil, as copyTo would hash it.
func (k *linkedDisk) link(l *layout, p *placed, h hash.Hash) (bool, error) {
	if k == nil {
		return false, nil
	}
	src, ok := p.content().(fileSource)
	if !ok || p.Absolute || p.bytes == 0 {
		return false, nil
	}
	f, err := os.Open(string(src))
	if err != nil {
		return true, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("%s is not a regular file", src)
	case fi.Size() < int64(p.bytes):
		err = fmt.Errorf("%w: shrank from %d to %d bytes before being read", ErrSourceChanged, p.bytes, fi.Size())
	case h != nil:
		var stop atomic.Bool
		err = hashFile(h, string(src), fi, int64(p.bytes), &stop)
	}
	if err != nil {
		f.Close()
		return true, err
	}
	k.pieces = append(k.pieces, rawPiece{off: int64(p.start * l.secsz), n: int64(p.bytes), f: f})
	return true, nil
}

// linkedDisk is the raw disk of a temporary file holding the metadata
// and of the linked partitions' files: an io.ReaderAt over both. While
// the raw disk is written it collects the pieces (layout.links).
type linkedDisk struct {
	meta    *os.File
	pieces  []rawPiece    // sorted by offset once adopted, not overlapping
	grains  []*grainSpool // streams spooled as vmdks grains (linkGrains)
	adopted bool          // a rawDisk holds the pieces and closes their files
}

// startLinks returns the linkedDisk that collects the partitions of l's
// raw disk linked to their files, and sets l.links to it, when l's
// format is one of the linkedFormats; else nil.
func (l *layout) startLinks() *linkedDisk {
	if !linkedFormats[l.format.name] {
		return nil
	}
	l.links = &linkedDisk{}
	return l.links
}

// endLinks clears l.links once the raw disk is written, and closes the
// linked files when no raw disk adopted them (its writing failed).
func (l *layout) endLinks(k *linkedDisk) {
	l.links = nil
	if k != nil && !k.adopted {
		for _, p := range k.pieces {
			p.f.Close()
		}
	}
}

// adopt makes d, whose temporary file holds the metadata, the disk of
// that file and of k's linked partitions (nil k: none), whose files d
// closes.
func (d *rawDisk) adopt(k *linkedDisk) {
	if k == nil {
		return
	}
	slices.SortFunc(k.pieces, func(a, b rawPiece) int { return int(min(max(a.off-b.off, -1), 1)) })
	k.meta, k.adopted = d.file, true
	d.linked, d.r = k, linkedReader{k, d.size}
}

// segment returns the file that holds the disk's byte off, the offset in
// that file, and the end on the disk of the run it holds from there.
func (d *linkedDisk) segment(off, size int64) (f *os.File, fileOff, end int64) {
	i := sort.Search(len(d.pieces), func(i int) bool { return d.pieces[i].off+d.pieces[i].n > off })
	if i < len(d.pieces) && d.pieces[i].off <= off {
		p := d.pieces[i]
		return p.f, off - p.off, p.off + p.n
	}
	end = size
	if i < len(d.pieces) {
		end = d.pieces[i].off
	}
	return d.meta, off, end
}

// ReadAt reads the disk, from the metadata file between the linked
// partitions and from their files within them; size bounds it.
func (d *linkedDisk) readAt(p []byte, off, size int64) (int, error) {
	done := 0
	for done < len(p) {
		pos := off + int64(done)
		if pos >= size {
			return done, io.EOF
		}
		f, fileOff, end := d.segment(pos, size)
		m := int(min(int64(len(p)-done), end-pos))
		n, err := f.ReadAt(p[done:done+m], fileOff)
		done += n
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// linkedReader is a linkedDisk of a given size as an io.ReaderAt.
type linkedReader struct {
	d    *linkedDisk
	size int64
}

func (r linkedReader) ReadAt(p []byte, off int64) (int, error) { return r.d.readAt(p, off, r.size) }

// copyRun copies the n bytes of the raw disk at off into im at at: from
// the files that hold them, by the block cache's file path (shared
// extents or copy_file_range), or from memory. It is the last read of
// those bytes (a container copies each run once, in the disk's order,
// after every scan): the raw disk's temporary file gives back their
// space a diskio.ReleasePiece at a time as they are copied (consumed), so that
// the raw disk and the container together take little more than the
// container.
func (d *rawDisk) copyRun(im *bcache.Image, at, off, n int64) error {
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

// consumed gives back the space the raw disk's temporary file takes for
// the n bytes at off, which have been read for the last time (see
// copyRun); the partitions' files linked to the disk are left alone.
func (d *rawDisk) consumed(off, n int64) {
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

// segmentAt returns the file holding the disk's byte off, its offset
// there and the end of the run the file holds; for a disk of one file,
// that file to the disk's end.
func (d *rawDisk) segmentAt(off int64) (*os.File, int64, int64) {
	if d.linked == nil {
		return d.file, off, d.size
	}
	return d.linked.segment(off, d.size)
}
