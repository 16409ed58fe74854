package mkimg

import (
	"bytes"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"io"
	"os"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/filelock"
	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// rawDisk is the finished raw disk a container format lays out: its
// bytes, as mkimg's image.c holds them before format_write, and its
// logical sector size.
type rawDisk struct {
	r     io.ReaderAt
	size  int64
	secsz int64
	file  *os.File // the temporary file holding the disk; nil in memory
	// linked, for the linkedFormats, is the disk of the temporary file
	// (then only the metadata) and the partitions' files (container_link.go).
	linked *linkedDisk
	meter  *progress.Meter // Options.Progress: told of the scans for data
	spool  spoolPlace      // where the formats' own spools go
}

// scanning begins the step of a scan of the whole disk for its data
// (dataUnits) on the disk's meter.
func (d *rawDisk) scanning() *progress.Step { return d.meter.Step("scanning for data", d.size) }

// hasData reports whether any of the n bytes at off is other than zero,
// as mkimg's image_data asks of a run of sectors: a container stores only
// the clusters or blocks that hold data. Bytes past the disk's end are
// zeros; the holes of a disk in a sparse file are skipped unread
// (dataRun).
func (d *rawDisk) hasData(off, n int64) (bool, error) {
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
		lo, hi := d.dataRun(off)
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
func (d *rawDisk) scan(off, end int64) (bool, error) {
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

// close removes the temporary file holding the disk and closes the
// linked partitions' files.
func (d *rawDisk) close() {
	if d.linked != nil {
		for _, p := range d.linked.pieces {
			p.f.Close()
		}
		d.linked = nil
	}
	if d.file != nil {
		name := d.file.Name()
		d.file.Close()
		os.Remove(name)
		tempfile.Forget(name)
		d.file = nil
	}
}

// writeContainer writes the disk l describes at t in l's container
// format: the raw disk first, in memory when t is or in a temporary file
// in spoolDir (beside the container, or os.TempDir for ""), then the
// container of the size the format lays out, through imgfmt.WriteImage as
// every image is written, both with the block cache options c. The raw
// disk is removed after.
func writeContainer(t imgfmt.Target, spool spoolPlace, l *layout, c *bcache.Options) (*bcache.Image, error) {
	raw, err := l.buildRaw(t.InMemory(), spool, c)
	if err != nil {
		return nil, err
	}
	defer raw.close()
	size, write, err := l.format.container(l, raw)
	if err != nil {
		return nil, err
	}
	return imgfmt.WriteImage(t, size, c, write) // the disk's options (c copies diskCache): copy_file_range for the runs copied whole
}

// buildRaw writes the raw disk l describes, as -f raw writes it, and
// returns it for a container format to read.
func (l *layout) buildRaw(inMemory bool, spool spoolPlace, c *bcache.Options) (*rawDisk, error) {
	size := int64(l.sectors * l.secsz)
	if inMemory {
		im, err := imgfmt.WriteImage(imgfmt.ToMemory(), size, c, l.write)
		if err != nil {
			return nil, err
		}
		return &rawDisk{r: bytes.NewReader(im.Bytes()), size: size, secsz: int64(l.secsz), meter: l.meter}, nil
	}
	links := l.startLinks()
	defer l.endLinks(links)
	f, err := spool.create("raw")
	if err != nil {
		return nil, fmt.Errorf("mkimg: raw disk: %w", err)
	}
	raw := &rawDisk{size: size, secsz: int64(l.secsz), file: f, spool: spool, meter: l.meter}
	if _, err := imgfmt.WriteImage(imgfmt.ToFile(f.Name()), size, c, l.write); err != nil {
		raw.close()
		return nil, err
	}
	// The image was renamed over the temporary file: read the new one.
	g, err := os.OpenFile(f.Name(), os.O_RDWR, 0) // writable, to give back its space as it is read (punchHole)
	if err != nil {
		raw.close()
		return nil, fmt.Errorf("mkimg: raw disk: %w", err)
	}
	f.Close()
	// Nothing reads the raw disk by its name now: unlinked, it goes with
	// the process, however that ends (a system that keeps an open file's
	// name keeps it locked, for tempfile.Leftovers, and close removes it).
	filelock.TryLock(g)
	if os.Remove(g.Name()) == nil {
		tempfile.Forget(g.Name())
	}
	raw.file, raw.r = g, g
	raw.adopt(links)
	return raw, nil
}
