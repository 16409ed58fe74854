package mkimg

import (
	"encoding/binary"
	"fmt"
)

// GUID is a GUID in its text order: the 16 octets of RFC 4122, whose
// first three fields are big-endian, as "c12a7328-f81f-11d2-ba4b-00a0c93ec93b"
// reads. A GPT stores it mixed-endian (UEFI 2.10 appendix A); the writer
// and reader convert. The zero GUID, RFC 4122's nil UUID, means "none
// given" in Options.DiskGUID and Partition.GUID.
type GUID [16]byte

// ParseGUID reads a GUID written as RFC 4122 text: 32 hexadecimal digits
// in either case, grouped 8-4-4-4-12 by hyphens.
func ParseGUID(s string) (GUID, error) {
	var g GUID
	if len(s) != 36 {
		return g, fmt.Errorf("malformed GUID %q: want 8-4-4-4-12 hexadecimal digits", s)
	}
	j := 0
	for i := 0; i < len(s); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if s[i] != '-' {
				return GUID{}, fmt.Errorf("malformed GUID %q: want a hyphen at character %d", s, i+1)
			}
			continue
		}
		v, ok := hexValue(s[i])
		if !ok {
			return GUID{}, fmt.Errorf("malformed GUID %q: %q is no hexadecimal digit", s, s[i])
		}
		g[j/2] |= v << (4 * (1 - j%2))
		j++
	}
	return g, nil
}

// String returns g as RFC 4122 text, 8-4-4-4-12 lower-case hexadecimal
// digits.
func (g GUID) String() string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, 36)
	for i, c := range g {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[c>>4], hex[c&15])
	}
	return string(b)
}

// IsZero reports whether g is the nil GUID, all zeros.
func (g GUID) IsZero() bool { return g == GUID{} }

// encode stores g in dst in the mixed-endian order UEFI uses on disk: the
// first three fields little-endian, the last two as they are.
func (g GUID) encode(dst []byte) {
	binary.LittleEndian.PutUint32(dst[0:4], binary.BigEndian.Uint32(g[0:4]))
	binary.LittleEndian.PutUint16(dst[4:6], binary.BigEndian.Uint16(g[4:6]))
	binary.LittleEndian.PutUint16(dst[6:8], binary.BigEndian.Uint16(g[6:8]))
	copy(dst[8:16], g[8:16])
}

// mustGUID parses a GUID of the package's own type tables; it panics on a
// malformed one.
func mustGUID(s string) GUID {
	g, err := ParseGUID(s)
	if err != nil {
		panic("mkimg: " + err.Error())
	}
	return g
}

// hexValue returns the value of one hexadecimal digit.
func hexValue(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// storedGUID returns the GUID whose on-disk form (encode: UEFI's and
// Microsoft's mixed-endian order) is the 16 bytes of b.
func storedGUID(b []byte) GUID {
	var g GUID
	binary.BigEndian.PutUint32(g[0:4], binary.LittleEndian.Uint32(b[0:4]))
	binary.BigEndian.PutUint16(g[4:6], binary.LittleEndian.Uint16(b[4:6]))
	binary.BigEndian.PutUint16(g[6:8], binary.LittleEndian.Uint16(b[6:8]))
	copy(g[8:], b[8:16])
	return g
}
