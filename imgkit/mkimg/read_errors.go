package mkimg

import (
	"fmt"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// formatErr returns the *imgfmt.FormatError, wrapping ErrFormat, of the
// partition table of scheme (gpt, mbr, ebr, bsd, apm, vtoc8; "disk" for
// what no one scheme holds) whose structure at byte off (-1: none) is
// malformed; field is the structure's field as the scheme's
// specification names it (HeaderCRC32, d_checksum), "" for none.
func formatErr(scheme string, off int64, field, format string, args ...any) error {
	return &imgfmt.FormatError{Format: scheme, Off: off, Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrFormat}
}

// noTableErr returns the *imgfmt.FormatError, wrapping ErrNoTable, of a
// scheme whose marks are not where it looks (apm, vtoc8): the place is
// that of the mark or the field that is not as the scheme writes it.
func noTableErr(scheme string, off int64, field, format string, args ...any) error {
	return &imgfmt.FormatError{Format: scheme, Off: off, Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrNoTable}
}

// containerErr returns the *imgfmt.FormatError of a container's
// structure (qcow, qcow2, vhd, vhdx, vmdk), wrapping sentinel when the
// container has one (ErrVHD, ErrVHDX). The disk reader wraps it in
// ErrFormat with the container's name (openContainerNamed), so its own
// message does not repeat them.
func containerErr(sentinel error, format string, off int64, field, msg string, args ...any) error {
	return &imgfmt.FormatError{Format: format, Off: off, Field: field, Msg: fmt.Sprintf(msg, args...), Err: sentinel}
}

// fieldAt returns the offset of field, a slice of the record rec, in
// rec.
func fieldAt(rec, field []byte) int64 { return int64(cap(rec) - cap(field)) }
