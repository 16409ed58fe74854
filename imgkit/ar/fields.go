package ar

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// This file is the package's side of the format contract of
// imgkit/inspect/describe:
// Match recognises an archive, Fields describes one field by field, for
// tools that explain how two archives differ (imgkit/inspect, "fixturegen
// diff"), and Describe puts them together. Header fields are named as
// ar(5) names them: "ar member header date" is ar_date. A Field's Path is
// "archive" for the magic, "symbol index" and "long-name table" for the
// special members, or the member's name as the Reader's fs.FS exposes it
// ("b.o", "b.o;2" for a second b.o); a field that has no single place (a
// member's index entries) has Offset -1.

// Match reports whether head, the first bytes of a file, starts an
// archive: the magic string of a regular (ARMAG) or thin (ARMAGT) archive.
func Match(head []byte) bool {
	return bytes.HasPrefix(head, []byte(magic)) || bytes.HasPrefix(head, []byte(thinMagic))
}

// OpenFS is the contract's Open: NewReader, except that when r is an
// *os.File (the file a tool such as "fixturegen ls" or "cat" opened) a
// thin archive's members are read from the files they name beside it, as
// NewReaderDir reads them, since the contract's Open has no other way to
// learn where the archive is.
func OpenFS(r io.ReaderAt, size int64) (*Reader, error) {
	f, ok := r.(*os.File)
	if !ok {
		return NewReader(r, size)
	}
	dir, err := filepath.Abs(filepath.Dir(f.Name()))
	if err != nil {
		return nil, fmt.Errorf("ar: %s: %w", f.Name(), err)
	}
	return NewReaderDir(r, size, dir)
}

// Describe returns the format contract of ar archives, for
// imgkit/inspect's registry: Match, OpenFS as Open, Fields, a summary
// ("gnu layout, index gnu") and each member's header offset as the
// listing's column.
func Describe() describe.Kind {
	return describe.Kind{
		Name:    "ar",
		Match:   Match,
		Open:    describe.OpenAs(OpenFS),
		Fields:  Fields,
		Summary: describe.SummaryOf(summary),
		Column:  describe.ColumnOf(headerColumn),
		Owner:   describe.OwnerOf(memberOwner),
	}
}

// memberOwner returns a member's ar_uid and ar_gid. A value that is not a
// uid (negative, or beyond 32 bits, as a damaged header may hold) is no
// owner.
func memberOwner(m *Member) (uid, gid uint32, ok bool) {
	if m.Uid < 0 || m.Gid < 0 || int64(m.Uid) > math.MaxUint32 || int64(m.Gid) > math.MaxUint32 {
		return 0, 0, false
	}
	return uint32(m.Uid), uint32(m.Gid), true
}

// summary says the layout and symbol index of an archive NewReader
// returned.
func summary(rd *Reader) string {
	s := rd.Format().String() + " layout"
	if rd.Thin() {
		s = "thin, " + s
	}
	return s + ", index " + rd.Index().String()
}

// headerColumn returns "@0x44", the header offset of a member.
func headerColumn(m *Member) string { return "@0x" + strconv.FormatInt(m.HeaderOffset, 16) }

// headerFieldNames names the fields of struct ar_hdr, in order, with their
// offsets and widths.
var headerFieldNames = []struct {
	name     string
	off, len int
}{
	{"ar member header name", 0, nameLen},
	{"ar member header date", 16, dateLen},
	{"ar member header uid", 28, uidLen},
	{"ar member header gid", 34, gidLen},
	{"ar member header mode", 40, modeLen},
	{"ar member header size", 48, sizeLen},
	{"ar member header fmag", 58, 2},
}

// Fields describes the archive in r (size bytes): its magic, the symbol
// index and long-name table, and for each member its header fields, its
// data (size and SHA-256; thin archives have none) and the symbols the
// index gives it. Each (Path, Name) pair appears once.
func Fields(r io.ReaderAt, size int64) ([]describe.Field, error) {
	rd, err := NewReader(r, size)
	if err != nil {
		return nil, err
	}
	var m [magicLen]byte
	if _, err := r.ReadAt(m[:], 0); err != nil {
		return nil, err
	}
	out := []describe.Field{{Path: "archive", Name: "magic", Offset: 0, Size: magicLen, Value: strconv.Quote(string(m[:]))}}
	members := rd.Members()

	// The special members sit between the magic and the first member.
	end := size
	if len(members) > 0 {
		end = members[0].HeaderOffset
	}
	if out, err = specialFields(out, r, size, end); err != nil {
		return nil, err
	}
	if len(rd.Symbols()) > 0 || rd.Index() != IndexNone {
		out = append(out, describe.Field{Path: "symbol index", Name: "kind", Offset: -1, Value: rd.Index().String()})
	}
	return memberFields(out, rd, r)
}

