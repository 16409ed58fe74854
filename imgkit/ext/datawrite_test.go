package ext

import (
	"bytes"
	"errors"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// TestDataWriter checks that the layout's writer goroutine writes the runs
// queued where they go, that small reads share a chunk, and that a failed
// write stops the writes after it and is what space and close return,
// unwrapped by nodeErr to the image's own error.
func TestDataWriter(t *testing.T) {
	t.Parallel()
	im, err := bcache.CreateMemory(8192, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := newDataWriter(im)
	fill := func(s string, at, n, off int64) []byte {
		t.Helper()
		buf, err := d.space(len(s))
		if err != nil {
			t.Fatal(err)
		}
		copy(buf, s)
		d.write(at, n, off)
		d.filled(len(s))
		return buf
	}
	a := fill("0123456789", 2, 3, 100)
	b := fill("abcdefghij", 7, 3, 4000)
	if &a[:cap(a)][10] != &b[0] {
		t.Errorf("a second small read does not follow the first in its chunk")
	}
	d.flush()
	fill("xyz", 0, 3, 8190) // past the image's end
	d.flush()
	// the writer has failed by the time a third chunk is free
	for range dataBuffers {
		if _, err = d.space(readChunk); err != nil {
			break
		}
		d.write(0, 2, 0) // not written: queued after the failure
		d.filled(readChunk)
	}
	if !errors.Is(err, bcache.ErrRange) {
		t.Errorf("space after a failed write: %v, want the out-of-range write's error", err)
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
	if !bytes.Equal(got[100:103], []byte("234")) || !bytes.Equal(got[4000:4003], []byte("hij")) {
		t.Errorf("runs written as %q and %q, want 234 and hij", got[100:103], got[4000:4003])
	}
	if got[0] != 0 || got[1] != 0 {
		t.Errorf("a write queued after the failure was made: %q", got[:2])
	}
}
