package bcache

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// The property test drives an mmap-mode image, a copy-mode image, a memory
// image, a memory image committed to an io.WriterAt full of stale bytes, and
// a plain byte-slice model with the same random sequence of calls, and checks
// that every buffer and every final byte agree (and that the io.WriterAt is
// written only at Commit). The calling discipline is the one the package
// documents: buffers from Getblk and changed buffers are released with
// Bwrite; held buffers never overlap.

type modelBuf struct {
	off   int64
	data  []byte
	dirty bool
}

type propState struct {
	t      *testing.T
	rng    *rand.Rand
	size   int64
	img    []byte // the model image
	held   map[int64]*modelBuf
	names  []string // the target of each image
	ims    []*testImage
	bufs   []map[int64]*Buf
	src    []*os.File
	srcBuf []byte
	step   int
}

func (s *propState) fail(format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf("step %d: %s", s.step, fmt.Sprintf(format, args...))
}

// heldOffs returns the held offsets in order (deterministic choice).
func (s *propState) heldOffs() []int64 {
	offs := make([]int64, 0, len(s.held))
	for o := range s.held {
		offs = append(offs, o)
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	return offs
}

// overlapsOther reports whether [off, off+n) overlaps a held buffer not at off.
func (s *propState) overlapsOther(off, n int64) bool {
	for o, b := range s.held {
		if o != off && o < off+n && off < o+int64(len(b.data)) {
			return true
		}
	}
	return false
}

func (s *propState) randOff() int64 {
	switch s.rng.IntN(10) {
	case 0:
		return s.rng.Int64N(s.size + 1) // any byte offset
	case 1:
		return s.size - 512 + s.rng.Int64N(1024) // around the end, often out of range
	case 2:
		return -1 - s.rng.Int64N(100)
	}
	return s.rng.Int64N(s.size/512+1) * 512
}

func (s *propState) randSize() int {
	sizes := []int{512, 1024, 2048, 4096, 8192, 16384, 32768, 65536}
	if s.rng.IntN(5) == 0 {
		return 1 + s.rng.IntN(5000)
	}
	return sizes[s.rng.IntN(len(sizes))]
}

func (s *propState) inRange(off, n int64) bool {
	return off >= 0 && n >= 0 && off <= s.size && n <= s.size-off
}

// checkErr checks that every image returned the expected error.
func (s *propState) checkErr(op string, want error, errs []error) {
	s.t.Helper()
	for k, err := range errs {
		if want == nil && err != nil || want != nil && !errors.Is(err, want) {
			s.fail("%s in %s: got %v, want %v", op, s.names[k], err, want)
		}
	}
}

func (s *propState) checkBuf(op string, off int64) {
	s.t.Helper()
	mb := s.held[off]
	for k := range s.ims {
		b := s.bufs[k][off]
		if b.Off() != off || !bytes.Equal(b.Data(), mb.data) {
			s.fail("%s at %#x in %s: buffer differs from the model", op, off, s.names[k])
		}
	}
}

func (s *propState) getbuf(fresh bool) {
	off, size := s.randOff(), s.randSize()
	op := "Bread"
	if fresh {
		op = "Getblk"
	}
	var want error
	mb, exact := s.held[off]
	switch {
	case !s.inRange(off, int64(size)):
		want = ErrRange
	case s.overlapsOther(off, int64(size)):
		want = ErrOverlap
	}
	errs := make([]error, len(s.ims))
	for k, im := range s.ims {
		var b *Buf
		if fresh {
			b, errs[k] = im.Getblk(off, size)
		} else {
			b, errs[k] = im.Bread(off, size)
		}
		if errs[k] == nil {
			s.bufs[k][off] = b
		}
	}
	s.checkErr(op, want, errs)
	if want != nil {
		return
	}
	switch {
	case exact:
		if size > len(mb.data) {
			mb.data = append(mb.data, make([]byte, size-len(mb.data))...)
			mb.dirty = true
		}
	case fresh:
		s.held[off] = &modelBuf{off: off, data: make([]byte, size), dirty: true}
	default:
		s.held[off] = &modelBuf{off: off, data: bytes.Clone(s.img[off : off+int64(size)])}
	}
	s.checkBuf(op, off)
}

func (s *propState) pickHeld() (int64, bool) {
	offs := s.heldOffs()
	if len(offs) == 0 {
		return 0, false
	}
	return offs[s.rng.IntN(len(offs))], true
}

func (s *propState) modify() {
	off, ok := s.pickHeld()
	if !ok {
		return
	}
	mb := s.held[off]
	lo := s.rng.IntN(len(mb.data))
	hi := lo + s.rng.IntN(len(mb.data)-lo+1)
	p := make([]byte, hi-lo)
	for i := range p {
		p[i] = byte(s.rng.UintN(256))
	}
	copy(mb.data[lo:], p)
	mb.dirty = true
	for k := range s.ims {
		copy(s.bufs[k][off].Data()[lo:], p)
	}
}

func (s *propState) release(write bool) {
	off, ok := s.pickHeld()
	if !ok {
		return
	}
	mb := s.held[off]
	if !write && mb.dirty {
		write = true // the documented discipline
	}
	errs := make([]error, len(s.ims))
	for k, im := range s.ims {
		b := s.bufs[k][off]
		if write {
			errs[k] = im.Bwrite(b)
		} else {
			im.Brelse(b)
		}
		delete(s.bufs[k], off)
	}
	s.checkErr("Bwrite", nil, errs)
	if write {
		copy(s.img[off:], mb.data)
	}
	delete(s.held, off)
}

func (s *propState) grow() {
	off, ok := s.pickHeld()
	if !ok {
		return
	}
	mb := s.held[off]
	size := len(mb.data) + s.rng.IntN(3)*512 + s.rng.IntN(2)*s.rng.IntN(700)
	if s.rng.IntN(8) == 0 {
		size = len(mb.data) - 1 - s.rng.IntN(len(mb.data))
	}
	var want error
	switch {
	case size < len(mb.data):
		want = ErrShrink
	case !s.inRange(off, int64(size)):
		want = ErrRange
	case s.overlapsOther(off, int64(size)):
		want = ErrOverlap
	}
	errs := make([]error, len(s.ims))
	for k := range s.ims {
		errs[k] = s.bufs[k][off].Grow(size)
	}
	s.checkErr("Grow", want, errs)
	if want == nil && size > len(mb.data) {
		mb.data = append(mb.data, make([]byte, size-len(mb.data))...)
		mb.dirty = true
	}
	s.checkBuf("Grow", off)
}

// write applies p at off to the model image and to the held buffers it
// overlaps, as a mapping would.
func (s *propState) modelWrite(p []byte, off int64) {
	copy(s.img[off:], p)
	end := off + int64(len(p))
	for o, b := range s.held {
		lo, hi := max(off, o), min(end, o+int64(len(b.data)))
		if lo < hi {
			copy(b.data[lo-o:hi-o], p[lo-off:hi-off])
		}
	}
}

func (s *propState) writeAt() {
	off := s.randOff()
	p := make([]byte, s.rng.IntN(9000))
	for i := range p {
		p[i] = byte(s.rng.UintN(256))
	}
	var want error
	if !s.inRange(off, int64(len(p))) {
		want = ErrRange
	}
	// half the time through WriteVAt, p cut into up to five pieces (some
	// of them empty)
	var pieces [][]byte
	if s.rng.IntN(2) == 0 {
		rest := p
		for range s.rng.IntN(5) {
			k := s.rng.IntN(len(rest) + 1)
			pieces, rest = append(pieces, rest[:k]), rest[k:]
		}
		pieces = append(pieces, rest)
	}
	errs := make([]error, len(s.ims))
	for k, im := range s.ims {
		var n int
		if pieces != nil {
			n, errs[k] = im.WriteVAt(pieces, off)
		} else {
			n, errs[k] = im.WriteAt(p, off)
		}
		if errs[k] == nil && n != len(p) {
			s.fail("%s: wrote %d of %d bytes", s.names[k], n, len(p))
		}
	}
	s.checkErr("WriteAt", want, errs)
	if want == nil {
		s.modelWrite(p, off)
	}
}

func (s *propState) copyFrom(file bool) {
	off := s.randOff()
	n := int64(s.rng.IntN(200000))
	if s.rng.IntN(3) == 0 {
		n = int64(s.rng.IntN(100))
	}
	if n > int64(len(s.srcBuf)) {
		n = int64(len(s.srcBuf))
	}
	pos := s.rng.Int64N(int64(len(s.srcBuf)) - n + 1)
	var want error
	if !s.inRange(off, n) {
		want = ErrRange
	}
	errs := make([]error, len(s.ims))
	for k, im := range s.ims {
		if file {
			if _, err := s.src[k].Seek(pos, 0); err != nil {
				s.t.Fatal(err)
			}
			errs[k] = im.CopyFrom(off, s.src[k], n)
		} else {
			errs[k] = im.CopyFrom(off, bytes.NewReader(s.srcBuf[pos:pos+n]), n)
		}
	}
	s.checkErr("CopyFrom", want, errs)
	if want == nil {
		s.modelWrite(s.srcBuf[pos:pos+n], off)
	}
}

func runProperty(t *testing.T, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	dir := t.TempDir()
	s := &propState{t: t, rng: rng, held: map[int64]*modelBuf{}}
	s.size = 64<<10 + rng.Int64N(2<<20)
	if rng.IntN(2) == 0 {
		s.size &^= 4095
	}
	s.img = make([]byte, s.size)
	s.srcBuf = make([]byte, 1<<20)
	for i := range s.srcBuf {
		s.srcBuf[i] = byte(rng.UintN(256))
	}
	srcPath := filepath.Join(dir, "src")
	if err := os.WriteFile(srcPath, s.srcBuf, 0o644); err != nil {
		t.Fatal(err)
	}
	// The options come from the seed, not from rng, so that a seed makes
	// the same calls whatever targets there are. The memory targets get
	// file-only options that they must ignore.
	all := []Bulk{BulkRead, BulkCopyFileRange, BulkPwrite, BulkMapSource, BulkAuto}
	pair := pairModes()
	tgs := []testTarget{fileTarget(pair[0]), fileTarget(pair[1]), memoryTarget, writerAtTarget}
	memOpts := &Options{Mode: []Mode{ModeAuto, ModeMmap, ModeCopy}[(seed/125)%3], Bulk: all[(seed/25)%5], Sync: seed%2 == 0}
	opts := []*Options{{Bulk: all[seed%5]}, {Bulk: all[(seed/5)%5]}, memOpts, memOpts}
	// One image built in a section, of each of the first three in turn,
	// at GPT's first partition (section_test.go).
	tgs, opts = append(tgs, sectionTarget(tgs[seed%3])), append(opts, opts[seed%3])
	for k, tg := range tgs {
		im := mustOpen(t, tg, s.size, opts[k])
		src, err := os.Open(srcPath)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		s.names = append(s.names, tg.name)
		s.ims = append(s.ims, im)
		s.bufs = append(s.bufs, map[int64]*Buf{})
		s.src = append(s.src, src)
	}
	for s.step = 0; s.step < steps; s.step++ {
		switch op := rng.IntN(20); {
		case op < 4:
			s.getbuf(true)
		case op < 7:
			s.getbuf(false)
		case op < 10:
			s.modify()
		case op < 13:
			s.release(true)
		case op < 15:
			s.release(false)
		case op < 16:
			s.grow()
		case op < 18:
			s.writeAt()
		case op < 19:
			s.copyFrom(false)
		default:
			s.copyFrom(true)
		}
	}
	for _, off := range s.heldOffs() {
		for k, im := range s.ims {
			if err := im.Bwrite(s.bufs[k][off]); err != nil {
				t.Fatal(err)
			}
		}
		copy(s.img[off:], s.held[off].data)
	}
	for k, im := range s.ims {
		if im.Bytes() != nil {
			t.Fatalf("seed %d: %s: Bytes before Commit is not nil", seed, s.names[k])
		}
		if err := im.Commit(); err != nil {
			t.Fatalf("seed %d: %s: %v", seed, s.names[k], err)
		}
		if i := firstDiff(im.result(t), s.img); i >= 0 {
			t.Fatalf("seed %d: %s image differs from the model at byte %#x", seed, s.names[k], i)
		}
	}
}

func firstDiff(a, b []byte) int {
	// bytes.Equal first: a byte loop over images of many MiB is what the
	// race detector slows most.
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// TestPropertyModesAgree runs the property test from 200 seeds with
// FIXTUREGEN_LONG=1; by default from every fourth and each seed whose
// options (propOptions) no seed run before it had; with -short from the
// first 20.
func TestPropertyModesAgree(t *testing.T) {
	t.Parallel()
	seeds, steps := 200, 400
	sample := tooltest.NewSampler(4)
	if testing.Short() {
		seeds, sample = 20, &tooltest.Sampler{}
	}
	defer sample.Log(t)
	for seed := range uint64(seeds) {
		if !sample.Keep(propOptions(seed)...) {
			continue
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			runProperty(t, seed, steps)
		})
	}
}

// propOptions names the options runProperty takes from seed, for
// tooltest.Sampler.
func propOptions(seed uint64) []string {
	return []string{
		fmt.Sprint("first file's bulk=", seed%5), fmt.Sprint("second file's bulk=", (seed/5)%5),
		fmt.Sprint("memory bulk=", (seed/25)%5), fmt.Sprint("memory mode=", (seed/125)%3), fmt.Sprint("sync=", seed%2),
	}
}

// FuzzModesAgree runs the property test from fuzzer-chosen seeds.
func FuzzModesAgree(f *testing.F) {
	f.Add(uint64(1), uint16(100))
	f.Add(uint64(12345), uint16(400))
	f.Fuzz(func(t *testing.T, seed uint64, steps uint16) {
		runProperty(t, seed, int(steps%600))
	})
}
