package ar

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A Header describes one archive member. A Header of a Member read by a
// Reader also remembers the bytes of its date, uid, gid and mode fields:
// written with unchanged ModTime, Uid, Gid and Mode, it gets those bytes
// back as they were (GNU ar keeps them so); a changed field is written
// anew, as for a Header made by hand.
type Header struct {
	// Name is the member name: the file's base name, or for a thin archive
	// (and with the P modifier) the path as stored.
	Name string
	// ModTime is ar_date, whole seconds; the Unix epoch when zero.
	ModTime time.Time
	// Uid and Gid are ar_uid and ar_gid.
	Uid, Gid int
	// Mode is ar_mode as stored: permission bits, and file type bits when
	// the writer stored them (GNU ar with U stores st_mode, e.g. 0o100644).
	Mode int64
	// Size is the size of the member data in bytes.
	Size int64

	// raw holds ar_date..ar_mode as read (all zero for a Header made by
	// hand), so that rewriting an archive carries them over byte for byte
	// as GNU ar does while ModTime, Uid, Gid and Mode keep the values read.
	raw [32]byte
}

// keepRaw reports whether a writer should copy h's ar_date..ar_mode bytes as
// they were read: h came from a Reader and its ModTime, Uid, Gid and Mode
// still say what those bytes say.
func (h *Header) keepRaw() bool {
	if h.raw == ([32]byte{}) {
		return false
	}
	var hd header
	copy(hd.meta(), h.raw[:])
	date, ok1 := parseNum(hd.arDate(), 10)
	uid, ok2 := parseNum(hd.arUID(), 10)
	gid, ok3 := parseNum(hd.arGID(), 10)
	mode, ok4 := parseNum(hd.arMode(), 8)
	return ok1 && ok2 && ok3 && ok4 &&
		h.ModTime.Unix() == date && int64(h.Uid) == uid && int64(h.Gid) == gid && h.Mode == mode
}

// A Member is a member of an archive read by a Reader.
type Member struct {
	Header
	// HeaderOffset is the byte offset of the member's header, the value the
	// symbol index refers to.
	HeaderOffset int64
	// DataOffset is the byte offset of the member's data in the archive, or
	// -1 for the members of a thin archive, whose data lives in the file
	// named by Name, relative to the archive's directory.
	DataOffset int64
	// Symbols are the symbol index entries that point at this member, in
	// index order.
	Symbols []string
}

// A Symbol is one entry of an archive's symbol index.
type Symbol struct {
	Name string
	// Offset is the header offset the entry points at.
	Offset int64
	// Member is the index in Reader.Members of the member at Offset, or -1
	// when no member starts there.
	Member int
}

// IndexKind tells which symbol index an archive has.
type IndexKind int

// Symbol index kinds.
const (
	IndexNone  IndexKind = iota
	IndexGNU             // "/": 32-bit big-endian fields
	IndexGNU64           // "/SYM64/": 64-bit big-endian fields
	IndexBSD             // "__.SYMDEF": 32-bit little-endian ranlib structs
	IndexBSD64           // "__.SYMDEF_64": 64-bit little-endian ranlib structs
)

// A Reader reads an archive held in an io.ReaderAt. NewReader parses every
// header up front; members' data is read only on demand. A Reader is an
// io/fs.FS over the members (see DETAILS.md). The members
// of a thin archive are read from the files they name when the Reader
// knows where the archive is: OpenReader, NewReaderDir and NewReaderFS.
type Reader struct {
	r       io.ReaderAt
	size    int64
	thin    bool
	format  Format
	members []Member
	symbols []Symbol
	index   IndexKind
	strtab  []byte // the GNU "//" member
	fstOnce sync.Once
	fst     *fsTree // built by tree
	// openMember opens a thin archive's member files; nil when the
	// Reader does not know where the archive is (NewReader).
	openMember openMemberFunc
	thinOpen   thinFiles // member files Section opened
}

// maxSpecial bounds the symbol index and long-name table a Reader loads into
// memory.
const maxSpecial = 1 << 30

