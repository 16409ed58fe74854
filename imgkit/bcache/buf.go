package bcache

import "fmt"

// A Buf is a block of the image handed out by Getblk or Bread. It is held
// until Bwrite or Brelse releases it; after that its Data must not be used.
type Buf struct {
	im    *Image
	off   int64
	data  []byte
	fresh bool
	held  bool
}

// Data returns the block's bytes. In mmap mode they are the mapped bytes of
// the image themselves, so writes to them are writes to the image (and may
// fault; see Image.Guard); in a memory image (ModeMemory) they are the
// image's bytes too. In copy mode they are an owned buffer that Bwrite
// writes back.
func (b *Buf) Data() []byte { return b.data }

// Off returns the byte offset of the block in the image.
func (b *Buf) Off() int64 { return b.off - b.im.base }

// Fresh reports whether the buffer was allocated by Getblk (zeroed, never
// read) rather than read by Bread.
func (b *Buf) Fresh() bool { return b.fresh }

func (b *Buf) end() int64 { return b.off + int64(len(b.data)) }

// Getblk returns a fresh block: the bytes [off, off+size) of the image,
// zeroed and never read from the file. If a buffer at off is still held, it is
// returned as it is, not wiped (grown to size if it is shorter). A block that
// overlaps a different held buffer is an error wrapping ErrOverlap.
//
// In mmap mode the zeroing skips the parts of the block that were never
// handed out or written before: they are still holes of the sparse file, and
// stay holes unless the caller writes to them. A memory image skips them
// too: they are still zero.
func (im *Image) Getblk(off int64, size int) (*Buf, error) {
	return im.getbuf(off+im.base, size, true)
}

// Bread returns a block holding the existing bytes [off, off+size) of the
// image. If a buffer at off is still held, it is returned as it is, not
// re-read (grown to size if it is shorter). A block that overlaps a different
// held buffer is an error wrapping ErrOverlap.
func (im *Image) Bread(off int64, size int) (*Buf, error) {
	return im.getbuf(off+im.base, size, false)
}

