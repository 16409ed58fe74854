package ext

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

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
	d := newDataWriter(im)
	// the pieces placed as the prefetcher places them
	r := prefetchRun{p: &prefetcher{free: d.free, done: make(chan struct{})}, bs: 16}
	fill := func(s string, at, n, off int64) []byte {
		t.Helper()
		m, ok := r.space(len(s))
		if !ok {
			t.Fatal("no space")
		}
		copy(m.data, s)
		if err := d.adopt(m.chunk, m.at); err != nil {
			t.Fatal(err)
		}
		d.write(at, n, off)
		return m.data
	}
	r.cur = <-d.free
	copy(r.cur.buf, bytes.Repeat([]byte{0xff}, 64)) // a chunk used before
	a := fill("0123456789", 2, 3, 100)
	b := fill("abcdefghij", 0, 16, 4000) // the whole block: its zeros too
	c := fill("ABCDEFGHIJKLMNOPQRS", 0, 32, 4016)
	if &a[:cap(a)][16] != &b[0] || &b[:cap(b)][16] != &c[0] {
		t.Errorf("small reads do not follow each other a block apart in their chunk")
	}
	if runs := d.cur.runs; len(runs) != 2 || runs[1] != (imageRun{16, 48, 4000}) {
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