// NewReader reads the archive of size bytes in r. It returns an error that
// names the byte offset of the first malformed structure. The members of a
// thin archive are listed but their data cannot be read (ErrThin), as r
// does not say where the archive is; NewReaderDir and NewReaderFS say it.
func NewReader(r io.ReaderAt, size int64) (*Reader, error) {
	ar := new(Reader)
	if err := ar.init(r, size); err != nil {
		return nil, err
	}
	return ar, nil
}

// A ReadCloser is a Reader over an archive file that OpenReader opened.
// Members' data can be read until Close.
type ReadCloser struct {
	Reader
	f *os.File
}

// OpenReader opens the archive file name and reads its headers, as
// NewReader does. The members of a thin archive are read from the files
// they name, relative to the archive's directory, as NewReaderDir reads
// them.
func OpenReader(name string) (*ReadCloser, error) {
	dir, err := filepath.Abs(filepath.Dir(name))
	if err != nil {
		return nil, err
	}
	f, size, err := imgfmt.OpenFile(name)
	if err != nil {
		return nil, err
	}
	rc := &ReadCloser{f: f}
	if err := rc.init(f, size); err != nil {
		f.Close()
		return nil, err
	}
	rc.openMember = dirOpener(dir)
	return rc, nil
}

// Close closes the archive file and the member files of a thin archive
// that Section opened.
func (rc *ReadCloser) Close() error {
	err := rc.Reader.Close()
	if ferr := rc.f.Close(); ferr != nil {
		err = ferr
	}
	return err
}

// init reads the headers of the archive of size bytes in r into ar.
func (ar *Reader) init(r io.ReaderAt, size int64) error {
	ar.r, ar.size = r, size
	return ar.parse()
}

// errorf returns the *imgfmt.FormatError, wrapping sentinel, of the
// structure at byte off whose header field (as ar(5) names it: ar_name,
// ar_size, ar_fmag; "" for none) is malformed. Its message ends with the
// byte, as this package's errors always have.
func (ar *Reader) errorf(off int64, field string, sentinel error, format string, args ...any) error {
	return &imgfmt.FormatError{Format: "ar", Off: off, Field: field, Msg: fmt.Sprintf(format, args...) + fmt.Sprintf(" at byte %#x", off), Err: sentinel}
}

// parse reads the magic and every member header, keeping the members, the
// long-name table and the symbol index, which it parses last, once every
// member is known.
func (ar *Reader) parse() error {
	if err := ar.parseMagic(); err != nil {
		return err
	}
	var st symtabRef
	off := int64(magicLen)
	first := true
	for off < ar.size {
		// A lone "\n" after the last member is padding some writers leave.
		if ar.trailingNewline(off) {
			break
		}
		m, err := ar.parseHeader(off)
		if err != nil {
			return err
		}
		if err := ar.classifyMember(&m, first, &st); err != nil {
			return err
		}
		first = false
		if err := ar.checkExtent(&m); err != nil {
			return err
		}
		if !m.special {
			if err := ar.keepMember(&m); err != nil {
				return err
			}
		}
		off = m.next(ar.thin)
	}
	if st.data != nil {
		if err := ar.parseSymtab(st.name, st.data, st.off); err != nil {
			return err
		}
	}
	return nil
}

// parsedHeader is one member header as parse reads it, with the name and data
// extent it resolves from the header and the long-name tables.
type parsedHeader struct {
	off       int64  // the header's offset
	h         header // the header
	rawName   string // the ar_name field
	name      string // the member's name, resolved once classifyMember has run
	dataOff   int64  // the data's offset
	size      int64  // the data's size in bytes
	special   bool   // a symbol index or long-name table, not a member
	inArchive bool   // the member's data follows its header
}

// next returns the offset of the header after m: after its data, or for a
// thin archive's external member right after its header, padded to an even
// offset.
func (m *parsedHeader) next(thin bool) int64 {
	next := m.dataOff + m.size
	if thin && !m.special && !m.inArchive {
		next = m.dataOff
	}
	return next + pad2(next)
}

// symtabRef is the symbol index parse keeps for parseSymtab: its member
// name, its bytes and their offset.
type symtabRef struct {
	name string
	data []byte
	off  int64
}

