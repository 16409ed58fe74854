package mkimg

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"testing"
)

// digestOf computes the content digest of b from DETAILS.md's words, apart
// from contentDigest: each 64 KiB block as 0, or 1 and its bytes, then
// the length.
func digestOf(b []byte) []byte {
	var d bytes.Buffer
	for off := 0; off < len(b); off += 64 << 10 {
		block := b[off:min(off+64<<10, len(b))]
		if bytes.Count(block, []byte{0}) == len(block) {
			d.WriteByte(0)
		} else {
			d.WriteByte(1)
			d.Write(block)
		}
	}
	d.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(b))))
	s := sha256.Sum256(d.Bytes())
	return s[:]
}

// TestContentDigest checks contentDigest against digestOf for contents
// with data and zero blocks, written in odd pieces or as Zeros runs that
// start and end inside blocks, and that Sum leaves the state as it was.
func TestContentDigest(t *testing.T) {
	t.Parallel()
	data := make([]byte, 5*64<<10+777)
	for i := range data {
		data[i] = byte(i*7 + 1)
	}
	clear(data[64<<10 : 3*64<<10+100]) // two whole zero blocks and a partial one
	for _, piece := range []int{1, 1000, 64 << 10, 100000, len(data)} {
		d := newContentDigest()
		for off := 0; off < len(data); off += piece {
			chunk := data[off:min(off+piece, len(data))]
			if diskio.IsZero(chunk) {
				d.Zeros(int64(len(chunk)))
			} else {
				d.Write(chunk)
			}
		}
		first := d.Sum(nil)
		if got := d.Sum(nil); !bytes.Equal(got, first) {
			t.Fatalf("pieces of %d: Sum changed the state", piece)
		}
		if want := digestOf(data); !bytes.Equal(first, want) {
			t.Errorf("pieces of %d: digest %x, want %x", piece, first, want)
		}
	}
	d := newContentDigest()
	d.Zeros(3*64<<10 + 5)
	if want := digestOf(make([]byte, 3*64<<10+5)); !bytes.Equal(d.Sum(nil), want) {
		t.Errorf("Zeros alone: digest differs from that of the zeros written")
	}
	// More zero blocks than Zeros hashes the marks of at once, after a
	// partial block: the same digest as the zeros written a block at a
	// time.
	d.Reset()
	w := newContentDigest()
	d.Write(data[:100])
	w.Write(data[:100])
	const blocks = len(zeroMarks) + 3
	d.Zeros(int64(blocks)*64<<10 + 5)
	zero := make([]byte, 64<<10)
	w.Write(zero[:64<<10-100])
	for range blocks - 1 {
		w.Write(zero)
	}
	w.Write(zero[:105])
	if !bytes.Equal(d.Sum(nil), w.Sum(nil)) {
		t.Errorf("Zeros of %d blocks: digest differs from that of the zeros written", blocks)
	}
	d.Reset()
	if want := digestOf(nil); !bytes.Equal(d.Sum(nil), want) {
		t.Errorf("after Reset: not the digest of no bytes")
	}
}
