package bcache

import (
	"fmt"
	"io"
)

// ReadAt reads len(p) bytes of the image from byte off: the bytes written
// so far, which is what a hash or check of an image being built reads
// back. It implements io.ReaderAt. A range past the image's end is an
// error wrapping ErrRange, and one that overlaps a held buffer one
// wrapping ErrOverlap, since in copy mode the buffer's bytes are not in
// the file yet. In mmap mode the file is read with pread(2), not through
// the mapping, so that reading a large image back maps none of it into
// the process; a memory image copies from its bytes.
func (im *Image) ReadAt(p []byte, off int64) (int, error) {
	if err := im.checkOpen(); err != nil {
		return 0, err
	}
	off += im.base
	n := int64(len(p))
	if err := im.checkRange(off, n); err != nil {
		return 0, err
	}
	if i := im.heldEndingAfter(off); i < len(im.held) && im.held[i].off < off+n {
		return 0, fmt.Errorf("%w: a read of [%#x, +%#x) and the buffer at %#x", ErrOverlap, off-im.base, n, im.held[i].off-im.base)
	}
	if im.mem {
		return copy(p, im.data[off:off+n]), nil
	}
	m, err := im.f.ReadAt(p, off)
	if err == io.EOF && m == len(p) {
		err = nil
	}
	if err != nil {
		return m, fmt.Errorf("reading %s at offset %#x: %w", im.name, off+int64(m), im.untemp(err))
	}
	return m, nil
}

// DataRun returns the first range [lo, hi) of the image at or after off,
// cut at end, that may hold bytes other than zero: every byte from off
// to lo reads as zero. With only zeros left it returns (end, end). It is
// how a reader of the image skips what was never written without reading
// it: a 2 GiB FAT holding one small file is a few KiB of such ranges.
//
// In mmap mode and in memory the record of the chunks handed out or
// written (see Getblk) decides, at its grain (512 bytes, more for images
// over 64 GiB); in copy mode the image file's holes do (SEEK_DATA and
// SEEK_HOLE, on Linux), elsewhere the whole range is data. A range outside
// the image is cut to it.
func (im *Image) DataRun(off, end int64) (lo, hi int64) {
	off, end = max(off, 0), min(end, im.size)
	if off >= end {
		return end, end
	}
	off, end = off+im.base, end+im.base
	if im.touched != nil {
		first, last := off>>im.trackShift, (end-1)>>im.trackShift
		c := im.nextTouched(first, last)
		if c > last {
			return end - im.base, end - im.base
		}
		lo = max(off, c<<im.trackShift)
		hi = min(end, im.nextUntouched(c, last)<<im.trackShift)
	} else if im.f != nil {
		lo, hi = dataRun(im.f, off, end)
	} else {
		lo, hi = off, end
	}
	return lo - im.base, hi - im.base
}