// parseMagic checks the archive's magic string and notes a thin archive.
func (ar *Reader) parseMagic() error {
	var m [magicLen]byte
	if ar.size < magicLen {
		return ar.errorf(0, "", ErrFormat, "file of %d bytes is too short", ar.size)
	}
	if _, err := ar.r.ReadAt(m[:], 0); err != nil {
		return fmt.Errorf("ar: reading magic: %w", err)
	}
	switch string(m[:]) {
	case magic:
	case thinMagic:
		ar.thin = true
	default:
		return ar.errorf(0, "", ErrFormat, "bad magic %q", m[:])
	}
	return nil
}

// trailingNewline reports whether the archive's last byte is at off and is
// a "\n".
func (ar *Reader) trailingNewline(off int64) bool {
	if ar.size-off != 1 {
		return false
	}
	var b [1]byte
	_, err := ar.r.ReadAt(b[:], off)
	return err == nil && b[0] == '\n'
}

// parseHeader reads the member header at off and its terminator and size
// fields.
func (ar *Reader) parseHeader(off int64) (parsedHeader, error) {
	if ar.size-off < headerLen {
		return parsedHeader{}, ar.errorf(off, "", ErrTruncated, "member header of %d bytes", ar.size-off)
	}
	m := parsedHeader{off: off, dataOff: off + headerLen, inArchive: true}
	if _, err := ar.r.ReadAt(m.h[:], off); err != nil {
		return parsedHeader{}, fmt.Errorf("ar: reading header at byte %#x: %w", off, err)
	}
	if string(m.h.arFmag()) != fmag {
		return parsedHeader{}, ar.errorf(off, "ar_fmag", ErrHeader, "bad header terminator %q", m.h.arFmag())
	}
	size, ok := parseNum(m.h.arSize(), 10)
	if !ok {
		return parsedHeader{}, ar.errorf(off+48, "ar_size", ErrHeader, "bad size field %q", m.h.arSize())
	}
	m.size = size
	m.rawName = string(m.h.arName())
	m.name = strings.TrimRight(m.rawName, " ")
	return m, nil
}

// isBSDSymdef reports whether name is one of the BSD symbol index names.
func isBSDSymdef(name string) bool {
	return name == bsdSymdefName || name == bsdSymdefSorted || name == bsdSymdef64Name
}

// classifyMember tells a symbol index or long-name table (loaded into st and
// ar.strtab) from a member, resolves the member's name, and notes the
// format that the special members and long names show. first tells
// whether m is the archive's first member, the only place a symbol index
// is read.
func (ar *Reader) classifyMember(m *parsedHeader, first bool, st *symtabRef) error {
	name := m.name
	switch {
	case name == gnuSymtabName || name == gnuSym64Name:
		m.special = true
		// GNU ar reads an index only at the start; later ones are ignored.
		if first {
			if err := ar.loadSymtab(m, st); err != nil {
				return err
			}
			ar.format = FormatGNU
		}
	case name == gnuStrtabName:
		m.special = true
		b, err := ar.readSpecial(m.off, m.dataOff, m.size, "long-name table")
		if err != nil {
			return err
		}
		ar.strtab = b
		ar.format = FormatGNU
	case strings.HasPrefix(name, bsdLongPrefix):
		return ar.bsdLongName(m, first, st)
	case first && isBSDSymdef(name):
		m.special = true
		if err := ar.loadSymtab(m, st); err != nil {
			return err
		}
		ar.format = FormatBSD
	case len(name) > 1 && name[0] == '/' && name[1] >= '0' && name[1] <= '9':
		return ar.gnuLongName(m)
	default:
		// A short GNU name ends at its first '/', as GNU ar reads it
		// (llvm-ar only drops a trailing '/'); BSD short names have
		// none and are space padded.
		if i := strings.IndexByte(name, '/'); i > 0 {
			m.name = name[:i]
		}
		if ar.thin {
			m.inArchive = false
		}
	}
	return nil
}

// loadSymtab keeps the symbol index that is m's data in st.
func (ar *Reader) loadSymtab(m *parsedHeader, st *symtabRef) error {
	b, err := ar.readSpecial(m.off, m.dataOff, m.size, "symbol index")
	if err != nil {
		return err
	}
	st.data, st.name, st.off = b, m.name, m.dataOff
	return nil
}

