package ar

import (
	"errors"
	"strconv"
)

// The archive magic strings (ar(5); GNU binutils include/aout/ar.h).
const (
	magic     = "!<arch>\n" // ARMAG, a regular archive
	thinMagic = "!<thin>\n" // ARMAGT, a GNU thin archive
	magicLen  = 8           // SARMAG
	fmag      = "`\n"       // ARFMAG, the two bytes closing each header
	headerLen = 60          // sizeof(struct ar_hdr)
)

// Special member names.
const (
	gnuSymtabName   = "/"                // System V / GNU symbol index, 32-bit fields
	gnuSym64Name    = "/SYM64/"          // GNU symbol index, 64-bit fields
	gnuStrtabName   = "//"               // GNU long-name table
	bsdSymdefName   = "__.SYMDEF"        // 4.4BSD ranlib table
	bsdSymdefSorted = "__.SYMDEF SORTED" // Darwin's sorted ranlib table
	bsdSymdef64Name = "__.SYMDEF_64"     // Darwin's 64-bit ranlib table
	bsdLongPrefix   = "#1/"              // 4.4BSD: the name follows the header, #1/<length>
)

// Field widths of struct ar_hdr.
const (
	nameLen = 16
	dateLen = 12
	uidLen  = 6
	gidLen  = 6
	modeLen = 8
	sizeLen = 10
)

// header is one struct ar_hdr (ar(5)): 60 bytes of space-padded ASCII.
type header [headerLen]byte

func (h *header) arName() []byte { return h[0:][:nameLen] }  // ar_name: name, "/" terminated (GNU)
func (h *header) arDate() []byte { return h[16:][:dateLen] } // ar_date: decimal seconds since the epoch
func (h *header) arUID() []byte  { return h[28:][:uidLen] }  // ar_uid: decimal
func (h *header) arGID() []byte  { return h[34:][:gidLen] }  // ar_gid: decimal
func (h *header) arMode() []byte { return h[40:][:modeLen] } // ar_mode: octal
func (h *header) arSize() []byte { return h[48:][:sizeLen] } // ar_size: decimal byte count
func (h *header) arFmag() []byte { return h[58:][:2] }       // ar_fmag: "`\n"

// blankHeader returns a header of spaces, the padding of every unused byte.
func blankHeader() (h header) {
	for i := range h {
		h[i] = ' '
	}
	return h
}

// meta returns the date, uid, gid and mode fields as one slice, the part of
// a header that is carried over unchanged when an archive is rewritten.
func (h *header) meta() []byte { return h[16:48] }

// Errors returned by this package. Errors about a particular archive wrap
// one of these and name the byte offset where the problem is.
var (
	ErrFormat          = errors.New("ar: not an archive")
	ErrHeader          = errors.New("ar: invalid member header")
	ErrTruncated       = errors.New("ar: archive truncated")
	ErrName            = errors.New("ar: invalid member name")
	ErrSymtab          = errors.New("ar: invalid symbol index")
	ErrFieldRange      = errors.New("ar: header field out of range")
	ErrThin            = errors.New("ar: member data is not in a thin archive")
	ErrWriteAfterClose = errors.New("ar: write after close")
	ErrWriteTooLong    = errors.New("ar: write too long")
	ErrShortWrite      = errors.New("ar: member data shorter than its header size")
	ErrTooBig          = errors.New("ar: archive too large for the symbol index format")
)

// fill writes s left-justified into f and pads it with spaces. It reports
// false if s does not fit.
func fill(f []byte, s string) bool {
	if len(s) > len(f) {
		return false
	}
	n := copy(f, s)
	for i := n; i < len(f); i++ {
		f[i] = ' '
	}
	return true
}

// fillDec writes v in decimal into f.
func fillDec(f []byte, v int64) bool {
	if v < 0 {
		return false
	}
	return fill(f, strconv.FormatInt(v, 10))
}

// fillOct writes v in octal into f.
func fillOct(f []byte, v int64) bool {
	if v < 0 {
		return false
	}
	return fill(f, strconv.FormatInt(v, 8))
}

// parseNum parses a space-padded numeric field. An all-blank field is 0, as
// GNU ar and llvm-ar read it.
func parseNum(f []byte, base int) (int64, bool) {
	i := len(f)
	for i > 0 && f[i-1] == ' ' {
		i--
	}
	if i == 0 {
		return 0, true
	}
	v, err := strconv.ParseInt(string(f[:i]), base, 64)
	if err != nil || v < 0 {
		return 0, false
	}
	return v, true
}

// pad2 is the padding that brings n to an even offset.
func pad2(n int64) int64 { return n & 1 }

// alignUp rounds n up to a multiple of a (a power of two).
func alignUp(n, a int64) int64 { return (n + a - 1) &^ (a - 1) }

// be32/be64/le32/le64 store integers without reflection.
func putBE32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}
func putLE32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
func putBE64(b []byte, v uint64) {
	putBE32(b, uint32(v>>32))
	putBE32(b[4:], uint32(v))
}
