package mkimg

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// fieldList builds the describe.Fields of one on-disk structure, the way
// every read hook describes its table: each field is given as the slice
// of the structure that holds it (an accessor's result), so that its
// offset on the disk follows from where the slice starts in the
// structure and never has to be written out again.
type fieldList struct {
	path   string // the structure's name, every field's Path
	base   int64  // the structure's first byte on the disk
	rec    []byte // the whole structure
	fields []describe.Field
}

// fieldsOf starts the fields of the structure rec, at byte base of the
// disk, named path.
func fieldsOf(path string, base int64, rec []byte) *fieldList {
	return &fieldList{path: path, base: base, rec: rec}
}

// add appends the field name, held by b (a slice of the structure), with
// value v.
func (l *fieldList) add(name string, b []byte, v string) *fieldList {
	l.fields = append(l.fields, describe.Field{
		Path:   l.path,
		Name:   name,
		Offset: l.base + int64(cap(l.rec)-cap(b)),
		Size:   int64(len(b)),
		Value:  v,
	})
	return l
}

// le appends a little-endian number, in decimal.
func (l *fieldList) le(name string, b []byte) *fieldList {
	return l.add(name, b, strconv.FormatUint(leUint(b), 10))
}

// be appends a big-endian number, in decimal and hexadecimal.
func (l *fieldList) be(name string, b []byte) *fieldList {
	return l.add(name, b, hexNum(beUint(b)))
}

// leHex appends a little-endian number, in decimal and hexadecimal.
func (l *fieldList) leHex(name string, b []byte) *fieldList {
	return l.add(name, b, hexNum(leUint(b)))
}

// quoted appends the field's bytes as a quoted string, NULs and all.
func (l *fieldList) quoted(name string, b []byte) *fieldList {
	return l.add(name, b, strconv.Quote(string(b)))
}

// hex appends the field's bytes in hexadecimal.
func (l *fieldList) hex(name string, b []byte) *fieldList {
	return l.add(name, b, fmt.Sprintf("%x", b))
}

// sum appends the field's digest (describe.Sum), for a field too long
// to show.
func (l *fieldList) sum(name string, b []byte) *fieldList {
	return l.add(name, b, describe.Sum(b))
}

// guid appends a GUID stored as GPT and VHDX store it.
func (l *fieldList) guid(name string, b []byte) *fieldList {
	return l.add(name, b, storedGUID(b).String())
}

// text appends a NUL-padded string, quoted.
func (l *fieldList) text(name string, b []byte) *fieldList {
	return l.add(name, b, strconv.Quote(untilNUL(b)))
}

// list returns the fields appended so far.
func (l *fieldList) list() []describe.Field { return l.fields }

// hexNum shows a number in decimal and hexadecimal.
func hexNum(v uint64) string { return fmt.Sprintf("%d (%#x)", v, v) }

// leUint reads a little-endian unsigned field of 1, 2, 4 or 8 bytes.
func leUint(b []byte) uint64 {
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

// untilNUL returns b up to its first NUL.
func untilNUL(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
