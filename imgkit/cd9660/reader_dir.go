package cd9660

import (
	"io/fs"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// Entry describes one file or directory as its directory records hold it:
// what Sys() of the fs.FileInfo values of this package returns.
type Entry struct {
	// Name is the file's name in the FS: the Rock Ridge NM name, the
	// Joliet name or the ISO 9660 name without version and trailing dot.
	Name string
	// Identifier is the File Identifier as recorded ("README.TXT;1"),
	// decoded from UCS-2 in the Joliet tree.
	Identifier string
	// Extent is the Location of Extent of the first directory record: a
	// logical block number. A relocated directory's is the extent its CL
	// entry points to.
	Extent uint32
	// Size is the Data Length, summed over the records of a multi-extent
	// file.
	Size int64
	// Flags is the File Flags byte of the last directory record.
	Flags uint8
	// Recorded is the Recording Date and Time, in UTC.
	Recorded time.Time
	// Offset is the byte offset of the first directory record in the
	// image; Records is how many records the file has (more than one for a
	// multi-extent file).
	Offset  int64
	Records int
	// RockRidge holds the file's Rock Ridge entries, or nil.
	RockRidge *RRIP

	recOffs []int64  // the byte offset of each directory record
	extents []extent // where the data lies
	dir     bool
	isRoot  bool
	kids    []*Entry // for a directory: its entries, read by scan
	kidsErr error    // why the directory could not be read
	hide    bool     // a directory that holds only relocated directories
	moved   int      // entries left out as relocated or read elsewhere
}

// extent is one run of a file's data: n bytes from byte off of the image,
// in file units of unit bytes separated by gaps of gap bytes when the
// record is interleaved (unit is 0 when it is not).
type extent struct {
	off, n    int64
	unit, gap int64
}

// IsDir reports whether the entry is a directory.
func (e *Entry) IsDir() bool { return e.dir }

// Rdev returns the device number of a Rock Ridge device file in the Linux
// (glibc) encoding that fstree.Node.Rdev uses, from Major and Minor.
func (e *Entry) Rdev() uint64 {
	major, minor := e.Major(), e.Minor()
	return uint64(minor&0xff) | uint64(major&0xfff)<<8 | uint64(minor&^0xff)<<12 | uint64(major&^0xfff)<<32
}

// Major and Minor return the device numbers of a Rock Ridge device file
// from its PN entry as Linux's isofs reads them: Dev_t High and Dev_t Low
// are the major and minor numbers (as mkisofs and genisoimage write them),
// unless Dev_t High is 0, when Dev_t Low is a whole dev_t (as libisofs and
// makefs write small device numbers: FreeBSD's and glibc's encodings agree
// on them).
func (e *Entry) Major() uint32 {
	rr := e.RockRidge
	switch {
	case rr == nil:
		return 0
	case rr.DevHigh == 0:
		return rr.DevLow >> 8 & 0xfff
	}
	return rr.DevHigh
}

// Minor returns the minor device number; see Major.
func (e *Entry) Minor() uint32 {
	rr := e.RockRidge
	switch {
	case rr == nil:
		return 0
	case rr.DevHigh == 0:
		return rr.DevLow&0xff | rr.DevLow>>12&0xfff00
	}
	return rr.DevLow
}

// Link returns the target of a Rock Ridge symbolic link, or "".
func (e *Entry) Link() string {
	if e.RockRidge == nil {
		return ""
	}
	return e.RockRidge.Link
}

// typ returns the fstree type of the entry: from its PX mode under Rock
// Ridge, where the directory flag decides whether it is a directory.
func (e *Entry) typ() fstree.Type {
	if e.dir {
		return fstree.TypeDir
	}
	rr := e.RockRidge
	if rr == nil {
		return fstree.TypeFile
	}
	if rr.HasPX {
		t := fstree.TypeOfUnixMode(rr.Mode)
		if t == 0 || t == fstree.TypeDir {
			return fstree.TypeFile
		}
		return t
	}
	if rr.HasSL {
		return fstree.TypeSymlink
	}
	return fstree.TypeFile
}

// mode returns the fs.FileMode of the entry. Without a PX entry files are
// read-only (0444) and directories 0555, the modes of a read-only medium.
func (e *Entry) mode() fs.FileMode {
	t := e.typ()
	if rr := e.RockRidge; rr != nil && rr.HasPX {
		return fstree.FileMode(t, rr.Mode&0o7777)
	}
	switch t {
	case fstree.TypeDir:
		return fstree.FileMode(t, 0o555)
	case fstree.TypeSymlink:
		return fstree.FileMode(t, 0o777)
	}
	return fstree.FileMode(t, 0o444)
}

// modTime returns the Rock Ridge modification time, else the Recording
// Date and Time.
func (e *Entry) modTime() time.Time {
	if rr := e.RockRidge; rr != nil && !rr.Modified.IsZero() {
		return rr.Modified
	}
	return e.Recorded
}

// rawRecord is one directory record and its byte offset in the image.
type rawRecord struct {
	off int64
	rec dirRecord
}

// load reads the tree of namespace ns into f.root.
func (f *FS) load(ns Namespace) error {
	f.ns = ns
	d := f.primary
	if ns == Joliet {
		d = f.joliet
	}
	off := d.sector*SectorSize + 156
	rec := d.vd.rootDirectoryRecord()
	root := f.entryOf(rec, off)
	root.Name, root.isRoot, root.dir = ".", true, true
	f.root = root
	if err := f.checkDirExtent(root, off); err != nil {
		return err
	}
	f.scan()
	if root.kidsErr != nil {
		return root.kidsErr
	}
	return nil
}

// detectRockRidge looks for the SUSP indicator SP as the first entry of the
// primary root's "." record (SUSP 5.3) and keeps its LEN_SKP.
func (f *FS) detectRockRidge() {
	root := f.primary.vd.rootDirectoryRecord()
	loc, _ := get733(root.locationOfExtent())
	off := int64(loc) * f.blockSize
	var b [255]byte
	if off < 0 || off+int64(len(b)) > f.size || f.readAt(b[:], off) != nil {
		return
	}
	rec := dirRecord(b[:])
	if int(rec[0]) < dirRecordFixedLen+1 || rec[32] != 1 || rec[33] != 0 {
		return
	}
	su := rec.systemUse()
	if len(su) < 7 || string(su[:2]) != sigSP || su[2] < 7 {
		return
	}
	e := suspEntry(su[:7])
	if e.checkBytes()[0] != 0xbe || e.checkBytes()[1] != 0xef {
		return
	}
	f.rr, f.suspSkip = true, int(e.lenSkp()[0])
}

// entryOf makes the Entry of directory record rec at byte off, named by its
// file identifier.
func (f *FS) entryOf(rec dirRecord, off int64) *Entry {
	loc, _ := get733(rec.locationOfExtent())
	n, _ := get733(rec.dataLength())
	flags := rec.fileFlags()[0]
	e := &Entry{
		Extent:   loc,
		Size:     int64(n),
		Flags:    flags,
		Recorded: dirTime(rec.recordingDateAndTime()),
		Offset:   off,
		Records:  1,
		recOffs:  []int64{off},
		dir:      flags&flagDirectory != 0,
	}
	e.Identifier = f.identifier(rec.fileIdentifier())
	e.Name = plainName(e.Identifier, e.dir)
	e.extents = []extent{f.extentOf(rec)}
	return e
}

// extentOf returns where the data of record rec lies: after its extended
// attribute record, in file units and gaps when it is interleaved.
func (f *FS) extentOf(rec dirRecord) extent {
	loc, _ := get733(rec.locationOfExtent())
	n, _ := get733(rec.dataLength())
	xar := int64(rec.extendedAttributeRecordLength()[0])
	x := extent{off: (int64(loc) + xar) * f.blockSize, n: int64(n)}
	if u := int64(rec.fileUnitSize()[0]); u != 0 {
		x.unit, x.gap = u*f.blockSize, int64(rec.interleaveGapSize()[0])*f.blockSize
	}
	return x
}

// identifier decodes a file identifier: UCS-2 big-endian in the Joliet
// tree (UTF-16, surrogate pairs included), else bytes, read as Latin-1
// when they are not UTF-8.
func (f *FS) identifier(id []byte) string {
	if f.ns == Joliet {
		u := make([]uint16, len(id)/2)
		for i := range u {
			u[i] = uint16(id[2*i])<<8 | uint16(id[2*i+1])
		}
		return string(utf16.Decode(u))
	}
	return latin1(id)
}

// latin1 returns b as a string, converting it from Latin-1 when it is not
// valid UTF-8, so that every name is a valid fs.FS path element.
func latin1(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// plainName returns the name of a file with identifier id as Linux's isofs,
// libisofs, libarchive and 7-Zip show it without Rock Ridge: the version
// (";1") and a trailing "." removed from a file's identifier. The case is
// kept (Linux's isofs lower-cases names with its default map=normal;
// libisofs, libarchive and 7-Zip do not). An identifier ends at a NUL byte,
// as isoinfo, libarchive and 7-Zip read it: makefs's collision renaming at
// level 1 can leave one inside the identifier ("CHAPTER0;1" and a NUL).
func plainName(id string, dir bool) string {
	if i := strings.IndexByte(id, 0); i > 0 {
		id = id[:i]
	}
	if dir {
		return id
	}
	name := id
	if i := strings.LastIndexByte(name, ';'); i >= 0 && strings.Trim(name[i+1:], "0123456789") == "" {
		name = name[:i]
	}
	if len(name) > 1 && name[len(name)-1] == '.' {
		name = name[:len(name)-1]
	}
	if name == "" {
		return id
	}
	return name
}

// dirTime returns the time of a directory record's Recording Date and Time
// (ECMA-119 9.1.5) in UTC; all zero bytes are the zero time.
func dirTime(d dirDateTime) time.Time {
	if string(d) == "\x00\x00\x00\x00\x00\x00\x00" {
		return time.Time{}
	}
	zone := time.FixedZone("", int(int8(d.gmtOffset()[0]))*15*60)
	t := time.Date(1900+int(d.yearsSince1900()[0]), time.Month(d.month()[0]), int(d.day()[0]),
		int(d.hour()[0]), int(d.minute()[0]), int(d.second()[0]), 0, zone)
	return t.UTC()
}

// decTime returns the time of a 17-byte volume descriptor date and time
// (ECMA-119 8.4.26.1) in UTC; the "not specified" value, or digits that are
// not digits, give the zero time.
func decTime(d decDateTime) time.Time {
	num := func(b []byte) (int, bool) {
		v := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	var v [7]int
	for i, b := range [][]byte{d.year(), d.month(), d.day(), d.hour(), d.minute(), d.second(), d.hundredthsOfASecond()} {
		n, ok := num(b)
		if !ok {
			return time.Time{}
		}
		v[i] = n
	}
	if v == [7]int{} {
		return time.Time{}
	}
	zone := time.FixedZone("", int(int8(d.gmtOffset()[0]))*15*60)
	return time.Date(v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], v[6]*10_000_000, zone).UTC()
}
