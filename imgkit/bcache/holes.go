package bcache

import (
	"fmt"
	"io"
	"os"
)

// holeMin is the shortest copy whose source CopyFrom and CopyFiles look
// for holes in: shorter ones are read whole, their holes as zeros. A
// probe costs one or two system calls; a hole shorter than a file
// system block saves nothing.
const holeMin = 1 << 20

// zeroBlock is the source of the zeros written over data that a hole of
// a source, or ZeroRange, replaces in a copy-mode image.
var zeroBlock [64 << 10]byte

// ZeroRange makes the n bytes at byte offset off of the image read as
// zero, writing nothing where they already do: a range of a new image
// that was never handed out or written stays a hole of the image file.
// In mmap mode and for the memory targets the cache's record of what was
// handed out or written decides (see Getblk); in copy mode the image
// file's own holes do (SEEK_DATA, on Linux; elsewhere the range is
// written). A held buffer that overlaps the range sees the zeros in every
// mode. It is how a writer puts a file that is all zeros (a file an mtree
// spec makes without contents) into the image.
func (im *Image) ZeroRange(off, n int64) error {
	if err := im.checkOpen(); err != nil {
		return err
	}
	off += im.base
	if err := im.checkRange(off, n); err != nil {
		return err
	}
	// The zeros count as written whether or not they needed a write:
	// they are the contents of the range.
	im.wrote(n)
	return im.zeroHole(off, n)
}

// zeroHole makes [off, off+n) of the image's file read as zero with as
// few writes as it can (see ZeroRange). It leaves the chunks never
// handed out or written unmarked: they stay holes, which DataRun skips.
func (im *Image) zeroHole(off, n int64) error {
	if n <= 0 {
		return nil
	}
	if im.data != nil {
		// The bitmap of touched chunks is the fresh/existing rule:
		// only what was handed out or written is cleared.
		return im.clearTouched(off, n)
	}
	end := off + n
	for pos := off; pos < end; {
		lo, hi := dataRun(im.f, pos, end)
		for p := lo; p < hi; {
			m := min(hi-p, int64(len(zeroBlock)))
			if _, err := im.f.WriteAt(zeroBlock[:m], p); err != nil {
				return fmt.Errorf("writing %s at offset %#x: %w", im.name, p, im.untemp(err))
			}
			p += m
		}
		pos = hi
	}
	for i := im.heldEndingAfter(off); i < len(im.held) && im.held[i].off < end; i++ {
		b := im.held[i]
		clear(b.data[max(off, b.off)-b.off : min(end, b.end())-b.off])
	}
	return nil
}

// holeyFiles returns the indices of the files of a CopyFiles batch whose
// sources may have holes: CopyFiles copies them one by one through
// CopyFrom, which skips the holes, and does not preallocate them.
func holeyFiles(files []FileCopy) []int {
	var holey []int
	for i := range files {
		if files[i].N >= holeMin && files[i].Path != "" && mayHaveHoles(files[i].Path) {
			holey = append(holey, i)
		}
	}
	return holey
}

// copyHoles copies n bytes of src, from its current offset on, into the
// image at off, data run by data run (SEEK_DATA and SEEK_HOLE): the holes
// of src are not read, and become holes of the image where its range is
// fresh (zeroHole). It reports whether it handled the copy; it does not
// when src has no holes in the range, is not a regular file, is shorter
// than the copy (CopyFrom's own path then reports that), or the system
// cannot tell, and src is then where it was.
func (im *Image) copyHoles(off int64, src *os.File, n int64) (bool, error) {
	if n < holeMin || !holesSupported || (im.data == nil && len(im.held) > 0) {
		return false, nil
	}
	fi, err := src.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false, nil
	}
	start, err := src.Seek(0, io.SeekCurrent)
	if err != nil || fi.Size() < start+n {
		return false, nil
	}
	end := start + n
	if lo, hi := dataRun(src, start, end); lo == start && hi == end {
		_, err := src.Seek(start, io.SeekStart) // lseek moved it
		return err != nil, err
	}
	for pos := start; pos < end; {
		lo, hi := dataRun(src, pos, end)
		im.wrote(lo - pos) // a hole is copied as the zeros it holds
		if err := im.zeroHole(off+pos-start, lo-pos); err != nil {
			return true, err
		}
		if lo < hi {
			if _, err := src.Seek(lo, io.SeekStart); err != nil {
				return true, fmt.Errorf("copying into %s at offset %#x: %w", im.name, off+lo-start, im.untemp(err))
			}
			if err := im.copyFrom(off+lo-start, src, hi-lo); err != nil {
				return true, err
			}
		}
		pos = hi
	}
	_, err = src.Seek(end, io.SeekStart)
	return true, err
}
