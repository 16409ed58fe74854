package bcache

import "math/bits"

// trackSize is the granularity of the mmap-mode record of bytes that may be
// non-zero. Any granularity is correct (bytes never handed out are zero); 4096
// matches the block size of common file systems, so a hole is never filled by
// zeroing a neighbour's range.
const trackSize = 4096

// markTouched records that [off, off+n) may now hold non-zero bytes.
func (im *Image) markTouched(off, n int64) {
	if n <= 0 {
		return
	}
	first, last := off/trackSize, (off+n-1)/trackSize
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
// touched. A fault while clearing becomes a *FaultError.
func (im *Image) zero(off, n int64) error {
	if n <= 0 {
		return nil
	}
	end := off + n
	first, last := off/trackSize, (end-1)/trackSize
	var err error
	for c := first; c <= last; {
		// Find a run of touched chunks starting at c.
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
		run := c
		for run <= last && im.touched[run/64]&(1<<uint(run%64)) != 0 {
			run++
		}
		lo, hi := max(off, c*trackSize), min(end, run*trackSize)
		if err == nil {
			err = im.guard(func() error {
				clear(im.data[lo:hi])
				return nil
			})
		}
		c = run
	}
	im.markTouched(off, n)
	return err
}
