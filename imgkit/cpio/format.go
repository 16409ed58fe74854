package cpio

import (
	"errors"
	"fmt"
)

// Format selects a header layout.
type Format int

// The header layouts GNU cpio writes with -H (cpio(5) of libarchive and
// GNU cpio's cpiohdr.h describe them).
const (
	// FormatNewc is the SVR4 portable format without checksums, magic
	// "070701": 13 fields of 8 hexadecimal digits, name and data padded to
	// 4 bytes. The Linux kernel unpacks initramfs archives of this format.
	FormatNewc Format = iota
	// FormatCRC is FormatNewc with magic "070702" and c_check holding the
	// sum of the data bytes.
	FormatCRC
	// FormatODC is the POSIX.1 portable format, magic "070707": fields of
	// 6 or 11 octal digits, no padding.
	FormatODC
)

// String returns the -H name of the format: "newc", "crc" or "odc".
func (f Format) String() string {
	switch f {
	case FormatNewc:
		return "newc"
	case FormatCRC:
		return "crc"
	case FormatODC:
		return "odc"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat returns the Format that GNU cpio's -H names s (any case).
func ParseFormat(s string) (Format, error) {
	switch s {
	case "newc", "NEWC":
		return FormatNewc, nil
	case "crc", "CRC":
		return FormatCRC, nil
	case "odc", "ODC":
		return FormatODC, nil
	}
	return 0, fmt.Errorf("%w: %q", ErrUnsupportedFormat, s)
}

// Magic strings and sizes.
const (
	magicNewc    = "070701"
	magicCRC     = "070702"
	magicODC     = "070707"
	newcLen      = 110 // sizeof the newc/crc ASCII header
	odcLen       = 76  // sizeof the odc ASCII header
	trailerName  = "TRAILER!!!"
	defaultBlock = 512 // GNU cpio's io_block_size without -B, -C or --block-size
)

// newcHeader is one newc or crc header: the magic and 13 fields of eight
// hexadecimal digits (upper case as GNU cpio writes them).
type newcHeader [newcLen]byte

func (h *newcHeader) cMagic() []byte     { return h[0:][:6] }   // c_magic: "070701" or "070702"
func (h *newcHeader) cIno() []byte       { return h[6:][:8] }   // c_ino
func (h *newcHeader) cMode() []byte      { return h[14:][:8] }  // c_mode: type and permission bits
func (h *newcHeader) cUID() []byte       { return h[22:][:8] }  // c_uid
func (h *newcHeader) cGID() []byte       { return h[30:][:8] }  // c_gid
func (h *newcHeader) cNlink() []byte     { return h[38:][:8] }  // c_nlink
func (h *newcHeader) cMtime() []byte     { return h[46:][:8] }  // c_mtime: seconds since the epoch
func (h *newcHeader) cFilesize() []byte  { return h[54:][:8] }  // c_filesize
func (h *newcHeader) cDevmajor() []byte  { return h[62:][:8] }  // c_devmajor
func (h *newcHeader) cDevminor() []byte  { return h[70:][:8] }  // c_devminor
func (h *newcHeader) cRdevmajor() []byte { return h[78:][:8] }  // c_rdevmajor
func (h *newcHeader) cRdevminor() []byte { return h[86:][:8] }  // c_rdevminor
func (h *newcHeader) cNamesize() []byte  { return h[94:][:8] }  // c_namesize: with the NUL
func (h *newcHeader) cCheck() []byte     { return h[102:][:8] } // c_check: sum of the data bytes (crc), else 0

// odcHeader is one odc header: the magic and fields of octal digits.
type odcHeader [odcLen]byte

func (h *odcHeader) cMagic() []byte    { return h[0:][:6] }   // c_magic: "070707"
func (h *odcHeader) cDev() []byte      { return h[6:][:6] }   // c_dev
func (h *odcHeader) cIno() []byte      { return h[12:][:6] }  // c_ino
func (h *odcHeader) cMode() []byte     { return h[18:][:6] }  // c_mode
func (h *odcHeader) cUID() []byte      { return h[24:][:6] }  // c_uid
func (h *odcHeader) cGID() []byte      { return h[30:][:6] }  // c_gid
func (h *odcHeader) cNlink() []byte    { return h[36:][:6] }  // c_nlink
func (h *odcHeader) cRdev() []byte     { return h[42:][:6] }  // c_rdev
func (h *odcHeader) cMtime() []byte    { return h[48:][:11] } // c_mtime
func (h *odcHeader) cNamesize() []byte { return h[59:][:6] }  // c_namesize
func (h *odcHeader) cFilesize() []byte { return h[65:][:11] } // c_filesize

// The file type bits of c_mode (cpio(5), GNU cpio's C_IS* values).
const (
	ModeType    = 0o170000
	ModeSocket  = 0o140000
	ModeSymlink = 0o120000
	ModeRegular = 0o100000
	ModeBlock   = 0o060000
	ModeDir     = 0o040000
	ModeChar    = 0o020000
	ModeFIFO    = 0o010000
)

// Errors returned by this package. Errors about a particular archive wrap
// ErrFormat and name the byte offset where the problem is.
var (
	ErrFormat            = errors.New("cpio: not a valid archive")
	ErrUnsupportedFormat = errors.New("cpio: unsupported format")
	ErrFieldRange        = errors.New("cpio: value out of the header field's range")
	ErrWriteTooLong      = errors.New("cpio: write too long")
	ErrShortWrite        = errors.New("cpio: file data shorter than its header size")
	ErrWriteAfterClose   = errors.New("cpio: write after close")
	ErrBlockSize         = errors.New("cpio: invalid block size")
)

// putHex writes v into f as upper-case hexadecimal digits, zero-filled,
// keeping the low digits as GNU cpio's to_ascii does; it reports whether
// v fitted.
func putHex(f []byte, v uint64) bool { return putDigits(f, v, 4) }

// putOct writes v into f as octal digits, zero-filled.
func putOct(f []byte, v uint64) bool { return putDigits(f, v, 3) }

func putDigits(f []byte, v uint64, logbase uint) bool {
	const digits = "0123456789ABCDEF"
	mask := uint64(1)<<logbase - 1
	for i := len(f) - 1; i >= 0; i-- {
		f[i] = digits[v&mask]
		v >>= logbase
	}
	return v == 0
}

// parseDigits reads a field of digits of base 16 or 8.
func parseDigits(f []byte, base uint64) (uint64, bool) {
	var v uint64
	for _, c := range f {
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		v = v*base + d
	}
	return v, true
}

// pad4 is the padding that brings n to a multiple of 4.
func pad4(n int64) int64 { return (4 - n%4) % 4 }
