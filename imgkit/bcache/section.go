package bcache

import (
	"fmt"
	"io"
)

// A Section is the io.WriterAt of a range of an image under construction,
// as io.SectionReader is the io.ReaderAt of one: its offset 0 is the
// range's first byte. It is also an InPlaceCreator: CreateWriterAt given
// a Section builds its image in place in the range, through the block
// cache of the image the range is in, rather than in memory.
//
// That is how a disk gets a file system without an intermediate copy:
// a format's Write (msdos.Write, ffs.Write, cd9660.Write) given a Section
// writes straight into the disk's mapping or file, so that what the
// format leaves unwritten stays a hole of the disk's file and memory does
// not grow with the file system's size.
type Section struct {
	im     *Image
	off, n int64
}

// Section returns the Section of the n bytes of im from byte off. The
// range is checked when the Section is used.
func (im *Image) Section(off, n int64) *Section { return &Section{im: im, off: off, n: n} }

// An InPlaceCreator is an io.WriterAt that CreateWriterAt builds its
// image in, in place, by calling CreateInPlace: a Section, or a type that
// wraps one (mkimg's partitions, which check the size first).
type InPlaceCreator interface {
	io.WriterAt
	CreateInPlace(size int64) (*Image, error)
}

// Size returns the number of bytes of the section.
func (s *Section) Size() int64 { return s.n }

// WriteAt writes p at byte off of the section, as the image's WriteAt
// does; a write past the section's end is refused whole with an error
// wrapping ErrRange.
func (s *Section) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off > s.n || int64(len(p)) > s.n-off {
		return 0, fmt.Errorf("%w: a write of %d bytes at offset %#x of a section of %#x bytes", ErrRange, len(p), off, s.n)
	}
	return s.im.WriteAt(p, s.off+off)
}

// CreateInPlace returns an image of size bytes that is the first size
// bytes of the section: its offset 0 is the section's first byte, and
// its Getblk, Bread, WriteAt, CopyFrom, CopyFiles and ZeroRange are those
// of the image the section is in, in that image's mode (its mapping, file
// or memory) and options (Progress counts there). Its bytes start as
// zeros, as those of CreateWriterAt's image do: a range never handed out
// or written is left alone, and stays a hole of the file; one that was
// is cleared.
//
// Unlike CreateWriterAt's image, this one is written as it is built: its
// Commit only ends it (it fails with ErrHeld while buffers are held), and
// on Abort, or a failed build, the section holds whatever was written;
// the image it is in is the one to abort. Errors name the file of that
// image and offsets in it, as its own do. Until it is committed or
// aborted, nothing else may write the section's range or hold a buffer
// over it; an image the section is in that is already committed or
// aborted makes every call fail with ErrClosed. An image larger than the
// section, a range outside the image, or a held buffer of that image
// over the range is an error.
func (s *Section) CreateInPlace(size int64) (*Image, error) {
	p := s.im
	if err := p.checkOpen(); err != nil {
		return nil, err
	}
	if size < 0 || size > s.n {
		return nil, fmt.Errorf("%w: an image of %d bytes in a section of %d", ErrRange, size, s.n)
	}
	off := p.base + s.off
	if err := p.checkRange(off, s.n); err != nil {
		return nil, err
	}
	if i := p.heldEndingAfter(off); i < len(p.held) && p.held[i].off < off+size {
		return nil, fmt.Errorf("%w: a section at %#x and the buffer at %#x", ErrOverlap, s.off, p.held[i].off-p.base)
	}
	im := &Image{name: p.name, target: p.target, size: size, mode: p.mode, opts: p.opts, state: stateOpen,
		f: p.f, mem: p.mem, data: p.data, touched: p.touched, trackShift: p.trackShift,
		base: off, parent: p}
	im.clone.bsize, im.clone.least = p.clone.bsize, p.clone.least
	im.clone.off.Store(p.clone.off.Load())
	if err := im.zeroHole(off, size); err != nil {
		return nil, err
	}
	return im, nil
}
