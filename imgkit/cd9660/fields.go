package cd9660

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// This file is the package's side of the format contract of
// imgkit/inspect/describe:
// Match recognises an ISO 9660 image, Fields describes one field by field
// for tools that explain how two images differ (imgkit/inspect, "fixturegen
// diff"), and Describe puts them together. Field names are those of
// ECMA-119 ("Volume Space Size", "Location of Extent"), SUSP and RRIP
// ("RRIP PX", "SUSP CE") and El Torito ("Load RBA"). A Field's Path is the
// structure: "system area", "primary volume descriptor", "type L path
// table record 3", "boot catalog", or the path of a file or directory in
// the FS that NewReader returns ("/dir/a.txt"; "/dir/." and "/dir/.." for a
// directory's own records), with "joliet:" before the paths of the Joliet
// tree when the FS shows another one.

// Match reports whether head, the first bytes of a file, holds an ISO 9660
// volume descriptor at sector 16 (byte 32768): a descriptor type of 0 to 3
// or 255 and the standard identifier "CD001".
func Match(head []byte) bool {
	const off = systemAreaSectors * SectorSize
	if len(head) < off+7 {
		return false
	}
	t := head[off]
	return string(head[off+1:off+6]) == standardIdentifier && (t <= vdTypePartition || t == vdTypeTerminator)
}

// Describe returns the format contract of ISO 9660 images, for
// imgkit/inspect's registry: Match, NewReader, Fields, a summary ("ISO 9660,
// Rock Ridge, Joliet level 3, El Torito") and each file's file identifier
// and extent as the listing's column.
func Describe() describe.Kind {
	return describe.Kind{
		Name:    "cd9660",
		Match:   Match,
		Open:    describe.OpenAs(NewReader),
		Fields:  Fields,
		Summary: describe.SummaryOf(summary),
		Column:  describe.ColumnOf(column),
		Owner:   describe.OwnerOf(owner),
	}
}

// summary names the extensions of an image NewReader returned.
func summary(f *FS) string {
	s := "ISO 9660"
	if f.rr {
		s += ", Rock Ridge"
	}
	if f.joliet != nil {
		s += ", Joliet level " + strconv.Itoa(f.joliet.level)
	}
	if f.boot != nil {
		s += ", El Torito"
	}
	return s
}

// column returns a file's recorded file identifier and the logical block
// of its extent: "README.TXT;1@23".
func column(e *Entry) string {
	if e.isRoot {
		return ""
	}
	id := strconv.QuoteToGraphic(e.Identifier) // a NUL makefs left in it shows as \x00
	return id[1:len(id)-1] + "@" + strconv.FormatUint(uint64(e.Extent), 10)
}

// owner returns the uid and gid of a file's Rock Ridge PX entry; plain
// ISO 9660 records no owner, so a file without a PX entry has none.
func owner(e *Entry) (uid, gid uint32, ok bool) {
	if rr := e.RockRidge; rr != nil && rr.HasPX {
		return rr.UID, rr.GID, true
	}
	return 0, 0, false
}

// Fields describes the ISO 9660 image in r (size bytes): the system area,
// each volume descriptor field by field, the path tables record by record,
// the directory records of every file and directory with their SUSP and
// RRIP entries, the directory records of the Joliet tree, the El Torito
// boot catalogue and boot images, and each file's data. Each (Path, Name)
// pair appears once.
func Fields(r io.ReaderAt, size int64) ([]describe.Field, error) {
	f, err := NewReader(r, size)
	if err != nil {
		return nil, err
	}
	l := &fieldList{f: f, budget: 4*size + 1<<20}
	l.systemArea()
	for _, d := range f.vds {
		l.descriptor(d)
	}
	for _, d := range []*descriptor{f.primary, f.joliet} {
		if d != nil {
			l.pathTables(d)
		}
	}
	if err := l.tree(f, ""); err != nil {
		return nil, err
	}
	if f.joliet != nil && f.ns != Joliet {
		j, err := f.View(Joliet)
		if err == nil {
			if err := l.tree(j, "joliet:"); err != nil {
				return nil, err
			}
		}
	}
	if f.boot != nil {
		l.bootCatalog()
	}
	return l.out, nil
}

