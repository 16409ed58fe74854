package vhd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/blocks"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/verr"
	"io"
)

// ErrFormat reports a VHD the reader cannot open: a differencing disk, or
// a footer or dynamic header that fails its checks.
var ErrFormat = errors.New("mkimg: not a VHD the package reads")

// vhdMaxBlockSize bounds a dynamic VHD's Block Size the reader accepts
// (the specification's default is 2 MiB).
const vhdMaxBlockSize = 1 << 28

// Match reports whether head begins a dynamic VHD: the copy of the
// footer, Cookie "conectix". A fixed VHD's footer is at its end
// (MatchTail).
func (f Format) Match(head []byte) bool {
	return !f.Fixed && len(head) >= vhdSectorSize && string(head[:8]) == vhdFooterCookie
}

// MatchTail reports whether r (size bytes) is a fixed VHD: it ends in a
// fixed disk's footer whose Current Size is the rest of the file.
func (f Format) MatchTail(r io.ReaderAt, size int64) bool {
	_, ok := openFixedVHD(r, size)
	return f.Fixed && ok
}

// Open opens the disk a VHD of size bytes in r holds: a dynamic one, or
// for Fixed a fixed one.
func (f Format) Open(r io.ReaderAt, size int64) (vdisk.Reader, error) {
	if f.Fixed {
		d, ok := openFixedVHD(r, size)
		if !ok {
			return nil, verr.Container(ErrFormat, "vhdf", -1, "", "no fixed disk's footer at the file's end")
		}
		return d, nil
	}
	d, _, err := vhdOpen(r, size)
	if err != nil {
		return nil, err
	}
	return d.(*vhdReader), nil
}

// readVHDFooter reads and checks the footer at off of r.
func readVHDFooter(r io.ReaderAt, off int64) (*vhdFooter, error) {
	var f vhdFooter
	if _, err := r.ReadAt(f[:], off); err != nil {
		if verr.PastEnd(err) {
			return nil, vhdErr(-1, "", "a footer at byte %#x runs past the file's end", off)
		}
		return nil, fmt.Errorf("%w: reading the footer at byte %#x: %w", ErrFormat, off, err)
	}
	if string(f.cookie()) != vhdFooterCookie {
		return nil, vhdErr(off, "Cookie", "no footer Cookie at byte %#x", off)
	}
	want := binary.BigEndian.Uint32(f.checksum())
	g := f
	clear(g.checksum())
	if got := vhdChecksum(g[:]); got != want {
		return nil, vhdErr(off+verr.At(f[:], f.checksum()), "Checksum", "footer Checksum %#08x, want %#08x", want, got)
	}
	return &f, nil
}

// vhdErr returns the *imgfmt.FormatError, wrapping ErrFormat, of the VHD
// structure at byte off whose field, as the VHD specification names it,
// is field.
func vhdErr(off int64, field, format string, args ...any) error {
	return verr.Container(ErrFormat, "vhd", off, field, format, args...)
}