// bsdLongName reads the BSD long name ("#1/len") that starts m's data and
// moves m's data past it; a first member so named a symbol index is loaded
// into st.
func (ar *Reader) bsdLongName(m *parsedHeader, first bool, st *symtabRef) error {
	n, ok := parseNum([]byte(m.name[len(bsdLongPrefix):]), 10)
	if !ok || n > m.size || n > 4096 {
		return ar.errorf(m.off, "ar_name", ErrName, "bad BSD name length %q", m.name)
	}
	nb := make([]byte, n)
	if n > ar.size-m.dataOff {
		return ar.errorf(m.dataOff, "", ErrTruncated, "BSD long name of %d bytes", n)
	}
	if _, err := ar.r.ReadAt(nb, m.dataOff); err != nil {
		return ar.errorf(m.dataOff, "", ErrTruncated, "BSD long name: %v", err)
	}
	m.name = string(bytes.TrimRight(nb, "\x00"))
	m.dataOff += n
	m.size -= n
	ar.format = FormatBSD
	if first && isBSDSymdef(m.name) {
		m.special = true
		if err := ar.loadSymtab(m, st); err != nil {
			return err
		}
	}
	return nil
}

// gnuLongName resolves the GNU long name "/offset", an offset into the "//"
// table. In thin archives byte 15 may hold a stray '/' (see DETAILS.md).
func (ar *Reader) gnuLongName(m *parsedHeader) error {
	digits := strings.TrimRight(strings.TrimRight(m.rawName, " /"), " ")
	if ar.thin && strings.Contains(digits, ":") {
		// GNU ar stores a member of a regular archive added to a thin
		// one as "/name:offset", the offset of the member's header in
		// the archive file that the long name names; llvm-ar 14 refuses
		// such archives, and so does this Reader.
		return ar.errorf(m.off, "ar_name", ErrName, "nested archive member %q (a member of another archive, as GNU ar's T stores one) is not supported", m.name)
	}
	v, ok := parseNum([]byte(digits[1:]), 10)
	if !ok {
		return ar.errorf(m.off, "ar_name", ErrName, "bad long-name reference %q", m.name)
	}
	if ar.strtab == nil || v >= int64(len(ar.strtab)) {
		return ar.errorf(m.off, "ar_name", ErrName, "long-name reference %q outside the long-name table", m.name)
	}
	s := ar.strtab[v:]
	end := bytes.IndexByte(s, '\n')
	if end < 0 {
		end = len(s)
	}
	m.name = strings.TrimSuffix(string(s[:end]), "/")
	if ar.thin {
		m.inArchive = false
	}
	return nil
}

// checkExtent checks that m's data lies within the archive; a thin
// archive's external member is exempt, its header recording the size of
// the external file.
func (ar *Reader) checkExtent(m *parsedHeader) error {
	if !m.special && ar.thin && !m.inArchive {
		return nil
	}
	if m.size > ar.size-m.dataOff {
		return ar.errorf(m.off, "", ErrTruncated, "member %q of %d bytes", m.name, m.size)
	}
	return nil
}

// keepMember parses m's date, uid, gid and mode fields and appends m to
// ar.members.
func (ar *Reader) keepMember(m *parsedHeader) error {
	mh := Member{HeaderOffset: m.off, DataOffset: m.dataOff}
	if ar.thin && !m.inArchive {
		mh.DataOffset = -1
	}
	mh.Name = m.name
	mh.Size = m.size
	h := &m.h
	date, ok1 := parseNum(h.arDate(), 10)
	uid, ok2 := parseNum(h.arUID(), 10)
	gid, ok3 := parseNum(h.arGID(), 10)
	mode, ok4 := parseNum(h.arMode(), 8)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return ar.errorf(m.off+16, "", ErrHeader, "bad date, uid, gid or mode field in header of %q", m.name)
	}
	mh.ModTime = time.Unix(date, 0).UTC()
	mh.Uid, mh.Gid, mh.Mode = int(uid), int(gid), mode
	copy(mh.raw[:], h.meta())
	ar.members = append(ar.members, mh)
	return nil
}

