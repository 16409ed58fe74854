package ext

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// placePiece places the bytes of s as the prefetcher r places a piece
// and has d adopt it, as the layout does, and returns the piece's bytes.
func placePiece(t *testing.T, r *prefetchRun, d *dataWriter, s string) []byte {
	t.Helper()
	m, ok := r.space(len(s))
	if !ok {
		t.Fatal("no space")
	}
	copy(m.data, s)
	if err := d.adopt(m.chunk, m.at); err != nil {
		t.Fatal(err)
	}
	return m.data
}

// TestDataWriter checks that the layout's writer goroutine writes the runs
// queued where they go, that small reads share a chunk, each a block
// into it with zeros to its block's end, that runs following each other
// in the chunk and in the image are one write, and that a failed write
// stops the writes after it and is what adopt and close return,
// unwrapped by nodeErr to the image's own error.
func TestDataWriter(t *testing.T) {
	t.Parallel()
	im, err := bcache.CreateMemory(8192, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := newDataWriter(im, make([]byte, dataBuffers*readChunk))
	// the pieces placed as the prefetcher places them
	r := prefetchRun{p: &prefetcher{free: d.free, done: make(chan struct{})}, bs: 16}
	fill := func(s string, at, n, off int64) []byte {
		t.Helper()
		data := placePiece(t, &r, d, s)
		d.write(at, n, off)
		return data
	}
	r.cur = <-d.free
	copy(r.cur.buf, bytes.Repeat([]byte{0xff}, 64)) // a chunk used before
	a := fill("0123456789", 2, 3, 100)
	b := fill("abcdefghij", 0, 16, 4000) // the whole block: its zeros too
	c := fill("ABCDEFGHIJKLMNOPQRS", 0, 32, 4016)
	if &a[:cap(a)][16] != &b[0] || &b[:cap(b)][16] != &c[0] {
		t.Errorf("small reads do not follow each other a block apart in their chunk")
	}
	if runs := d.cur.runs; len(runs) != 2 || runs[1] != (imageRun{at: 16, n: 48, off: 4000}) {
		t.Errorf("runs %v, want b and c's as one of 48 bytes from the chunk's byte 16", runs)
	}
	d.flush()
	r.cur = nil
	fill("xyz", 0, 3, 8190) // past the image's end
	d.flush()
	r.cur = nil
	// the writer has failed by the time the chunks have gone round
	for range dataBuffers {
		m, _ := r.space(readChunk)
		if err = d.adopt(m.chunk, m.at); err != nil {
			break
		}
		d.write(0, 2, 0) // not written: queued after the failure
	}
	if !errors.Is(err, bcache.ErrRange) {
		t.Errorf("a piece after a failed write: %v, want the out-of-range write's error", err)
	}
	err = d.close()
	if err == nil || !errors.Is(err, bcache.ErrRange) {
		t.Fatalf("close: %v, want the out-of-range write's error", err)
	}
	if ue := (&writer{}).nodeErr(nil, err); ue.Error() != (err.(*imageWriteError)).err.Error() {
		t.Errorf("nodeErr: %q, want the image's own error", ue)
	}
	got := make([]byte, 8192)
	if _, err := im.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	want := "abcdefghij\x00\x00\x00\x00\x00\x00ABCDEFGHIJKLMNOPQRS" + strings.Repeat("\x00", 13)
	if !bytes.Equal(got[100:103], []byte("234")) || string(got[4000:4048]) != want {
		t.Errorf("runs written as %q and %q, want 234 and %q", got[100:103], got[4000:4048], want)
	}
	if got[0] != 0 || got[1] != 0 {
		t.Errorf("a write queued after the failure was made: %q", got[:2])
	}
}

// TestDataWriterIndirect checks the indirect blocks queued between a
// file's runs: one whose file is complete when its chunk goes to the
// writer is written with the runs around it, its bytes taken then and
// noted (final); one whose file goes on into the next chunk is written
// as zeros and not noted, for the metadata's writes to overwrite.
func TestDataWriterIndirect(t *testing.T) {
	t.Parallel()
	im, err := bcache.CreateMemory(8192, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := newDataWriter(im, make([]byte, dataBuffers*readChunk))
	meta := map[uint64][]byte{7: bytes.Repeat([]byte{'I'}, 16), 9: bytes.Repeat([]byte{'J'}, 16)}
	var final []uint64
	d.final = func(blk uint64) []byte {
		final = append(final, blk)
		return meta[blk]
	}
	r := prefetchRun{p: &prefetcher{free: d.free, done: make(chan struct{})}, bs: 16}
	piece := func(s string) { t.Helper(); placePiece(t, &r, d, s) }
	// file 1: a block of data, its indirect block 7, another block
	d.startFile()
	piece("aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbb")
	d.write(0, 16, 96)
	d.indirect(7, 16, 112)
	d.write(16, 16, 128)
	// file 2: the same, but the file goes on into another chunk
	d.startFile()
	piece("ccccccccccccccccdddddddddddddddd")
	d.write(0, 16, 400)
	d.indirect(9, 16, 416)
	d.write(16, 16, 432)
	r.cur = nil
	piece("eeeeeeeeeeeeeeee") // file 2's next piece, in a new chunk
	if len(final) != 1 || final[0] != 7 {
		t.Errorf("blocks taken as complete: %v, want [7]", final)
	}
	if err := d.close(); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 8192)
	if _, err := im.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("a", 16) + strings.Repeat("I", 16) + strings.Repeat("b", 16); string(got[96:144]) != want {
		t.Errorf("file 1 written as %q, want %q", got[96:144], want)
	}
	if want := strings.Repeat("c", 16) + strings.Repeat("\x00", 16) + strings.Repeat("d", 16); string(got[400:448]) != want {
		t.Errorf("file 2 written as %q, want %q", got[400:448], want)
	}
}