// fieldList gathers the fields of an image.
type fieldList struct {
	f   *FS
	out []describe.Field
	// budget is how many more bytes of file data may be summed: extents
	// that overlap (a crafted image can point every file at the whole
	// image) would otherwise make the description quadratic in the size.
	budget int64
}

// add appends the field b, a subslice of rec which lies at byte off.
func (l *fieldList) add(path, name string, off int64, rec, b []byte, value string) {
	l.out = append(l.out, describe.Field{Path: path, Name: name, Offset: off + int64(cap(rec)-cap(b)), Size: int64(len(b)), Value: value})
}

// systemArea describes sectors 0 to 15 as one sum.
func (l *fieldList) systemArea() {
	n := min(int64(systemAreaSectors*SectorSize), l.f.size)
	sum, err := describe.SumRange(l.f.r, 0, n)
	if err != nil {
		sum = "unreadable: " + err.Error()
	}
	l.out = append(l.out, describe.Field{Path: "system area", Name: "System Area", Offset: 0, Size: n, Value: sum})
}

// num733 says a both-byte-order 32-bit number, and its big-endian half
// when that disagrees.
func num733(b []byte) string {
	v, ok := get733(b)
	s := strconv.FormatUint(uint64(v), 10)
	if !ok {
		s += fmt.Sprintf(" (big-endian half %d)", be32(b[4:]))
	}
	return s
}

// num723 says a both-byte-order 16-bit number like num733.
func num723(b []byte) string {
	v, ok := get723(b)
	s := strconv.FormatUint(uint64(v), 10)
	if !ok {
		s += fmt.Sprintf(" (big-endian half %d)", uint16(b[2])<<8|uint16(b[3]))
	}
	return s
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func le32(b []byte) uint32 {
	return uint32(b[3])<<24 | uint32(b[2])<<16 | uint32(b[1])<<8 | uint32(b[0])
}

// byteNum says a one-byte field in decimal.
func byteNum(b []byte) string { return strconv.Itoa(int(b[0])) }

// quoted says a character field without its trailing blanks, quoted.
func quoted(b []byte) string { return strconv.Quote(latin1([]byte(strings.TrimRight(string(b), " ")))) }

// ucs2Quoted says a Joliet character field: UCS-2 big-endian, without
// trailing blanks, quoted.
func ucs2Quoted(b []byte) string {
	f := &FS{ns: Joliet}
	return strconv.Quote(strings.TrimRight(f.identifier(b), " \x00"))
}

// decTimeString says a volume descriptor date and time: its digits, offset
// and the time in UTC, or "not specified".
func decTimeString(d decDateTime) string {
	t := decTime(d)
	if t.IsZero() {
		return strconv.Quote(string(d[:16])) + " offset " + strconv.Itoa(int(int8(d.gmtOffset()[0]))) + " (not specified)"
	}
	return strconv.Quote(string(d[:16])) + " offset " + strconv.Itoa(int(int8(d.gmtOffset()[0]))) + " (" + t.Format("2006-01-02 15:04:05.00 UTC") + ")"
}

// dirTimeString says a directory record's Recording Date and Time.
func dirTimeString(d dirDateTime) string {
	t := dirTime(d)
	raw := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d offset %d", 1900+int(d.yearsSince1900()[0]), d.month()[0], d.day()[0],
		d.hour()[0], d.minute()[0], d.second()[0], int8(d.gmtOffset()[0]))
	if t.IsZero() {
		return raw + " (not specified)"
	}
	return raw + " (" + t.Format("2006-01-02 15:04:05 UTC") + ")"
}

// flagsString says a File Flags byte with the names of its bits.
func flagsString(b byte) string {
	var names []string
	for _, x := range []struct {
		bit  byte
		name string
	}{{flagExistence, "Existence"}, {flagDirectory, "Directory"}, {flagAssociatedFile, "Associated File"},
		{flagRecord, "Record"}, {flagProtection, "Protection"}, {flagMultiExtent, "Multi-Extent"}} {
		if b&x.bit != 0 {
			names = append(names, x.name)
		}
	}
	s := fmt.Sprintf("%#02x", b)
	if len(names) > 0 {
		s += " " + strings.Join(names, "|")
	}
	return s
}
