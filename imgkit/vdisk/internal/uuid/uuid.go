// Package uuid is the GUID of the VHD and VHDX records: held in RFC 4122
// byte order, stored in the mixed-endian order UEFI and Microsoft use.
package uuid

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// UUID is a GUID in RFC 4122 byte order.
type UUID [16]byte

// Must parses s, 8-4-4-4-12 hexadecimal digits; it panics on a malformed
// one (the formats' own constants).
func Must(s string) UUID {
	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil || len(b) != 16 || len(s) != 36 {
		panic(fmt.Sprintf("uuid: malformed %q", s))
	}
	return UUID(b)
}

// Stored returns the UUID whose on-disk form (Encode) is the 16 bytes of
// b.
func Stored(b []byte) UUID {
	var g UUID
	binary.BigEndian.PutUint32(g[0:4], binary.LittleEndian.Uint32(b[0:4]))
	binary.BigEndian.PutUint16(g[4:6], binary.LittleEndian.Uint16(b[4:6]))
	binary.BigEndian.PutUint16(g[6:8], binary.LittleEndian.Uint16(b[6:8]))
	copy(g[8:], b[8:16])
	return g
}

// Encode stores g in dst: the first three fields little-endian, the last
// two as they are.
func (g UUID) Encode(dst []byte) {
	binary.LittleEndian.PutUint32(dst[0:4], binary.BigEndian.Uint32(g[0:4]))
	binary.LittleEndian.PutUint16(dst[4:6], binary.BigEndian.Uint16(g[4:6]))
	binary.LittleEndian.PutUint16(dst[6:8], binary.BigEndian.Uint16(g[6:8]))
	copy(dst[8:16], g[8:16])
}

// String returns g as 8-4-4-4-12 lower-case hexadecimal digits.
func (g UUID) String() string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", g[0:4], g[4:6], g[6:8], g[8:10], g[10:16])
}
