package mkimg

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"hash"

	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// digestBlock is the block of a partition's contents the content digest
// marks as zeros or data.
const digestBlock = 64 << 10

// contentDigest is the digest of a partition's contents that the GUID
// rule hashes (DETAILS.md, GUIDs): SHA-256 over each 64 KiB block in turn,
// the last one possibly shorter, as one byte 0 for a block of zeros, or a
// byte 1 and the block's bytes; then the contents' length as 8
// little-endian bytes. A block of zeros costs one byte, so a sparse
// partition's holes (zeros) are digested without being read or hashed
// byte by byte, and the digest does not depend on how the zeros are
// stored. It is a hash.Hash: Write adds contents, Zeros adds n zeros.
type contentDigest struct {
	h     hash.Hash
	block []byte // the partial block not yet digested
	total uint64 // the contents' length so far
	shown *digestStep
}

// digestStep counts a content digest's bytes in a progress step of its
// own ("hashing part.img"), which the meter shows once the copy it runs
// beside is done (a copy is counted by the block cache, and a hash that
// reads its file apart from the copy may lag behind it), or at once
// when there is no copy or the digest starts over.
type digestStep struct {
	meter   *progress.Meter
	step    *progress.Step
	copying *progress.Step // the copy's step, shown until it is done; nil when there is none
	visible bool           // step is shown
}

// meter makes d count its bytes in the step name of total bytes, shown
// by m once copying, the step of the copy beside it, is done, or at its
// first bytes when copying is nil. A nil d or m counts nothing.
func (d *contentDigest) meter(m *progress.Meter, name string, total int64, copying *progress.Step) {
	if d == nil || m == nil {
		return
	}
	d.shown = &digestStep{meter: m, step: progress.NewStep(name, total), copying: copying}
}

// count adds n digested bytes to d's step, and shows the step when the
// copy beside it is done.
func (d *contentDigest) count(n int64) {
	s := d.shown
	if s == nil {
		return
	}
	if !s.visible {
		if _, done, total := s.copying.Load(); s.copying == nil || done >= total {
			s.meter.Show(s.step)
			s.visible = true
		}
	}
	s.step.Add(n)
}

// newContentDigest returns an empty content digest.
func newContentDigest() *contentDigest {
	return &contentDigest{h: sha256.New(), block: make([]byte, 0, digestBlock)}
}

// Write adds p to the contents.
func (d *contentDigest) Write(p []byte) (int, error) {
	n := len(p)
	d.total += uint64(n)
	d.count(int64(n))
	for len(p) > 0 {
		if len(d.block) == 0 && len(p) >= digestBlock {
			d.digest(p[:digestBlock])
			p = p[digestBlock:]
			continue
		}
		m := min(len(p), digestBlock-len(d.block))
		d.block = append(d.block, p[:m]...)
		p = p[m:]
		if len(d.block) == digestBlock {
			d.digest(d.block)
			d.block = d.block[:0]
		}
	}
	return n, nil
}

// zeroMarks is a run of the marks of zero blocks (and the zeros of a
// partial block), shared: Zeros hashes up to this many marks in one Write.
var zeroMarks [4096]byte

// Zeros adds n zeros to the contents, whole blocks of them without
// touching their bytes: their marks are hashed a run at a time, so that
// the 128 Mi blocks of an 8 TiB sparse partition are 128 MiB hashed in
// 32 Ki writes rather than 128 Mi writes of one byte.
func (d *contentDigest) Zeros(n int64) {
	for n > 0 {
		if len(d.block) == 0 && n >= digestBlock {
			k := min(n/digestBlock, int64(len(zeroMarks)))
			d.h.Write(zeroMarks[:k])
			d.total += uint64(k) * digestBlock
			d.count(k * digestBlock)
			n -= k * digestBlock
			continue
		}
		m := min(n, int64(len(zeroMarks)), int64(digestBlock-len(d.block)))
		d.Write(zeroMarks[:m])
		n -= m
	}
}

// digest adds one block: its mark, and its bytes when they are data.
func (d *contentDigest) digest(b []byte) {
	if diskio.IsZero(b) {
		d.h.Write([]byte{0})
		return
	}
	d.h.Write([]byte{1})
	d.h.Write(b)
}

// Sum appends the digest of the contents so far to b; it does not change
// the digest's state.
func (d *contentDigest) Sum(b []byte) []byte {
	state, err := d.h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic("mkimg: sha256 state: " + err.Error()) // crypto/sha256 always marshals
	}
	if len(d.block) > 0 {
		d.digest(d.block)
	}
	d.h.Write(binary.LittleEndian.AppendUint64(nil, d.total))
	b = d.h.Sum(b)
	if err := d.h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
		panic("mkimg: sha256 state: " + err.Error())
	}
	return b
}

// Reset empties the digest. A digest counted in a step starts a new
// one of the same name and total, shown at once: the contents are hashed
// again from the start (a builder's partition read back from the disk).
func (d *contentDigest) Reset() {
	d.h.Reset()
	d.block = d.block[:0]
	d.total = 0
	if s := d.shown; s != nil {
		name, _, total := s.step.Load()
		s.step, s.visible = s.meter.Step(name, total), true
	}
}

// Size is the digest's length, SHA-256's.
func (d *contentDigest) Size() int { return sha256.Size }

// BlockSize is the block Write works best with.
func (d *contentDigest) BlockSize() int { return digestBlock }
