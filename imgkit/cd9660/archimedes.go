package cd9660

import (
	"encoding/binary"
	"strconv"
	"time"
)

// The ARCHIMEDES extension of NetBSD's makefs (-o archimedes, which
// FreeBSD's makefs does not have): RISC OS CDFS reads a 32-byte block at
// the end of a record's System Use field holding the file's RISC OS load
// and exec addresses (its type and time stamp) and attributes. NetBSD's
// makefs gives one to every file whose name ends in ",xxx" (the RISC OS
// file type, in hexadecimal, cut off the identifier) and to every record
// whose name starts with "!" (flagged, as RISC OS names those with a "!"
// the identifier cannot hold). Under Rock Ridge an ST entry ends the SUSP
// entries before it.

// archimedesMagic starts the block.
const archimedesMagic = "ARCHIMEDES"

// archimedesLen is the length of the block.
const archimedesLen = 32

// RISC OS attributes the block carries: owner and public read; and the
// CDFS flag for a name that starts with "!".
const (
	roAccessUR = 0x01
	roAccessOR = 0x10
	cdfsPling  = 0x01
)

// riscosEpoch is the RISC OS time of the Unix epoch, in seconds from
// 1900-01-01.
const riscosEpoch = 2208988800

// archimedesType is the RISC OS file type a name ",xxx" gives, as
// NetBSD's makefs reads it (strtoul's hexadecimal prefix, so "zzz" is 0),
// or -1 for none.
func archimedesType(name string) int {
	if len(name) < 4 || name[len(name)-4] != ',' {
		return -1
	}
	v := 0
	for _, c := range []byte(name[len(name)-3:]) {
		d, err := strconv.ParseUint(string(c), 16, 8)
		if err != nil {
			break
		}
		v = v<<4 | int(d)
	}
	return v
}

// archimedesTail is the block of a record named name, modified at mtime,
// or nil when it gets none.
func archimedesTail(name string, mtime time.Time) []byte {
	typ := archimedesType(name)
	if typ < 0 && (name == "" || name[0] != '!') {
		return nil
	}
	typ = max(typ, 0)
	stamp := uint64(mtime.Unix()+riscosEpoch) * 100
	b := make([]byte, archimedesLen)
	copy(b, archimedesMagic)
	binary.LittleEndian.PutUint32(b[10:], 0xfff00000|uint32(typ)<<8|uint32(stamp>>32)) // load address
	binary.LittleEndian.PutUint32(b[14:], uint32(stamp))                               // exec address
	b[18] = roAccessUR | roAccessOR                                                    // RISC OS attributes
	if name[0] == '!' {
		b[19] = cdfsPling // CDFS attributes
	}
	return b
}

// addArchimedes gives the records under d their blocks.
func addArchimedes(d *isoNode) {
	for _, c := range d.children {
		if c.kind == kindDot || c.kind == kindDotDot {
			continue
		}
		c.tail = archimedesTail(c.orig, c.src.Mtime)
		if c.kind == kindDir {
			addArchimedes(c)
		}
	}
}