// specialFields appends the fields of the special members (symbol index,
// long-name table) of the archive in r (size bytes), which sit between the
// magic and end, the first member's header. It stops at the first header
// whose ar_size does not fit in the archive.
func specialFields(out []describe.Field, r io.ReaderAt, size, end int64) ([]describe.Field, error) {
	for off := int64(magicLen); off+headerLen <= end; {
		var h header
		if _, err := r.ReadAt(h[:], off); err != nil {
			return nil, err
		}
		n, ok := parseNum(h.arSize(), 10)
		if !ok || n < 0 || n > size-off-headerLen {
			break
		}
		what := specialPath(strings.TrimRight(string(h.arName()), " "))
		out = headerFields(out, what, off, &h)
		sum, err := hashSection(r, off+headerLen, n)
		if err != nil {
			return nil, err
		}
		out = append(out, describe.Field{Path: what, Name: "data", Offset: off + headerLen, Size: n, Value: sum})
		off += headerLen + n + pad2(n)
	}
	return out, nil
}

// specialPath returns the Path of the fields of the special member whose
// ar_name, without its padding, is name: "symbol index", "long-name table",
// or "special member" and the quoted name for another.
func specialPath(name string) string {
	switch name {
	case gnuSymtabName, gnuSym64Name, bsdSymdefName, bsdSymdefSorted, bsdSymdef64Name:
		return "symbol index"
	case gnuStrtabName:
		return "long-name table"
	}
	if strings.HasPrefix(name, bsdLongPrefix) {
		return "symbol index" // BSD: "#1/len" followed by __.SYMDEF
	}
	return "special member " + strconv.Quote(name)
}

// memberFields appends, for each member of rd (read through r), its header
// fields, its data and its index entries. The Path of a member is its name,
// with ";2" for a second member of that name and so on.
func memberFields(out []describe.Field, rd *Reader, r io.ReaderAt) ([]describe.Field, error) {
	count := map[string]int{}
	for i, mem := range rd.Members() {
		count[mem.Name]++
		p := mem.Name
		if n := count[mem.Name]; n > 1 {
			p += ";" + strconv.Itoa(n)
		}
		var h header
		if _, err := r.ReadAt(h[:], mem.HeaderOffset); err != nil {
			return nil, fmt.Errorf("ar: reading header at byte %#x: %w", mem.HeaderOffset, err)
		}
		out = headerFields(out, p, mem.HeaderOffset, &h)
		if mem.DataOffset >= 0 {
			sec, err := rd.Section(i)
			if err != nil {
				return nil, err
			}
			sum, err := hashSection(sec, 0, mem.Size)
			if err != nil {
				return nil, err
			}
			out = append(out, describe.Field{Path: p, Name: "data", Offset: mem.DataOffset, Size: mem.Size, Value: sum})
		}
		if len(mem.Symbols) > 0 {
			out = append(out, describe.Field{Path: p, Name: "symbol index entries", Offset: -1, Value: strings.Join(mem.Symbols, " ")})
		}
	}
	return out, nil
}

// headerFields appends the fields of the header h at off. Values are
// quoted without their space padding.
func headerFields(out []describe.Field, p string, off int64, h *header) []describe.Field {
	for _, f := range headerFieldNames {
		out = append(out, describe.Field{Path: p, Name: f.name, Offset: off + int64(f.off), Size: int64(f.len),
			Value: strconv.Quote(strings.TrimRight(string(h[f.off:f.off+f.len]), " "))})
	}
	return out
}

// hashSection returns the value of the n data bytes of r at off:
// "N bytes, sha256:...".
func hashSection(r io.ReaderAt, off, n int64) (string, error) {
	sum, err := describe.SumRange(r, off, n)
	if err != nil {
		return "", fmt.Errorf("ar: reading data at byte %#x: %w", off, err)
	}
	return describe.DataValue(n, sum), nil
}
