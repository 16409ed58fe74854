package bcache

import (
	"errors"
	"fmt"
	"io"
	"runtime"
)

// memoryName stands for the path of a memory image in errors and in
// FaultError.Image.
const memoryName = "in-memory image"

// CreateMemory makes an image of size bytes in owned memory: one byte slice,
// all zero, with no file behind it. It has every method of an image file and
// gives the same bytes for the same calls: Getblk and Bread hand out slices
// of the image's bytes (zero-copy, as in ModeMmap; Mode reports ModeMemory),
// Getblk zeroes the parts of a fresh block that were handed out or written
// before, and WriteAt, CopyFrom and CopyFiles copy into the bytes, reading
// every source straight into them. Commit finishes the image and Bytes then
// returns it; Abort drops it. Options may be nil; its fields but Progress
// (Mode, Sync, Perm, Bulk) only make sense for an image file and are
// ignored.
//
// A negative size is an error wrapping ErrRange, and a size no byte slice
// can have on this platform (over what an int holds, or over what the Go
// runtime can allocate at once) one wrapping ErrTooLarge. Besides the image,
// the Image keeps at most one bit per 512 bytes of it (see Getblk) and the
// bookkeeping of held buffers, and allocates no copy buffers. A size the
// system has no memory for ends the program, as any Go allocation that
// fails does.
func CreateMemory(size int64, opts *Options) (*Image, error) {
	data, err := allocImage(size)
	if err != nil {
		return nil, err
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	im := &Image{name: memoryName, size: size, mode: ModeMemory, opts: o, mem: true, data: data}
	o.Progress.Step("writing", size)
	im.initTrack()
	return im, nil
}

// CreateWriterAt makes an image of size bytes in owned memory, as
// CreateMemory does, for w: Commit writes every byte of the image to w, at
// offsets 0 to size, in pieces of about 1 MiB, and then drops the image
// (Bytes stays nil). The regions of the image never written are written too,
// as zeros, so bytes that w held before cannot survive in the image; w is
// not written beyond size. Nothing is written to w before Commit, and never
// if the image is aborted. An error from w (or a short write) fails Commit
// with an error that wraps it and names the offset of the first byte not
// written; w may then hold part of the image.
//
// The size is checked, and the options taken (only Progress counts), as
// by CreateMemory; a nil w is an error.
//
// A w that is an InPlaceCreator (a Section of another image) is not
// written at Commit: the image is w.CreateInPlace(size), built in place
// in that other image, which keeps memory flat and the ranges never
// written holes of its file (see Section.CreateInPlace); opts are then
// that image's.
func CreateWriterAt(w io.WriterAt, size int64, opts *Options) (*Image, error) {
	if w == nil {
		return nil, errors.New("bcache: CreateWriterAt with a nil io.WriterAt")
	}
	if ip, ok := w.(InPlaceCreator); ok {
		return ip.CreateInPlace(size)
	}
	im, err := CreateMemory(size, opts)
	if err != nil {
		return nil, err
	}
	im.out = w
	return im, nil
}

// allocImage returns size zero bytes for a memory image, or an error if no
// byte slice can be that long here. make panics (a runtime.Error) for a
// length the runtime cannot allocate at once, over 2^48 bytes on most 64-bit
// systems; that becomes ErrTooLarge too.
func allocImage(size int64) (data []byte, err error) {
	if size < 0 {
		return nil, fmt.Errorf("%w: size %d", ErrRange, size)
	}
	if !fitsInt(size) {
		return nil, fmt.Errorf("%w: %d bytes, more than an int holds on %s/%s", ErrTooLarge, size, runtime.GOOS, runtime.GOARCH)
	}
	defer func() {
		if r := recover(); r != nil {
			re, ok := r.(runtime.Error)
			if !ok {
				panic(r)
			}
			data, err = nil, fmt.Errorf("%w: %d bytes: %v", ErrTooLarge, size, re)
		}
	}()
	return make([]byte, size), nil
}

// Bytes returns the image made by CreateMemory once Commit has succeeded:
// Size bytes that the caller now owns. It returns nil before Commit, after
// Abort, and for the images of Create and CreateWriterAt (a section's too).
func (im *Image) Bytes() []byte {
	if !im.mem || im.state != stateCommitted || im.data == nil || im.parent != nil {
		return nil // CreateWriterAt's Commit drops data; a section's are another image's
	}
	return im.data[:im.size:im.size]
}

// commitMemory finishes a memory image: it drops what only the building
// needed and, for CreateWriterAt, writes the image to its writer and drops
// the image too.
func (im *Image) commitMemory() error {
	im.touched, im.slab = nil, nil
	if im.out == nil {
		return nil
	}
	for off := int64(0); off < im.size; {
		p := im.data[off:min(off+bulkSize, im.size)]
		n, err := im.out.WriteAt(p, off)
		if err == nil && n < len(p) {
			err = io.ErrShortWrite
		}
		if err != nil {
			return fmt.Errorf("writing the image to its io.WriterAt at offset %#x: %w", off+int64(max(n, 0)), err)
		}
		off += int64(len(p))
	}
	im.data, im.out = nil, nil
	return nil
}
