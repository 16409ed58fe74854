package tooltest

import (
	"io"
	"sync"
)

// readBlock is the piece a BlockReaderAt reads at once.
const readBlock = 64 << 10

// BlockReaderAt returns an io.ReaderAt over r that reads it a 64 KiB
// block at a time and keeps the last block it read: a reader that asks
// for a few bytes at a time (as fstest.TestFS's file checks do) then
// makes one read of r for each block instead of one for each few bytes,
// which is one system call for each when r is a file. It does not read
// the image whole, so it suits sparse images of gigabytes. Its ReadAt
// gives what r's gives, and may be called in parallel.
func BlockReaderAt(r io.ReaderAt) io.ReaderAt { return &blockReaderAt{r: r, off: -1} }

type blockReaderAt struct {
	r   io.ReaderAt
	mu  sync.Mutex
	off int64  // where buf was read from, -1 before the first read
	buf []byte // the block at off, shorter at the end of r
	err error  // the error reading it gave, if it came out short
}

func (b *blockReaderAt) ReadAt(p []byte, off int64) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for n < len(p) {
		pos := off + int64(n)
		if pos < 0 {
			m, err := b.r.ReadAt(p[n:], pos)
			return n + m, err
		}
		block := pos &^ (readBlock - 1)
		if block != b.off {
			if cap(b.buf) < readBlock {
				b.buf = make([]byte, readBlock)
			}
			m, err := b.r.ReadAt(b.buf[:readBlock], block)
			b.off, b.buf, b.err = block, b.buf[:m], err
			if m == readBlock {
				b.err = nil
			}
		}
		i := int(pos - block)
		if i >= len(b.buf) {
			if b.err == nil {
				b.err = io.EOF
			}
			return n, b.err
		}
		n += copy(p[n:], b.buf[i:])
	}
	return n, nil
}