// readSpecial loads the size bytes at dataOff of the special member (what:
// a symbol index or the long-name table) whose header is at off, bounded by
// maxSpecial and by the end of the archive.
func (ar *Reader) readSpecial(off, dataOff, size int64, what string) ([]byte, error) {
	if size > maxSpecial || size > ar.size-dataOff {
		return nil, ar.errorf(off, "", ErrTruncated, "%s of %d bytes", what, size)
	}
	b := make([]byte, size)
	if _, err := ar.r.ReadAt(b, dataOff); err != nil {
		return nil, ar.errorf(dataOff, "", ErrTruncated, "%s: %v", what, err)
	}
	return b, nil
}

// parseSymtab parses the symbol index b, the data of the member name at
// offset base, in the GNU or the BSD layout that name tells, and gives the
// archive its symbols and each member its own.
func (ar *Reader) parseSymtab(name string, b []byte, base int64) error {
	var x symIndex
	var err error
	switch name {
	case gnuSymtabName, gnuSym64Name:
		x, err = ar.parseGNUSymtab(name, b, base)
	default: // BSD ranlib
		x, err = ar.parseBSDSymtab(name, b, base)
	}
	if err != nil {
		return err
	}
	ar.attachSymbols(x)
	return nil
}

// symIndex is a parsed symbol index: each symbol's member offset and the
// offset of its name in strs.
type symIndex struct {
	offs []int64
	strs []byte
	strx []int64
}

// symtabError is the ErrSymtab error for the byte at of the symbol index
// at offset base.
func (ar *Reader) symtabError(base, at int64, what string) error {
	return ar.errorf(base+at, "", ErrSymtab, "%s", what)
}

// parseGNUSymtab parses a GNU symbol index ("/" or "/SYM64/"): a
// big-endian count, the offsets, then the NUL-terminated names.
func (ar *Reader) parseGNUSymtab(name string, b []byte, base int64) (symIndex, error) {
	bad := func(at int64, what string) (symIndex, error) {
		return symIndex{}, ar.symtabError(base, at, what)
	}
	var x symIndex
	w := int64(4)
	ar.index = IndexGNU
	if name == gnuSym64Name {
		w = 8
		ar.index = IndexGNU64
	}
	if int64(len(b)) < w {
		return bad(0, "too short for the symbol count")
	}
	var n uint64
	if w == 4 {
		n = uint64(binary.BigEndian.Uint32(b))
	} else {
		n = binary.BigEndian.Uint64(b)
	}
	if n > uint64(int64(len(b))-w)/uint64(w) {
		return bad(0, fmt.Sprintf("symbol count %d larger than the index", n))
	}
	x.offs = make([]int64, n)
	for i := range x.offs {
		p := b[w+int64(i)*w:]
		if w == 4 {
			x.offs[i] = int64(binary.BigEndian.Uint32(p))
		} else {
			v := binary.BigEndian.Uint64(p)
			if v > 1<<62 {
				return bad(w+int64(i)*w, "offset out of range")
			}
			x.offs[i] = int64(v)
		}
	}
	x.strs = b[w+int64(n)*w:]
	// Names are consecutive NUL-terminated strings.
	pos := int64(0)
	for i := range x.offs {
		if pos >= int64(len(x.strs)) {
			return bad(w+int64(n)*w+pos, fmt.Sprintf("symbol name %d of %d missing", i, n))
		}
		x.strx = append(x.strx, pos)
		e := bytes.IndexByte(x.strs[pos:], 0)
		if e < 0 {
			e = len(x.strs) - int(pos)
		}
		pos += int64(e) + 1
	}
	return x, nil
}

