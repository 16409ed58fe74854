// Package blocks reads a virtual disk stored in blocks that a table maps
// into the container's file, as VHD and VHDX store theirs.
package blocks

import (
	"fmt"
	"io"
)

// Read fills p from off of a disk of size bytes in blocks of
// blockSize, calling read for each piece with its block number and the
// offset within the block. Reading past size is io.EOF, as a
// SectionReader reports it.
func Read(p []byte, off, size, blockSize int64, read func(b []byte, block, within int64) error) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("vdisk: negative offset %d", off)
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

// Spans returns the file ranges of the n bytes at off of a disk of
// blockSize blocks in a file of fileSize bytes, where at gives the file
// offset of a block's byte (false for a block the file does not hold);
// adjacent ranges merge, and none reaches past the file.
func Spans(off, n, size, blockSize, fileSize int64, at func(block, within int64) (int64, bool)) [][2]int64 {
	var spans [][2]int64
	for end := min(off+n, size); off < end; {
		within := off % blockSize
		m := min(end-off, blockSize-within)
		if p, ok := at(off/blockSize, within); ok && p >= 0 && p < fileSize {
			q := min(p+m, fileSize)
			if k := len(spans); k > 0 && spans[k-1][1] == p {
				spans[k-1][1] = q
			} else {
				spans = append(spans, [2]int64{p, q})
			}
		}
		off += m
	}
	return spans
}
