package tooltest

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
)

// TestBlockReaderAt checks that BlockReaderAt gives r's bytes, for reads
// within a block, across blocks and at and past the end, and that it
// reads r a block at a time.
func TestBlockReaderAt(t *testing.T) {
	t.Parallel()
	data := make([]byte, 3*readBlock+1000)
	for i := range data {
		data[i] = byte(i*7 + i>>12)
	}
	var reads int
	r := BlockReaderAt(countingReaderAt{bytes.NewReader(data), &reads})
	for _, c := range []struct {
		off, n int64
		err    error
	}{
		{0, 1, nil}, {5, 100, nil}, {readBlock - 3, 10, nil}, {readBlock, readBlock, nil},
		{100, 2*readBlock + 7, nil}, {int64(len(data)) - 10, 10, nil},
		{int64(len(data)) - 10, 20, io.EOF}, {int64(len(data)), 1, io.EOF}, {int64(len(data)) + 5000, 1, io.EOF},
	} {
		p := make([]byte, c.n)
		n, err := r.ReadAt(p, c.off)
		want := data[min(c.off, int64(len(data))):min(c.off+c.n, int64(len(data)))]
		if n != len(want) || !bytes.Equal(p[:n], want) || err != c.err {
			t.Errorf("ReadAt(%d bytes at %d) = %d, %v; want %d, %v", c.n, c.off, n, err, len(want), c.err)
		}
	}
	reads = 0
	if err := iotest.TestReader(io.NewSectionReader(r, 0, int64(len(data))), data); err != nil {
		t.Error(err)
	}
	if reads > 64 {
		t.Errorf("iotest.TestReader made %d reads of r, want a few a block", reads)
	}
}

// countingReaderAt counts the reads of an io.ReaderAt.
type countingReaderAt struct {
	r io.ReaderAt
	n *int
}

func (c countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	*c.n++
	return c.r.ReadAt(p, off)
}
