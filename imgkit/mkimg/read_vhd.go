package mkimg

import (
	"encoding/binary"
	"fmt"
	"io"
)

// vhdMaxBlockSize bounds a dynamic VHD's Block Size the reader accepts
// (the specification's default is 2 MiB).
const vhdMaxBlockSize = 1 << 28

// vhdMatch reports whether head begins a dynamic VHD: the copy of the
// footer, Cookie "conectix". A fixed VHD's footer is at its end
// (openFixedVHD).
func vhdMatch(head []byte) bool {
	return len(head) >= vhdSectorSize && string(head[:8]) == vhdFooterCookie
}

// readVHDFooter reads and checks the footer at off of r.
func readVHDFooter(r io.ReaderAt, off int64) (*vhdFooter, error) {
	var f vhdFooter
	if _, err := r.ReadAt(f[:], off); err != nil {
		if pastEnd(err) {
			return nil, vhdErr(-1, "", "a footer at byte %#x runs past the file's end", off)
		}
		return nil, fmt.Errorf("%w: reading the footer at byte %#x: %w", ErrVHD, off, err)
	}
	if string(f.cookie()) != vhdFooterCookie {
		return nil, vhdErr(off, "Cookie", "no footer Cookie at byte %#x", off)
	}
	want := binary.BigEndian.Uint32(f.checksum())
	g := f
	clear(g.checksum())
	if got := vhdChecksum(g[:]); got != want {
		return nil, vhdErr(off+fieldAt(f[:], f.checksum()), "Checksum", "footer Checksum %#08x, want %#08x", want, got)
	}
	return &f, nil
}

// vhdErr returns the *imgfmt.FormatError, wrapping ErrVHD, of the VHD
// structure at byte off whose field, as the VHD specification names it,
// is field.
func vhdErr(off int64, field, format string, args ...any) error {
	return containerErr(ErrVHD, "vhd", off, field, format, args...)
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
		return nil, 0, vhdErr(fieldAt(f[:], f.diskType()), "Disk Type", "a differencing VHD, which needs its parent")
	default:
		return nil, 0, vhdErr(fieldAt(f[:], f.diskType()), "Disk Type", "Disk Type %d at the file's start, want a dynamic disk (3)", t)
	}
	current := be.Uint64(f.currentSize())
	hoff := be.Uint64(f.dataOffset())
	if hoff > uint64(size) || uint64(size)-hoff < 1024 {
		return nil, 0, vhdErr(fieldAt(f[:], f.dataOffset()), "Data Offset", "Data Offset %d past the file's %d bytes", hoff, size)
	}
	var h vhdDynamicHeader
	if _, err := r.ReadAt(h[:], int64(hoff)); err != nil {
		if pastEnd(err) {
			return nil, 0, vhdErr(fieldAt(f[:], f.dataOffset()), "Data Offset", "the dynamic header at byte %#x runs past the file's end", hoff)
		}
		return nil, 0, fmt.Errorf("%w: reading the dynamic header: %w", ErrVHD, err)
	}
	if string(h.cookie()) != vhdHeaderCookie {
		return nil, 0, vhdErr(int64(hoff), "Cookie", "no dynamic header Cookie at byte %#x", hoff)
	}
	want := be.Uint32(h.checksum())
	g := h
	clear(g.checksum())
	if got := vhdChecksum(g[:]); got != want {
		return nil, 0, vhdErr(int64(hoff)+fieldAt(h[:], h.checksum()), "Checksum", "dynamic header Checksum %#08x, want %#08x", want, got)
	}
	bsize := uint64(be.Uint32(h.blockSize()))
	if bsize < vhdSectorSize || bsize > vhdMaxBlockSize || bsize&(bsize-1) != 0 {
		return nil, 0, vhdErr(int64(hoff)+fieldAt(h[:], h.blockSize()), "Block Size", "Block Size %d, want a power of two from 512 to %d", bsize, vhdMaxBlockSize)
	}
	entries := uint64(be.Uint32(h.maxTableEntries()))
	table := be.Uint64(h.tableOffset())
	if table > uint64(size) || (uint64(size)-table)/4 < entries {
		return nil, 0, vhdErr(int64(hoff)+fieldAt(h[:], h.tableOffset()), "Table Offset", "a BAT of %d entries at byte %#x past the file's %d bytes", entries, table, size)
	}
	if current > entries*bsize {
		return nil, 0, vhdErr(fieldAt(f[:], f.currentSize()), "Current Size", "Current Size %d past the %d blocks of %d bytes the BAT holds", current, entries, bsize)
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
	return readBlocks(p, off, v.size, v.blockSize, func(b []byte, block, within int64) error {
		var e [4]byte
		if _, err := v.r.ReadAt(e[:], v.table+4*block); err != nil {
			if pastEnd(err) {
				return vhdErr(-1, "", "BAT entry %d at byte %#x runs past the file's end", block, v.table+4*block)
			}
			return fmt.Errorf("%w: reading BAT entry %d: %w", ErrVHD, block, err)
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

// readBlocks fills p from off of a disk of size bytes in blocks of
// blockSize, calling read for each piece with its block number and the
// offset within the block. Reading past size is io.EOF, as a
// SectionReader reports it.
func readBlocks(p []byte, off, size, blockSize int64, read func(b []byte, block, within int64) error) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("mkimg: negative offset %d", off)
	}
	if off >= size {
		return 0, io.EOF
	}
	n := len(p)
	var eof error
	if int64(n) > size-off {
		n, eof = int(size-off), io.EOF
	}
	done := 0
	for done < n {
		pos := off + int64(done)
		within := pos % blockSize
		m := min(int64(n-done), blockSize-within)
		if err := read(p[done:done+int(m)], pos/blockSize, within); err != nil {
			return done, err
		}
		done += int(m)
	}
	return done, eof
}

// openFixedVHD returns the disk a fixed VHD of size bytes in r holds,
// the file less its footer, and true, when r ends in a fixed disk's
// footer whose Current Size is the rest of the file; otherwise false.
func openFixedVHD(r io.ReaderAt, size int64) (io.ReaderAt, int64, bool) {
	if size < vhdSectorSize {
		return nil, 0, false
	}
	f, err := readVHDFooter(r, size-vhdSectorSize)
	if err != nil || binary.BigEndian.Uint32(f.diskType()) != vhdDiskTypeFixed {
		return nil, 0, false
	}
	if binary.BigEndian.Uint64(f.currentSize()) != uint64(size-vhdSectorSize) {
		return nil, 0, false
	}
	return fixedVHD{io.NewSectionReader(r, 0, size-vhdSectorSize), r, size}, size - vhdSectorSize, true
}