// parseBSDSymtab parses a BSD ranlib index ("__.SYMDEF" and its sorted
// and 64-bit forms): the little-endian size of the ranlib array, its
// (name offset, member offset) pairs, then the string table's size and
// the string table.
func (ar *Reader) parseBSDSymtab(name string, b []byte, base int64) (symIndex, error) {
	bad := func(at int64, what string) (symIndex, error) {
		return symIndex{}, ar.symtabError(base, at, what)
	}
	var x symIndex
	w := int64(4)
	ar.index = IndexBSD
	if name == bsdSymdef64Name {
		w = 8
		ar.index = IndexBSD64
	}
	get := func(p []byte) uint64 {
		if w == 4 {
			return uint64(binary.LittleEndian.Uint32(p))
		}
		return binary.LittleEndian.Uint64(p)
	}
	if int64(len(b)) < w {
		return bad(0, "too short for the ranlib size")
	}
	rsize := get(b)
	if rsize > uint64(int64(len(b))-w) || rsize%uint64(2*w) != 0 {
		return bad(0, fmt.Sprintf("ranlib size %d does not fit", rsize))
	}
	n := int64(rsize) / (2 * w)
	rest := b[w+int64(rsize):]
	if int64(len(rest)) < w {
		return bad(w+int64(rsize), "too short for the string table size")
	}
	ssize := get(rest)
	if ssize > uint64(int64(len(rest))-w) {
		return bad(w+int64(rsize), fmt.Sprintf("string table size %d does not fit", ssize))
	}
	x.strs = rest[w : w+int64(ssize)]
	x.offs = make([]int64, n)
	x.strx = make([]int64, n)
	for i := int64(0); i < n; i++ {
		p := b[w+i*2*w:]
		sx, o := get(p), get(p[w:])
		if sx >= uint64(len(x.strs)) {
			return bad(w+i*2*w, fmt.Sprintf("symbol name offset %d outside the string table", sx))
		}
		if o > 1<<62 {
			return bad(w+i*2*w+w, "offset out of range")
		}
		x.strx[i], x.offs[i] = int64(sx), int64(o)
	}
	return x, nil
}

// attachSymbols sets ar.symbols from x, each with the index of the member
// whose header is at its offset (-1 for none), and appends each name to
// that member's Symbols.
func (ar *Reader) attachSymbols(x symIndex) {
	byOff := make(map[int64]int, len(ar.members))
	for i := range ar.members {
		byOff[ar.members[i].HeaderOffset] = i
	}
	ar.symbols = make([]Symbol, len(x.offs))
	for i := range x.offs {
		s := x.strs[x.strx[i]:]
		if e := bytes.IndexByte(s, 0); e >= 0 {
			s = s[:e]
		}
		mi, ok := byOff[x.offs[i]]
		if !ok {
			mi = -1
		}
		ar.symbols[i] = Symbol{Name: string(s), Offset: x.offs[i], Member: mi}
		if mi >= 0 {
			ar.members[mi].Symbols = append(ar.members[mi].Symbols, string(s))
		}
	}
}

// Members returns the archive's members in archive order, without the
// symbol index and long-name table. The slice is the Reader's own.
func (ar *Reader) Members() []Member { return ar.members }

// Symbols returns the symbol index entries in index order.
func (ar *Reader) Symbols() []Symbol { return ar.symbols }

// Index tells which symbol index the archive has.
func (ar *Reader) Index() IndexKind { return ar.index }

// Thin reports whether the archive is a GNU thin archive.
func (ar *Reader) Thin() bool { return ar.thin }

// Format reports the archive's layout: FormatBSD if it has BSD names or a
// __.SYMDEF index, else FormatGNU.
func (ar *Reader) Format() Format { return ar.format }

// Section returns a reader over member i's data. For a thin archive it
// reads the member's file, which must be a regular file of the header's
// size (else the error wraps ErrThinMember); the file stays open until
// Close. A Reader from NewReader cannot find it and returns an error
// wrapping ErrThin.
func (ar *Reader) Section(i int) (*io.SectionReader, error) {
	if i < 0 || i >= len(ar.members) {
		return nil, fmt.Errorf("ar: member %d out of range", i)
	}
	m := &ar.members[i]
	if m.DataOffset < 0 {
		return ar.thinSection(i)
	}
	return io.NewSectionReader(ar.r, m.DataOffset, m.Size), nil
}

// String formats an IndexKind.
func (k IndexKind) String() string {
	switch k {
	case IndexNone:
		return "none"
	case IndexGNU:
		return "/"
	case IndexGNU64:
		return "/SYM64/"
	case IndexBSD:
		return "__.SYMDEF"
	case IndexBSD64:
		return "__.SYMDEF_64"
	}
	return "IndexKind(" + strconv.Itoa(int(k)) + ")"
}
