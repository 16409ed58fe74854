// Package diskio holds the small helpers the disk writers share: the
// space of a temporary file given back as it is read (PunchHole), the
// zeros test and the zeros added to a content digest.
package diskio

import "hash"

// ReleasePiece is how much of a temporary file is copied before the
// space of what was copied is given back: the most a container's write
// holds twice.
const ReleasePiece = 8 << 20

// IsZero reports whether b holds only zero bytes.
func IsZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// hashBuf is the buffer of zeros AddZeros writes to a plain hash.
const hashBuf = 1 << 20

// AddZeros adds n zeros to h: to a hash with a Zeros method (mkimg's
// content digest) without touching them, to any other a buffer at a
// time.
func AddZeros(h hash.Hash, n int64) {
	if d, ok := h.(interface{ Zeros(int64) }); ok {
		d.Zeros(n)
		return
	}
	zeros := make([]byte, min(n, hashBuf))
	for ; n > 0; n -= min(n, hashBuf) {
		h.Write(zeros[:min(n, hashBuf)])
	}
}
