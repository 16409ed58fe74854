// Package fieldlist builds the describe.Fields of an on-disk record from
// the slices its accessors return, for the disk and container readers.
package fieldlist

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// A List builds the describe.Fields of one on-disk structure, the way
// every read hook describes its table: each field is given as the slice
// of the structure that holds it (an accessor's result), so that its
// offset on the disk follows from where the slice starts in the
// structure and never has to be written out again.
type List struct {
	path   string // the structure's name, every field's Path
	base   int64  // the structure's first byte on the disk
	rec    []byte // the whole structure
	fields []describe.Field
}

// Of starts the fields of the structure rec, at byte base of the
// disk, named path.
func Of(path string, base int64, rec []byte) *List {
	return &List{path: path, base: base, rec: rec}
}

// Add appends the field name, held by b (a slice of the structure), with
// value v.
func (l *List) Add(name string, b []byte, v string) *List {
	l.fields = append(l.fields, describe.Field{
		Path:   l.path,
		Name:   name,
		Offset: l.base + int64(cap(l.rec)-cap(b)),
		Size:   int64(len(b)),
		Value:  v,
	})
	return l
}

// LE appends a little-endian number, in decimal.
func (l *List) LE(name string, b []byte) *List {
	return l.Add(name, b, strconv.FormatUint(LEUint(b), 10))
}

// BE appends a big-endian number, in decimal and hexadecimal.
func (l *List) BE(name string, b []byte) *List {
	return l.Add(name, b, HexNum(beUint(b)))
}

// LEHex appends a little-endian number, in decimal and hexadecimal.
func (l *List) LEHex(name string, b []byte) *List {
	return l.Add(name, b, HexNum(LEUint(b)))
}

// Quoted appends the field's bytes as a quoted string, NULs and all.
func (l *List) Quoted(name string, b []byte) *List {
	return l.Add(name, b, strconv.Quote(string(b)))
}

// Hex appends the field's bytes in hexadecimal.
func (l *List) Hex(name string, b []byte) *List {
	return l.Add(name, b, fmt.Sprintf("%x", b))
}

// Sum appends the field's digest (describe.Sum), for a field too long
// to show.
func (l *List) Sum(name string, b []byte) *List {
	return l.Add(name, b, describe.Sum(b))
}

// GUID appends a GUID stored as GPT and VHDX store it.
func (l *List) GUID(name string, b []byte) *List {
	return l.Add(name, b, StoredGUID(b))
}

// Text appends a NUL-padded string, quoted.
func (l *List) Text(name string, b []byte) *List {
	return l.Add(name, b, strconv.Quote(UntilNUL(b)))
}

// List returns the fields appended so far.
func (l *List) List() []describe.Field { return l.fields }

// HexNum shows a number in decimal and hexadecimal.
func HexNum(v uint64) string { return fmt.Sprintf("%d (%#x)", v, v) }

// LEUint reads a little-endian unsigned field of 1, 2, 4 or 8 bytes.
func LEUint(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

// beUint reads a big-endian unsigned field of up to 8 bytes.
func beUint(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// UntilNUL returns b up to its first NUL.
func UntilNUL(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// StoredGUID shows the GUID whose on-disk form is the 16 bytes of b, in
// the mixed-endian order UEFI and Microsoft store one (the first three
// fields little-endian), as its text form.
func StoredGUID(b []byte) string {
	le := binary.LittleEndian
	return fmt.Sprintf("%08x-%04x-%04x-%x-%x", le.Uint32(b[0:4]), le.Uint16(b[4:6]), le.Uint16(b[6:8]), b[8:10], b[10:16])
}