// getbuf is Getblk (fresh) and Bread at an offset of the image's file,
// base added; a Buf keeps that offset.
func (im *Image) getbuf(off int64, size int, fresh bool) (*Buf, error) {
	if err := im.checkOpen(); err != nil {
		return nil, err
	}
	if size <= 0 {
		return nil, fmt.Errorf("%w: block size %d at offset %#x", ErrRange, size, off-im.base)
	}
	if err := im.checkRange(off, int64(size)); err != nil {
		return nil, err
	}
	i := im.heldIndex(off)
	if i < len(im.held) && im.held[i].off == off {
		b := im.held[i]
		if size > len(b.data) {
			if err := b.Grow(size); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	if err := im.checkOverlap(i, off, int64(size)); err != nil {
		return nil, err
	}
	b := im.newBuf() // zeroed; set the fields one by one to spare write barriers
	b.im, b.off, b.fresh, b.held = im, off, fresh, true
	if im.data != nil {
		if fresh {
			if err := im.zero(off, int64(size)); err != nil {
				return nil, err
			}
		} else {
			im.markTouched(off, int64(size))
		}
		b.data = im.data[off : off+int64(size) : off+int64(size)]
	} else {
		b.data = make([]byte, size)
		if !fresh {
			if _, err := im.f.ReadAt(b.data, off); err != nil {
				return nil, fmt.Errorf("reading %s at offset %#x: %w", im.name, off, im.untemp(err))
			}
		}
	}
	if i == len(im.held) {
		im.held = append(im.held, b)
	} else {
		im.held = append(im.held, nil)
		copy(im.held[i+1:], im.held[i:])
		im.held[i] = b
	}
	return b, nil
}

// checkOverlap reports ErrOverlap if [off, off+n) overlaps a held buffer
// other than one starting at off; i is where a buffer at off sorts in held.
func (im *Image) checkOverlap(i int, off, n int64) error {
	if i > 0 && im.held[i-1].end() > off {
		p := im.held[i-1]
		return fmt.Errorf("%w: [%#x, +%#x) and the buffer at %#x", ErrOverlap, off-im.base, n, p.off-im.base)
	}
	if i < len(im.held) && im.held[i].off == off {
		i++
	}
	if i < len(im.held) && im.held[i].off < off+n {
		return fmt.Errorf("%w: [%#x, +%#x) and the buffer at %#x", ErrOverlap, off-im.base, n, im.held[i].off-im.base)
	}
	return nil
}

// release takes b out of the held set.
func (im *Image) release(b *Buf) {
	b.held = false
	i := im.heldIndex(b.off)
	if i < len(im.held) && im.held[i] == b {
		if i < len(im.held)-1 {
			copy(im.held[i:], im.held[i+1:])
		}
		im.held[len(im.held)-1] = nil
		im.held = im.held[:len(im.held)-1]
	}
}

// Bwrite writes the buffer to the image and releases it. In copy mode that is
// one pwrite; in mmap mode and in a memory image the bytes are already in
// the image.
func (im *Image) Bwrite(b *Buf) error {
	if b == nil || b.im != im || !b.held {
		return ErrNotHeld
	}
	im.release(b)
	if im.data != nil {
		im.wrote(int64(len(b.data)))
		return nil
	}
	n, err := im.f.WriteAt(b.data, b.off)
	im.wrote(int64(n))
	if err != nil {
		return fmt.Errorf("writing %s at offset %#x: %w", im.name, b.off, im.untemp(err))
	}
	return nil
}

// Brelse releases a buffer without writing it. In copy mode its changes are
// dropped; in mmap mode and in a memory image they are already in the
// image, so a buffer that was changed must be released with Bwrite for the
// modes to agree. Releasing a buffer that is not held does nothing.
func (im *Image) Brelse(b *Buf) {
	if b == nil || b.im != im || !b.held {
		return
	}
	im.release(b)
}

// Grow extends the held buffer in place to size bytes, as FFS does when it
// extends a file's last fragments; the added bytes are zero (in mmap mode,
// added bytes that were never handed out before are left as holes). In mmap
// mode Data stays the mapped bytes, in a memory image the image's bytes.
// Growing past the end of the image or into another held buffer is an
// error, and so is shrinking.
func (b *Buf) Grow(size int) error {
	im := b.im
	if im == nil || !b.held {
		return ErrNotHeld
	}
	if err := im.checkOpen(); err != nil {
		return err
	}
	old := len(b.data)
	switch {
	case size < old:
		return fmt.Errorf("%w: from %d to %d bytes at offset %#x", ErrShrink, old, size, b.off-im.base)
	case size == old:
		return nil
	}
	if err := im.checkRange(b.off, int64(size)); err != nil {
		return err
	}
	i := im.heldIndex(b.off)
	if err := im.checkOverlap(i, b.off, int64(size)); err != nil {
		return err
	}
	if im.data != nil {
		if err := im.zero(b.off+int64(old), int64(size-old)); err != nil {
			return err
		}
		b.data = im.data[b.off : b.off+int64(size) : b.off+int64(size)]
		return nil
	}
	if size <= cap(b.data) {
		b.data = b.data[:size]
		clear(b.data[old:])
		return nil
	}
	d := make([]byte, size)
	copy(d, b.data)
	b.data = d
	return nil
}

// heldIndex returns the index of the first held buffer at or after off.
func (im *Image) heldIndex(off int64) int {
	lo, hi := 0, len(im.held)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if im.held[m].off < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// heldEndingAfter returns the index of the first held buffer that ends after
// off. Held buffers do not overlap, so their ends are sorted too.
func (im *Image) heldEndingAfter(off int64) int {
	lo, hi := 0, len(im.held)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if im.held[m].end() <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// bufSlab is how many Buf structs newBuf allocates at a time. A released Buf
// is never reused (a stale pointer to it must not alias a newer block); the
// slab only saves the garbage collector one small object per block.
const bufSlab = 128

// newBuf returns an unused Buf.
func (im *Image) newBuf() *Buf {
	if len(im.slab) == 0 {
		im.slab = make([]Buf, bufSlab)
	}
	b := &im.slab[0]
	im.slab = im.slab[1:]
	return b
}

// advanceBufs returns bufs without their first k bytes, those a short
// vectored write wrote, leaving the caller's slices as they were.
func advanceBufs(bufs [][]byte, k int) [][]byte {
	for k > 0 && len(bufs) > 0 {
		if k < len(bufs[0]) {
			rest := append([][]byte(nil), bufs...) // the caller's stay whole
			rest[0] = rest[0][k:]
			return rest
		}
		k -= len(bufs[0])
		bufs = bufs[1:]
	}
	for len(bufs) > 0 && len(bufs[0]) == 0 {
		bufs = bufs[1:]
	}
	return bufs
}
