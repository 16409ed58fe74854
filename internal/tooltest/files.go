package tooltest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
)

// Whence values of lseek(2) for data and holes (Linux, the BSDs, macOS and
// Solaris agree); elsewhere Seek fails with them and the whole file is read.
const (
	seekData = 3
	seekHole = 4
)

// FirstDiff compares the files a and b, which may be sparse images of
// gigabytes, and returns the offset of their first differing byte, or -1
// when they are equal. Files of different sizes differ at the smaller
// size (or earlier). Only the ranges where either file has data (SEEK_DATA,
// SEEK_HOLE) are read, a piece at a time: where both have a hole, both
// read as zeros.
func FirstDiff(a, b string) (int64, error) {
	fa, err := os.Open(a)
	if err != nil {
		return 0, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return 0, err
	}
	defer fb.Close()
	sa, err := fileSize(fa)
	if err != nil {
		return 0, err
	}
	sb, err := fileSize(fb)
	if err != nil {
		return 0, err
	}
	size := min(sa, sb)
	bufA, bufB := make([]byte, 1<<20), make([]byte, 1<<20)
	for off := int64(0); off < size; {
		start, end := nextData(fa, fb, off, size)
		if start >= size {
			break
		}
		if d, err := diffRange(fa, fb, start, end, bufA, bufB); d >= 0 || err != nil {
			return d, err
		}
		off = end
	}
	if sa != sb {
		return size, nil
	}
	return -1, nil
}

// FirstDiffBytes compares the file at path, which may be a sparse image
// of gigabytes, with b, as FirstDiff compares two files: it returns the
// offset of the first byte where they differ, or -1 when the file holds
// exactly b. Only the file's data ranges are read, a piece at a time;
// where the file has a hole, b must be zero. It lets a test check a file
// against bytes it holds without holding a second copy.
func FirstDiffBytes(path string, b []byte) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fsize, err := fileSize(f)
	if err != nil {
		return 0, err
	}
	size := min(fsize, int64(len(b)))
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; {
		start, end := dataRange(f, off, size)
		if d := firstNonZero(b[off:start]); d >= 0 {
			return off + d, nil
		}
		for pos := start; pos < end; {
			n := min(int64(len(buf)), end-pos)
			if _, err := f.ReadAt(buf[:n], pos); err != nil && err != io.EOF {
				return 0, err
			}
			if want := b[pos : pos+n]; !bytes.Equal(buf[:n], want) {
				for i := range n {
					if buf[i] != want[i] {
						return pos + i, nil
					}
				}
			}
			pos += n
		}
		off = end
	}
	if fsize != int64(len(b)) {
		return size, nil
	}
	return -1, nil
}

// firstNonZero returns the index of the first byte of b that is not
// zero, or -1.
func firstNonZero(b []byte) int64 {
	var zero [64 << 10]byte
	for pos := 0; pos < len(b); pos += len(zero) {
		p := b[pos:min(pos+len(zero), len(b))]
		if bytes.Equal(p, zero[:len(p)]) {
			continue
		}
		for i, c := range p {
			if c != 0 {
				return int64(pos + i)
			}
		}
	}
	return -1
}

func fileSize(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// nextData returns the next range at or after off, up to size, in which
// neither file changes between data and hole: from the first data of
// either to where that stretch of data ends or the other file's data
// begins, whichever comes first.
func nextData(fa, fb *os.File, off, size int64) (start, end int64) {
	a0, a1 := dataRange(fa, off, size)
	b0, b1 := dataRange(fb, off, size)
	start = min(a0, b0)
	end = size
	for _, r := range [][2]int64{{a0, a1}, {b0, b1}} {
		if r[0] == start {
			end = min(end, r[1])
		} else {
			end = min(end, r[0])
		}
	}
	return start, end
}

// dataRange returns the range of data of f that starts at or after off:
// from SEEK_DATA and SEEK_HOLE where the system answers them, else
// [off, size).
func dataRange(f *os.File, off, size int64) (start, end int64) {
	start, err := f.Seek(off, seekData)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) { // no data after off
			return size, size
		}
		return off, size
	}
	end, err = f.Seek(start, seekHole)
	if err != nil || end > size {
		end = size
	}
	return start, end
}

// diffRange compares [start, end) of both files and returns the offset of
// the first difference, or -1.
func diffRange(fa, fb *os.File, start, end int64, bufA, bufB []byte) (int64, error) {
	for pos := start; pos < end; {
		n := min(int64(len(bufA)), end-pos)
		if _, err := fa.ReadAt(bufA[:n], pos); err != nil && err != io.EOF {
			return 0, err
		}
		if _, err := fb.ReadAt(bufB[:n], pos); err != nil && err != io.EOF {
			return 0, err
		}
		if !bytes.Equal(bufA[:n], bufB[:n]) {
			for i := range n {
				if bufA[i] != bufB[i] {
					return pos + i, nil
				}
			}
		}
		pos += n
	}
	return -1, nil
}
