// Package verr builds the *imgfmt.FormatErrors of the container readers.
package verr

import (
	"errors"
	"fmt"
	"io"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// Container returns the *imgfmt.FormatError of a container's structure
// (qcow, qcow2, vhd, vhdx, vmdk), wrapping sentinel when the container
// has one (vhd.ErrFormat, vhdx.ErrFormat). mkimg's disk reader wraps it
// in its ErrFormat with the container's name, so its own message does
// not repeat them.
func Container(sentinel error, format string, off int64, field, msg string, args ...any) error {
	return &imgfmt.FormatError{Format: format, Off: off, Field: field, Msg: fmt.Sprintf(msg, args...), Err: sentinel}
}

// At returns the offset of field, a slice of the record rec, in rec.
func At(rec, field []byte) int64 { return int64(cap(rec) - cap(field)) }

// PastEnd reports whether err is a read that a structure's offset or
// size sent past the file's end: a malformed file, not an I/O error.
func PastEnd(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
