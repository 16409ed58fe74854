package cd9660

import (
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// Rock Ridge: the SUSP (IEEE P1281) and RRIP (IEEE P1282) entries of each
// directory record, as makefs's iso9660_rrip.c makes them, and how they
// are split between the record's System Use field and a continuation
// area.

// The Extensions Reference of the root's "." record (RRIP 4.3,
// SUSP_RRIP_ER_EXT_* in makefs).
const (
	erIdentifier = "IEEE_P1282"
	erDescriptor = "THE IEEE P1282 PROTOCOL PROVIDES SUPPORT FOR POSIX FILE SYSTEM SEMANTICS."
	erSource     = "PLEASE CONTACT THE IEEE STANDARDS DEPARTMENT, PISCATAWAY, NJ, USA FOR THE P1282 SPECIFICATION."
)

// Entry lengths fixed by SUSP and RRIP.
const (
	ceLen = 28 // CE (SUSP 5.1)
	pxLen = 44 // PX (RRIP 4.1.1)
	pnLen = 20 // PN (RRIP 4.1.2)
	tfLen = 5 + 3*7
	clLen = 12 // CL and PL (RRIP 4.1.5)
	reLen = 4
	spLen = 7
	// suFieldMax is the most a directory record may be (makefs keeps each
	// record within 254 bytes, ECMA-119 9.1.1 allowing 255).
	suFieldMax = 254
	// nmMax and slMax are the most data one NM or SL entry carries in
	// makefs.
	nmMax = 249
	slMax = 249
)

// TF flags (RRIP 4.1.6) and SL and NM component flags (RRIP 4.1.3, 4.1.4).
const (
	tfModify     = 0x02
	tfAccess     = 0x04
	tfAttributes = 0x08
	slContinue   = 0x01
	slCurrent    = 0x02
	slParent     = 0x04
	slRoot       = 0x08
	nmContinue   = 0x01
)

// rrRecord holds a record's SUSP entries, in order; the first inSUF of
// them are written in the System Use field, the rest in the continuation
// area the CE entry (at index ce, or -1) points to.
type rrRecord struct {
	entries  []suspEntry
	inSUF    int
	ce       int
	suLen    int    // bytes of the System Use field
	caLen    int    // bytes in the continuation area
	caSector uint32 // where they are: sector and offset in it
	caOff    uint32
	cl, pl   int // index of the CL or PL entry, or -1
}

// newEntry makes an entry with its signature, length and version 1.
func newEntry(sig string, n int) suspEntry {
	e := make(suspEntry, n)
	copy(e.signatureWord(), sig)
	e.length()[0] = byte(n)
	e.systemUseEntryVersion()[0] = 1
	return e
}

// unixMode is st_mode: the type bits of t and the permissions perm.
func unixMode(t fstree.Type, perm uint32) uint32 {
	types := [...]uint32{fstree.TypeFile: 0o100000, fstree.TypeDir: 0o040000, fstree.TypeSymlink: 0o120000,
		fstree.TypeFIFO: 0o010000, fstree.TypeSocket: 0o140000, fstree.TypeChar: 0o020000, fstree.TypeBlock: 0o060000}
	m := perm & 0o7777
	if int(t) < len(types) {
		m |= types[t]
	}
	return m
}

// pxEntry is the POSIX file attributes entry (RRIP 4.1.1) of n, with the
// file serial number serial.
func pxEntry(n *fstree.Node, serial uint32) suspEntry {
	e := newEntry(sigPX, pxLen)
	put733(e.posixFileMode(), unixMode(n.Type, n.Mode))
	put733(e.posixFileLinks(), n.Nlink)
	put733(e.posixFileUserID(), n.UID)
	put733(e.posixFileGroupID(), n.GID)
	put733(e.posixFileSerialNumber(), serial)
	return e
}

// tfEntry is the time stamps entry (RRIP 4.1.6) of n: modification,
// access and attribute change times, in the short form.
func tfEntry(n *fstree.Node) suspEntry {
	e := newEntry(sigTF, tfLen)
	e.flags()[0] = tfModify | tfAccess | tfAttributes
	ts := e.timeStamps()
	putDirDate(dirDateTime(ts[0:7]), n.Mtime)
	putDirDate(dirDateTime(ts[7:14]), n.Atime)
	putDirDate(dirDateTime(ts[14:21]), n.Ctime)
	return e
}

// pnEntry is the POSIX device number entry (RRIP 4.1.2).
func pnEntry(n *fstree.Node) suspEntry {
	e := newEntry(sigPN, pnLen)
	put733(e.devTHigh(), uint32(n.Rdev>>32))
	put733(e.devTLow(), uint32(n.Rdev))
	return e
}

// nmEntries are the alternate name entries (RRIP 4.1.4) of name, 249
// bytes each at most.
func nmEntries(name string) []suspEntry {
	var out []suspEntry
	for {
		part, flags := name, byte(0)
		if len(part) > nmMax {
			part, flags = part[:nmMax], nmContinue
		}
		e := newEntry(sigNM, 5+len(part))
		e.flags()[0] = flags
		copy(e.nameContent(), part)
		out = append(out, e)
		name = name[len(part):]
		if flags == 0 {
			return out
		}
	}
}

// spEntry is the SUSP indicator (SUSP 5.3) of the root's "." record.
func spEntry() suspEntry {
	e := newEntry(sigSP, spLen)
	copy(e.checkBytes(), "\xBE\xEF")
	e.lenSkp()[0] = 0
	return e
}

// erEntry is the Extensions Reference (SUSP 5.5) for RRIP.
func erEntry() suspEntry {
	n := 8 + len(erIdentifier) + len(erDescriptor) + len(erSource)
	e := newEntry(sigER, n)
	e.lenID()[0] = byte(len(erIdentifier))
	e.lenDes()[0] = byte(len(erDescriptor))
	e.lenSrc()[0] = byte(len(erSource))
	e.extVer()[0] = 1
	copy(e[8:], erIdentifier+erDescriptor+erSource) // identifier, descriptor, source
	return e
}

// putDirDate writes t as a Recording Date and Time (ECMA-119 9.1.5), in
// UTC (offset 0), as makefs writes it with TZ=UTC.
func putDirDate(d dirDateTime, t time.Time) {
	t = t.UTC()
	y := t.Year() - 1900
	d.yearsSince1900()[0] = byte(y)
	d.month()[0] = byte(t.Month())
	d.day()[0] = byte(t.Day())
	d.hour()[0] = byte(t.Hour())
	d.minute()[0] = byte(t.Minute())
	d.second()[0] = byte(t.Second())
	d.gmtOffset()[0] = 0
}
