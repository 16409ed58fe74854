package bcache

import "math/bits"

// The mmap mode keeps one bit per chunk of the image recording whether the
// chunk was ever handed out or written; a chunk never touched still reads as
// zero and is a hole of the sparse file, so Getblk need not (and must not,
// to keep the hole) clear it. Any chunk size is correct; the smaller it is,
// the fewer bytes Getblk clears needlessly. Chunks are 512 bytes, the
// smallest sector, unless that would make the bitmap larger than
// maxTrackBits bits (16 MiB, an image over 64 GiB): then they double until it
// fits.
const (
	minTrackShift = 9
	maxTrackBits  = 1 << 27
)

// trackShiftFor returns the chunk size, as a shift, for an image of size bytes.
func trackShiftFor(size int64) uint {
	s := uint(minTrackShift)
	for size>>s > maxTrackBits {
		s++
	}
	return s
}

// initTrack allocates the bitmap of touched chunks.
func (im *Image) initTrack() {
	im.trackShift = trackShiftFor(im.size)
	chunks := (im.size + 1<<im.trackShift - 1) >> im.trackShift
	im.touched = make([]uint64, (chunks+63)/64)
}

// markTouched records that [off, off+n) may now hold non-zero bytes.
func (im *Image) markTouched(off, n int64) {
	if n <= 0 {
		return
	}
	first, last := off>>im.trackShift, (off+n-1)>>im.trackShift
	for c := first; c <= last; {
		w, bit := c/64, c%64
		span := min(64-bit, last-c+1)
		im.touched[w] |= maskBits(bit, span)
		c += span
	}
}

// maskBits returns span one-bits starting at bit.
func maskBits(bit, span int64) uint64 {
	if span == 64 {
		return ^uint64(0)
	}
	return ((1 << uint(span)) - 1) << uint(bit)
}

// zero clears [off, off+n) of the mapping, skipping the chunks never touched
// (they read as zero already and are holes in the file), and marks the range
// touched, for a block handed out fresh. A fault while clearing becomes a
// *FaultError.
func (im *Image) zero(off, n int64) error {
	if n <= 0 {
		return nil
	}
	end := off + n
	first, last := off>>im.trackShift, (end-1)>>im.trackShift
	if w := first / 64; w == last/64 {
		// Fast path: the range lies in one bitmap word.
		mask := maskBits(first%64, last-first+1)
		if im.touched[w]&mask == 0 {
			im.touched[w] |= mask
			return nil
		}
	}
	err := im.clearTouched(off, n)
	im.markTouched(off, n)
	return err
}

// clearTouched clears the chunks of [off, off+n) of the mapping that were
// touched, and marks nothing: the others read as zero already, and stay
// holes of the file. A fault while clearing becomes a *FaultError.
func (im *Image) clearTouched(off, n int64) error {
	if n <= 0 {
		return nil
	}
	end := off + n
	first, last := off>>im.trackShift, (end-1)>>im.trackShift
	var err error
	for c := first; c <= last; {
		w, bit := c/64, c%64
		word := im.touched[w] >> uint(bit)
		if word == 0 {
			c += 64 - bit
			continue
		}
		c += int64(bits.TrailingZeros64(word))
		if c > last {
			break
		}
		run := c + 1
		for run <= last && im.touched[run/64]&(1<<uint(run%64)) != 0 {
			run++
		}
		lo, hi := max(off, c<<im.trackShift), min(end, run<<im.trackShift)
		if err == nil {
			err = im.Guard(func() error {
				clear(im.data[lo:hi])
				return nil
			})
		}
		c = run
	}
	return err
}

// nextTouched returns the first chunk from c to last that was touched, or
// last+1 when none was.
func (im *Image) nextTouched(c, last int64) int64 {
	for c <= last {
		w, bit := c/64, c%64
		if word := im.touched[w] >> uint(bit); word != 0 {
			return min(c+int64(bits.TrailingZeros64(word)), last+1)
		}
		c += 64 - bit
	}
	return last + 1
}

// nextUntouched returns the first chunk from c to last that was never
// touched, or last+1 when all were.
func (im *Image) nextUntouched(c, last int64) int64 {
	for c <= last {
		w, bit := c/64, c%64
		if word := ^im.touched[w] >> uint(bit); word != 0 {
			return min(c+int64(bits.TrailingZeros64(word)), last+1)
		}
		c += 64 - bit
	}
	return last + 1
}
