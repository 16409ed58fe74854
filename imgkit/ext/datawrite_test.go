package ext

import (
	"bytes"
	"errors"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// TestDataWriter checks that the layout's writer goroutine writes the runs
// queued where they go, and that a failed write stops the writes after it
// and is what get and close return, unwrapped by nodeErr to the image's
// own error.
func TestDataWriter(t *testing.T) {
	t.Parallel()
	im, err := bcache.CreateMemory(8192, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := newDataWriter(im)
	c, err := d.get()
	if err != nil {
		t.Fatal(err)
	}
	copy(c.buf, "0123456789")
	c.runs = append(c.runs, imageRun{2, 3, 100}, imageRun{7, 3, 4000})
	d.put(c)
	c, _ = d.get()
	copy(c.buf, "abcdef")
	c.runs = append(c.runs, imageRun{0, 4, 8190}) // past the image's end
	d.put(c)
	c, _ = d.get()
	copy(c.buf, "zz")
	c.runs = append(c.runs, imageRun{0, 2, 0}) // after the failure: not written
	d.put(c)
	err = d.close()
	if err == nil || !errors.Is(err, bcache.ErrRange) {
		t.Fatalf("close: %v, want the out-of-range write's error", err)
	}
	if ue := (&writer{}).nodeErr(nil, err); ue.Error() != (err.(*imageWriteError)).err.Error() {
		t.Errorf("nodeErr: %q, want the image's own error", ue)
	}
	b := make([]byte, 8192)
	if _, err := im.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b[100:103], []byte("234")) || !bytes.Equal(b[4000:4003], []byte("789")) {
		t.Errorf("runs written as %q and %q, want 234 and 789", b[100:103], b[4000:4003])
	}
	if b[0] != 0 {
		t.Errorf("a write after the failure was made")
	}
}
