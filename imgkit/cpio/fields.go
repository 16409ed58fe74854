package cpio

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// This file is the package's side of the format contract of
// imgkit/inspect/describe: Match recognises an archive, Fields describes
// one field by field for "fixturegen diff", and Describe puts them
// together. Header fields are named as cpio(5) names them (c_ino,
// c_mode, c_filesize...). A Field's Path is the entry's name as stored,
// with ";N" for the Nth entry of that name (N >= 2), so that the
// trailers of concatenated archives and replaced files stay apart.

// Match reports whether head, the first bytes of a file, starts a newc,
// crc or odc archive.
func Match(head []byte) bool {
	return bytes.HasPrefix(head, []byte(magicNewc)) || bytes.HasPrefix(head, []byte(magicCRC)) ||
		bytes.HasPrefix(head, []byte(magicODC))
}

// Describe returns the format contract of cpio archives, for
// imgkit/inspect's registry: Match, NewReader as Open, Fields, a summary
// ("newc, 12 entries") and each entry's c_ino as the listing's column.
func Describe() describe.Kind {
	return describe.Kind{
		Name:    "cpio",
		Match:   Match,
		Open:    describe.OpenAs(NewReader),
		Fields:  Fields,
		Summary: describe.SummaryOf(summary),
		Column:  describe.ColumnOf(func(e *Entry) string { return "ino " + strconv.FormatUint(e.Ino, 10) }),
		Owner:   describe.OwnerOf(func(e *Entry) (uint32, uint32, bool) { return e.UID, e.GID, true }),
	}
}

// summary says the format of the first archive, how many entries and
// how many concatenated archives the file holds.
func summary(rd *Reader) string {
	es := rd.Entries()
	s := fmt.Sprintf("%s, %d entries", es[0].Format, len(es))
	if n := es[len(es)-1].Archive + 1; n > 1 {
		s += fmt.Sprintf(" in %d concatenated archives", n)
	}
	return s
}

// field is one header field: its name, offset in the header and width.
type field struct {
	name     string
	off, len int
}

var newcFields = []field{
	{"c_magic", 0, 6}, {"c_ino", 6, 8}, {"c_mode", 14, 8}, {"c_uid", 22, 8}, {"c_gid", 30, 8},
	{"c_nlink", 38, 8}, {"c_mtime", 46, 8}, {"c_filesize", 54, 8}, {"c_devmajor", 62, 8},
	{"c_devminor", 70, 8}, {"c_rdevmajor", 78, 8}, {"c_rdevminor", 86, 8}, {"c_namesize", 94, 8},
	{"c_check", 102, 8},
}

var odcFields = []field{
	{"c_magic", 0, 6}, {"c_dev", 6, 6}, {"c_ino", 12, 6}, {"c_mode", 18, 6}, {"c_uid", 24, 6},
	{"c_gid", 30, 6}, {"c_nlink", 36, 6}, {"c_rdev", 42, 6}, {"c_mtime", 48, 11},
	{"c_namesize", 59, 6}, {"c_filesize", 65, 11},
}

// Fields describes the archive in r (size bytes): each entry's header
// fields as stored, its name, and its data (size and SHA-256).
func Fields(r io.ReaderAt, size int64) ([]describe.Field, error) {
	rd, err := NewReader(r, size)
	if err != nil {
		return nil, err
	}
	var out []describe.Field
	count := map[string]int{}
	for i := range rd.entries {
		e := &rd.entries[i]
		count[e.Name]++
		p := e.Name
		if n := count[e.Name]; n > 1 {
			p += ";" + strconv.Itoa(n)
		}
		fields, hlen := newcFields, newcLen
		if e.Format == FormatODC {
			fields, hlen = odcFields, odcLen
		}
		hdr := make([]byte, hlen)
		if _, err := r.ReadAt(hdr, e.HeaderOffset); err != nil {
			return nil, fmt.Errorf("cpio: reading header at byte %#x: %w", e.HeaderOffset, err)
		}
		for _, f := range fields {
			out = append(out, describe.Field{Path: p, Name: f.name, Offset: e.HeaderOffset + int64(f.off),
				Size: int64(f.len), Value: strconv.Quote(string(hdr[f.off : f.off+f.len]))})
		}
		out = append(out, describe.Field{Path: p, Name: "c_name", Offset: e.HeaderOffset + int64(hlen),
			Size: int64(len(e.Name) + 1), Value: strconv.Quote(e.Name)})
		if e.Size > 0 {
			sum, err := describe.SumRange(r, e.DataOffset, e.Size)
			if err != nil {
				return nil, fmt.Errorf("cpio: reading data at byte %#x: %w", e.DataOffset, err)
			}
			out = append(out, describe.Field{Path: p, Name: "data", Offset: e.DataOffset, Size: e.Size,
				Value: describe.DataValue(e.Size, sum)})
		}
	}
	return out, nil
}
