package imgfmt

import (
	"errors"
	"fmt"
	"io"
)

// ErrTruncated reports a read of bytes that a cut image does not hold:
// its own structures (a partition table, a boot sector) say they are
// there, past the image's end.
var ErrTruncated = errors.New("the image is cut short")

// A TruncatedError is a read of bytes Off to End (exclusive) of an image
// of Size bytes that ends before End. It wraps ErrTruncated.
type TruncatedError struct {
	Off, End, Size int64
}

func (e *TruncatedError) Error() string {
	return fmt.Sprintf("bytes %d to %d lie past the image's end (%d bytes); the image is cut short", e.Off, e.End, e.Size)
}

func (e *TruncatedError) Unwrap() error { return ErrTruncated }

// CutReader returns r, which holds size bytes, as an io.ReaderAt for a
// reader whose structures claim bytes past size: a read that reaches past
// byte size returns what lies before it and a *TruncatedError, never
// io.EOF, so that the missing bytes are neither taken for zeros nor for a
// file's end.
func CutReader(r io.ReaderAt, size int64) io.ReaderAt {
	return cutReader{r, size}
}

type cutReader struct {
	r    io.ReaderAt
	size int64
}

func (c cutReader) ReadAt(p []byte, off int64) (int, error) {
	end := off + int64(len(p))
	if off >= 0 && end <= c.size {
		return c.r.ReadAt(p, off)
	}
	if off < 0 {
		return 0, fmt.Errorf("imgfmt: negative offset %d", off)
	}
	n := 0
	if off < c.size {
		var err error
		n, err = c.r.ReadAt(p[:c.size-off], off)
		if err != nil && err != io.EOF {
			return n, err
		}
	}
	return n, &TruncatedError{Off: max(off, c.size), End: end, Size: c.size}
}