// vhdOpen opens a dynamic VHD of size bytes in r: its footer's copy at
// the start, the dynamic header at its Data Offset and the BAT at the
// header's Table Offset, all checked against the file's size. The disk
// is Current Size bytes; blocks the BAT does not list read as zeros.
func vhdOpen(r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	f, err := readVHDFooter(r, 0)
	if err != nil {
		return nil, 0, err
	}
	be := binary.BigEndian
	switch t := be.Uint32(f.diskType()); t {
	case vhdDiskTypeDynamic:
	case vhdDiskTypeDifferencing:
		return nil, 0, vhdErr(verr.At(f[:], f.diskType()), "Disk Type", "a differencing VHD, which needs its parent")
	default:
		return nil, 0, vhdErr(verr.At(f[:], f.diskType()), "Disk Type", "Disk Type %d at the file's start, want a dynamic disk (3)", t)
	}
	current := be.Uint64(f.currentSize())
	hoff := be.Uint64(f.dataOffset())
	if hoff > uint64(size) || uint64(size)-hoff < 1024 {
		return nil, 0, vhdErr(verr.At(f[:], f.dataOffset()), "Data Offset", "Data Offset %d past the file's %d bytes", hoff, size)
	}
	var h vhdDynamicHeader
	if _, err := r.ReadAt(h[:], int64(hoff)); err != nil {
		if verr.PastEnd(err) {
			return nil, 0, vhdErr(verr.At(f[:], f.dataOffset()), "Data Offset", "the dynamic header at byte %#x runs past the file's end", hoff)
		}
		return nil, 0, fmt.Errorf("%w: reading the dynamic header: %w", ErrFormat, err)
	}
	if string(h.cookie()) != vhdHeaderCookie {
		return nil, 0, vhdErr(int64(hoff), "Cookie", "no dynamic header Cookie at byte %#x", hoff)
	}
	want := be.Uint32(h.checksum())
	g := h
	clear(g.checksum())
	if got := vhdChecksum(g[:]); got != want {
		return nil, 0, vhdErr(int64(hoff)+verr.At(h[:], h.checksum()), "Checksum", "dynamic header Checksum %#08x, want %#08x", want, got)
	}
	bsize := uint64(be.Uint32(h.blockSize()))
	if bsize < vhdSectorSize || bsize > vhdMaxBlockSize || bsize&(bsize-1) != 0 {
		return nil, 0, vhdErr(int64(hoff)+verr.At(h[:], h.blockSize()), "Block Size", "Block Size %d, want a power of two from 512 to %d", bsize, vhdMaxBlockSize)
	}
	entries := uint64(be.Uint32(h.maxTableEntries()))
	table := be.Uint64(h.tableOffset())
	if table > uint64(size) || (uint64(size)-table)/4 < entries {
		return nil, 0, vhdErr(int64(hoff)+verr.At(h[:], h.tableOffset()), "Table Offset", "a BAT of %d entries at byte %#x past the file's %d bytes", entries, table, size)
	}
	if current > entries*bsize {
		return nil, 0, vhdErr(verr.At(f[:], f.currentSize()), "Current Size", "Current Size %d past the %d blocks of %d bytes the BAT holds", current, entries, bsize)
	}
	bitmap := ((bsize/vhdSectorSize+7)/8 + vhdSectorSize - 1) &^ (vhdSectorSize - 1)
	return &vhdReader{r: r, fileSize: size, size: int64(current), header: int64(hoff), table: int64(table), blockSize: int64(bsize), bitmap: int64(bitmap)}, int64(current), nil
}

// vhdReader reads the disk a dynamic VHD holds, looking each block up in
// the BAT as it is read.
type vhdReader struct {
	r              io.ReaderAt
	fileSize, size int64
	header         int64 // the dynamic header's byte offset
	table          int64 // the BAT's byte offset
	blockSize      int64
	bitmap         int64 // bytes of each block's sector bitmap
}

// ReadAt reads the disk's bytes at off: a block's data where the BAT
// gives its sector, zeros where it gives none.
func (v *vhdReader) ReadAt(p []byte, off int64) (int, error) {
	return blocks.Read(p, off, v.size, v.blockSize, func(b []byte, block, within int64) error {
		var e [4]byte
		if _, err := v.r.ReadAt(e[:], v.table+4*block); err != nil {
			if verr.PastEnd(err) {
				return vhdErr(-1, "", "BAT entry %d at byte %#x runs past the file's end", block, v.table+4*block)
			}
			return fmt.Errorf("%w: reading BAT entry %d: %w", ErrFormat, block, err)
		}
		sector := binary.BigEndian.Uint32(e[:])
		if sector == vhdUnusedEntry {
			clear(b)
			return nil
		}
		at := int64(sector)*vhdSectorSize + v.bitmap + within
		if at+int64(len(b)) > v.fileSize {
			return vhdErr(v.table+4*block, "", "block %d at sector %d ends past the file's %d bytes", block, sector, v.fileSize)
		}
		_, err := v.r.ReadAt(b, at)
		return err
	})
}

// openFixedVHD returns the disk a fixed VHD of size bytes in r holds,
// the file less its footer, and true, when r ends in a fixed disk's
// footer whose Current Size is the rest of the file; otherwise false.
func openFixedVHD(r io.ReaderAt, size int64) (fixedVHD, bool) {
	if size < vhdSectorSize {
		return fixedVHD{}, false
	}
	f, err := readVHDFooter(r, size-vhdSectorSize)
	if err != nil || binary.BigEndian.Uint32(f.diskType()) != vhdDiskTypeFixed {
		return fixedVHD{}, false
	}
	if binary.BigEndian.Uint64(f.currentSize()) != uint64(size-vhdSectorSize) {
		return fixedVHD{}, false
	}
	return fixedVHD{io.NewSectionReader(r, 0, size-vhdSectorSize), r, size}, true
}
