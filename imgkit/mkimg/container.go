package mkimg

import (
	"bytes"
	"fmt"
	"os"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/internal/filelock"
	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// writeContainer writes the disk l describes at t in l's container
// format: the raw disk first, in memory when t is or in a temporary file
// in spoolDir (beside the container, or os.TempDir for ""), then the
// container of the size the format lays out, through imgfmt.WriteImage as
// every image is written, both with the block cache options c. The raw
// disk is removed after.
func writeContainer(t imgfmt.Target, spool spoolPlace, l *layout, c *bcache.Options) (*bcache.Image, error) {
	raw, done, err := l.buildRaw(t.InMemory(), spool, c)
	if err != nil {
		return nil, err
	}
	defer done()
	size, write, err := l.format.Write(l.params(), raw)
	if err != nil {
		return nil, err
	}
	return imgfmt.WriteImage(t, size, c, write) // the disk's options (c copies diskCache): copy_file_range for the runs copied whole
}

// buildRaw writes the raw disk l describes, as -f raw writes it, and
// returns it for a container format to read, and the function that
// closes and removes it: in memory, or in an unlinked temporary file in
// spool with the partitions of regular files linked to it rather than
// copied in (linkedDisk).
func (l *layout) buildRaw(inMemory bool, spool spoolPlace, c *bcache.Options) (*vdisk.Disk, func(), error) {
	size := int64(l.sectors * l.secsz)
	if inMemory {
		im, err := imgfmt.WriteImage(imgfmt.ToMemory(), size, c, l.write)
		if err != nil {
			return nil, nil, err
		}
		d := vdisk.NewDisk(bytes.NewReader(im.Bytes()), size)
		d.Meter = l.meter
		return d, func() {}, nil
	}
	links := l.startLinks()
	defer l.endLinks(links)
	f, err := spool.create("raw")
	if err != nil {
		return nil, nil, fmt.Errorf("mkimg: raw disk: %w", err)
	}
	remove := func() {
		f.Close()
		os.Remove(f.Name())
		tempfile.Forget(f.Name())
	}
	if _, err := imgfmt.WriteImage(imgfmt.ToFile(f.Name()), size, c, l.write); err != nil {
		remove()
		return nil, nil, err
	}
	// The image was renamed over the temporary file: read the new one.
	g, err := os.OpenFile(f.Name(), os.O_RDWR, 0) // writable, to give back its space as it is read (diskio.PunchHole)
	if err != nil {
		remove()
		return nil, nil, fmt.Errorf("mkimg: raw disk: %w", err)
	}
	f.Close()
	// Nothing reads the raw disk by its name now: unlinked, it goes with
	// the process, however that ends (a system that keeps an open file's
	// name keeps it locked, for tempfile.Leftovers, and close removes it).
	filelock.TryLock(g)
	if os.Remove(g.Name()) == nil {
		tempfile.Forget(g.Name())
	}
	pieces := links.adopt()
	l.linked, l.rawFile = len(pieces), g
	d := vdisk.NewFileDisk(g, size, pieces, spool.unlinked)
	d.Meter, d.Streams = l.meter, links.streams
	return d, func() { d.Close(); remove() }, nil
}
