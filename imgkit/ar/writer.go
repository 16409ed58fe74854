package ar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Format selects an archive layout.
type Format int

// Archive layouts.
const (
	// FormatGNU is the System V / GNU layout: names end in '/', long names
	// live in a "//" member, the symbol index is "/" (or "/SYM64/").
	FormatGNU Format = iota
	// FormatBSD is the 4.4BSD layout as llvm-ar --format=bsd writes it:
	// every name as "#1/len" ahead of the data, the index as "__.SYMDEF".
	FormatBSD
)

// String returns "gnu" or "bsd".
func (f Format) String() string {
	if f == FormatBSD {
		return "bsd"
	}
	return "gnu"
}

// Compat selects whose bytes to match where GNU ar and llvm-ar disagree
// (DETAILS.md lists each difference).
type Compat int

// Compatibility targets.
const (
	CompatGNU  Compat = iota // GNU binutils ar (the default)
	CompatLLVM               // llvm-ar
)

// Options control how an archive is laid out, and how a Writer spools it.
// The zero value writes what GNU "ar rcsD" writes.
type Options struct {
	Format Format
	Compat Compat
	// Thin writes a GNU thin archive ("!<thin>\n"): headers and the index
	// only; each member's Name is the path of its file relative to the
	// archive's directory.
	Thin bool
	// NoIndex leaves the symbol index out (ar S).
	NoIndex bool
	// Sym64Threshold is the member offset from which the GNU index uses
	// 64-bit fields ("/SYM64/"); 0 means 1<<32. With CompatGNU the test is
	// GNU ar's (an indexed member starting at or beyond it), with
	// CompatLLVM llvm-ar's (the last member starting at or beyond it, as
	// llvm-ar's SYM64_THRESHOLD environment variable sets).
	Sym64Threshold int64
	// IndexTime is the date of the symbol index header; the zero value
	// writes 0, as "ar D" does.
	IndexTime time.Time
	// SpoolMemory is how many bytes of member data a Writer keeps in
	// memory before it moves them to a temporary file; 0 (or less) means
	// 32 MiB. A Plan reads its members where they are and ignores it.
	SpoolMemory int64
}

// defaultSpoolMemory is the SpoolMemory that the zero Options mean.
const defaultSpoolMemory = 32 << 20

// An Entry is a member to be written by a Plan: its header and where its
// bytes come from.
type Entry struct {
	Header
	// Data holds the member's Size bytes. It is read once for the symbols
	// (ELF section headers and symbol table only) and once to copy the
	// bytes. For a thin archive it may be nil: then Symbols must be given or
	// the member gets no index entries.
	Data io.ReaderAt
	// Symbols, when not nil, are the member's index entries and Data is not
	// scanned for them.
	Symbols []string
	// IsObject reports, with Symbols, whether the member counts as an
	// object (an archive with an object and no symbols still gets an empty
	// index).
	IsObject bool
}

// A Plan is an archive laid out in full before any byte is written: symbol
// index, long-name table and the offset of every member. Because both GNU
// and BSD layouts put the index first, and the index holds member offsets,
// nothing can be written before every member's size and symbols are known;
// a Plan therefore takes members whose data can be read twice (io.ReaderAt)
// and then streams the archive in one pass (WriteTo), or writes it at fixed
// offsets (WriteAtTo) into an image of Size bytes.
type Plan struct {
	opts    Options
	entries []Entry
	head    []byte // magic, index and long-name table
	hdrs    [][]byte
	offs    []int64 // header offsets
	size    int64
}

// NewPlan lays out entries (nil opts: what GNU "ar rcsD" writes). It reads
// the symbols of each entry without Symbols from its Data. The Plan keeps a
// copy of entries, not the slice, and reads each Data again when written.
func NewPlan(entries []Entry, opts *Options) (*Plan, error) {
	p := &Plan{entries: append([]Entry(nil), entries...)}
	if opts != nil {
		p.opts = *opts
	}
	if p.opts.Thin && p.opts.Format == FormatBSD {
		return nil, errors.New("ar: Options.Thin with FormatBSD: thin archives exist only in the GNU layout")
	}
	hasObject := false
	for i := range p.entries {
		e := &p.entries[i]
		if e.Size < 0 {
			return nil, fmt.Errorf("%w: member %q: negative Size %d", ErrHeader, e.Name, e.Size)
		}
		if e.Symbols == nil && e.Data != nil && !p.opts.NoIndex {
			e.Symbols, e.IsObject = elfSymbols(e.Data, e.Size)
			if e.Symbols == nil {
				e.Symbols = []string{}
			}
		}
		if e.IsObject {
			hasObject = true
		}
		if e.Name == "" {
			return nil, fmt.Errorf("%w: member %d: empty Name", ErrName, i)
		}
		if strings.IndexByte(e.Name, 0) >= 0 {
			return nil, fmt.Errorf("%w: %q holds a NUL byte", ErrName, e.Name)
		}
	}
	if p.opts.Format == FormatBSD {
		return p, p.layoutBSD(hasObject)
	}
	return p, p.layoutGNU(hasObject)
}

// Size returns the archive's size in bytes.
func (p *Plan) Size() int64 { return p.size }

// Offsets returns the header offset of each entry, the offsets the symbol
// index refers to. The slice is the Plan's own.
func (p *Plan) Offsets() []int64 { return p.offs }

// memberMeta fills a header's date..mode fields from h, or copies the bytes
// h was read with while its fields still hold the values read.
func (p *Plan) memberMeta(hd *header, h *Header) error {
	if h.keepRaw() {
		copy(hd.meta(), h.raw[:])
		return nil
	}
	if h.ModTime.IsZero() {
		fill(hd.arDate(), "0")
	} else if !fillDec(hd.arDate(), h.ModTime.Unix()) {
		return rangeError(h.Name, "ModTime", h.ModTime.Unix(), "ar_date", 10, dateLen)
	}
	if !fillDec(hd.arUID(), int64(h.Uid)) {
		return rangeError(h.Name, "Uid", int64(h.Uid), "ar_uid", 10, uidLen)
	}
	if !fillDec(hd.arGID(), int64(h.Gid)) {
		return rangeError(h.Name, "Gid", int64(h.Gid), "ar_gid", 10, gidLen)
	}
	if !fillOct(hd.arMode(), h.Mode) {
		return rangeError(h.Name, "Mode", h.Mode, "ar_mode", 8, modeLen)
	}
	return nil
}

// rangeError says that the header field (a Header field) of member name
// cannot hold v: it is negative, or wider than the width of the ar(5) field
// in digits of base.
func rangeError(name, field string, v int64, arField string, base, width int) error {
	if v < 0 {
		return fmt.Errorf("%w: member %q: %s %d is negative", ErrFieldRange, name, field, v)
	}
	if base == 8 {
		return fmt.Errorf("%w: member %q: %s %#o does not fit in %s (%d octal digits)", ErrFieldRange, name, field, v, arField, width)
	}
	return fmt.Errorf("%w: member %q: %s %d does not fit in %s (%d digits)", ErrFieldRange, name, field, v, arField, width)
}

// indexMeta fills the date..mode fields of a symbol index header: the date
// from Options.IndexTime (0 when zero, as "ar D" writes), uid, gid and mode 0.
func (p *Plan) indexMeta(hd *header) {
	date := "0"
	if !p.opts.IndexTime.IsZero() {
		date = fmt.Sprint(p.opts.IndexTime.Unix())
	}
	fill(hd.arDate(), date)
	fill(hd.arUID(), "0")
	fill(hd.arGID(), "0")
	fill(hd.arMode(), "0")
}

// symbolNames returns the names of every entry's symbols, in member order,
// each NUL-terminated, as both index formats store them, and their count.
func (p *Plan) symbolNames() ([]byte, int) {
	var names []byte
	n := 0
	for i := range p.entries {
		for _, s := range p.entries[i].Symbols {
			names = append(names, s...)
			names = append(names, 0)
			n++
		}
	}
	return names, n
}

// layoutGNU lays the archive out as GNU ar (or llvm-ar) does.
func (p *Plan) layoutGNU(hasObject bool) error {
	gnu := p.opts.Compat == CompatGNU
	strtab, nameRef := p.gnuLongNames(gnu)
	if err := p.gnuMemberHeaders(gnu, nameRef); err != nil {
		return err
	}
	idx := gnuIndex{gnu: gnu}
	idx.names, idx.nsyms = p.symbolNames()
	writeIndex := !p.opts.NoIndex && hasObject
	if writeIndex && !gnu && idx.nsyms == 0 {
		idx.names = append(idx.names, "\x00\x00\x00"...) // llvm-ar's empty table
	}
	strtabHdr := int64(0)
	if len(strtab) > 0 {
		strtabHdr = headerLen + int64(len(strtab))
	}
	use64 := false
	if writeIndex {
		p.placeMembers(headerLen + idx.len32() + strtabHdr)
		use64 = p.gnuNeeds64(gnu)
		if use64 {
			p.placeMembers(headerLen + idx.len64() + strtabHdr)
		}
	} else {
		p.placeMembers(strtabHdr)
	}
	var head bytes.Buffer
	if p.opts.Thin && (len(p.entries) > 0 || !gnu) {
		// GNU ar writes an empty thin archive with the regular magic.
		head.WriteString(thinMagic)
	} else {
		head.WriteString(magic)
	}
	if writeIndex {
		if err := p.writeGNUIndex(&head, idx, use64); err != nil {
			return err
		}
	}
	if len(strtab) > 0 {
		writeGNUStrtab(&head, strtab)
	}
	p.head = head.Bytes()
	return nil
}

// gnuLongNames builds the GNU long-name table ("//") and each member's
// ar_name reference: the name and its '/' when it fits in 15 bytes, else
// "/offset" into the table. llvm-ar (gnu false) shares one table entry
// among members of the same name; a thin archive puts every name in the
// table.
func (p *Plan) gnuLongNames(gnu bool) (strtab []byte, nameRef []string) {
	var b bytes.Buffer
	nameRef = make([]string, len(p.entries))
	seen := map[string]int{}
	for i := range p.entries {
		name := p.entries[i].Name
		if !p.opts.Thin && len(name) <= 15 {
			nameRef[i] = name + "/"
			continue
		}
		if !gnu && !p.opts.Thin {
			if o, ok := seen[name]; ok {
				nameRef[i] = fmt.Sprintf("/%d", o)
				continue
			}
			seen[name] = b.Len()
		}
		nameRef[i] = fmt.Sprintf("/%d", b.Len())
		b.WriteString(name)
		b.WriteString("/\n")
	}
	if b.Len()%2 == 1 {
		b.WriteByte('\n')
	}
	return b.Bytes(), nameRef
}

// gnuMemberHeaders fills p.hdrs with each member's GNU header, its ar_name
// holding nameRef[i].
func (p *Plan) gnuMemberHeaders(gnu bool, nameRef []string) error {
	p.hdrs = make([][]byte, len(p.entries))
	for i := range p.entries {
		e := &p.entries[i]
		hd := blankHeader()
		if gnu && p.opts.Thin && len(e.Name) >= 15 {
			// GNU ar first writes the base name with its '/' and then
			// overwrites bytes 0..14 with the long-name reference: a base
			// name of exactly 15 bytes leaves its '/' in byte 15.
			if b := baseName(e.Name); len(b) == 15 {
				hd[15] = '/'
			}
		}
		if len(nameRef[i]) > nameLen {
			return fmt.Errorf("%w: member %q: long-name table offset %s does not fit in ar_name", ErrFieldRange, e.Name, nameRef[i])
		}
		copy(hd.arName(), nameRef[i])
		if err := p.memberMeta(&hd, &e.Header); err != nil {
			return err
		}
		if !fillDec(hd.arSize(), e.Size) {
			return rangeError(e.Name, "Size", e.Size, "ar_size", 10, sizeLen)
		}
		copy(hd.arFmag(), fmag)
		p.hdrs[i] = hd[:]
	}
	return nil
}

// gnuIndex is the contents of a GNU symbol index: the symbol names, each
// NUL terminated, and their count. gnu tells GNU ar's padding of the 64-bit
// index from llvm-ar's.
type gnuIndex struct {
	names []byte
	nsyms int
	gnu   bool
}

// len32 returns the size of the 32-bit index ("/"): count, offsets and
// names, padded to an even size.
func (x gnuIndex) len32() int64 {
	n := 4 + 4*int64(x.nsyms) + int64(len(x.names))
	return n + pad2(n)
}

// len64 returns the size of the 64-bit index ("/SYM64/"), padded to a
// multiple of 8 bytes by GNU ar and to an even size by llvm-ar.
func (x gnuIndex) len64() int64 {
	n := 8 + 8*int64(x.nsyms) + int64(len(x.names))
	if x.gnu {
		return alignUp(n, 8)
	}
	return n + pad2(n)
}

// placeMembers sets each member's header offset and the archive size for
// members that follow the magic and metaLen bytes of index and long-name
// table.
func (p *Plan) placeMembers(metaLen int64) {
	off := int64(magicLen) + metaLen
	p.offs = make([]int64, len(p.entries))
	for i := range p.entries {
		p.offs[i] = off
		n := int64(headerLen)
		if !p.opts.Thin {
			n += p.entries[i].Size + pad2(p.entries[i].Size)
		}
		off += n
	}
	p.size = off
}

// gnuNeeds64 reports whether the members as placed need the 64-bit index:
// for GNU ar when a member with symbols starts at Options.Sym64Threshold
// (4 GiB by default) or later, for llvm-ar when the last member does.
func (p *Plan) gnuNeeds64(gnu bool) bool {
	threshold := p.opts.Sym64Threshold
	if threshold <= 0 {
		threshold = 1 << 32
	}
	use64 := false
	if gnu {
		for i := range p.entries {
			if len(p.entries[i].Symbols) > 0 && p.offs[i] >= threshold {
				use64 = true
			}
		}
	} else if len(p.offs) > 0 && p.offs[len(p.offs)-1] >= threshold {
		use64 = true
	}
	return use64
}

// writeGNUIndex writes the symbol index member to head: its header, the
// symbol count, each symbol's member offset (big-endian, 4 or 8 bytes as
// use64 says) and the names, padded with NULs.
func (p *Plan) writeGNUIndex(head *bytes.Buffer, idx gnuIndex, use64 bool) error {
	hd := blankHeader()
	ilen := idx.len32()
	w := 4
	if use64 {
		ilen = idx.len64()
		w = 8
		copy(hd.arName(), gnuSym64Name)
	} else {
		copy(hd.arName(), gnuSymtabName)
	}
	p.indexMeta(&hd)
	fillDec(hd.arSize(), ilen)
	copy(hd.arFmag(), fmag)
	head.Write(hd[:])
	start := head.Len()
	var b [8]byte
	put := func(v int64) {
		if w == 4 {
			putBE32(b[:], uint32(v))
		} else {
			putBE64(b[:], uint64(v))
		}
		head.Write(b[:w])
	}
	put(int64(idx.nsyms))
	for i := range p.entries {
		if !use64 && p.offs[i] > 0xffffffff && len(p.entries[i].Symbols) > 0 {
			return fmt.Errorf("%w: member %q at offset %#x", ErrTooBig, p.entries[i].Name, p.offs[i])
		}
		for range p.entries[i].Symbols {
			put(p.offs[i])
		}
	}
	head.Write(idx.names)
	for int64(head.Len()-start) < ilen {
		head.WriteByte(0)
	}
	return nil
}

// writeGNUStrtab writes the long-name table member ("//") to head.
func writeGNUStrtab(head *bytes.Buffer, strtab []byte) {
	hd := blankHeader()
	copy(hd.arName(), gnuStrtabName)
	fillDec(hd.arSize(), int64(len(strtab)))
	copy(hd.arFmag(), fmag)
	head.Write(hd[:])
	head.Write(strtab)
}

// layoutBSD lays the archive out as llvm-ar --format=bsd does.
func (p *Plan) layoutBSD(hasObject bool) error {
	strs, nsyms := p.symbolNames()
	writeIndex := !p.opts.NoIndex && hasObject
	if writeIndex && nsyms == 0 {
		strs = append(strs, "\x00\x00\x00"...) // llvm-ar's empty table
	}
	var idx []byte
	off := int64(magicLen)
	if writeIndex {
		n := alignUp(bsdIndexLen(nsyms, strs), 8)
		h, err := p.bsdHeader(off, bsdSymdefName, nil, n)
		if err != nil {
			return err
		}
		idx = h
		off += int64(len(h)) + n
	}
	if err := p.bsdMemberHeaders(off); err != nil {
		return err
	}
	var head bytes.Buffer
	head.WriteString(magic)
	if writeIndex {
		if err := p.writeBSDIndex(&head, idx, strs, nsyms); err != nil {
			return err
		}
	}
	p.head = head.Bytes()
	return nil
}

// bsdIndexLen returns the size of a BSD symbol index (__.SYMDEF) of nsyms
// symbols whose names are strs, before its padding: the size of the
// ranlib array, the array of (name offset, member offset) pairs, the size
// of the names and the names.
func bsdIndexLen(nsyms int, strs []byte) int64 {
	return 4 + 8*int64(nsyms) + 4 + int64(len(strs))
}

// bsdHeader returns the BSD header, at pos, of a member of size data
// bytes: a header whose ar_name is "#1/len" and the name after it, padded
// with NULs so that the data starts at a multiple of 8 bytes. The date..mode
// fields come from h, or are the index's (indexMeta) when h is nil.
func (p *Plan) bsdHeader(pos int64, name string, h *Header, size int64) ([]byte, error) {
	after := pos + headerLen + int64(len(name))
	padded := int64(len(name)) + (alignUp(after, 8) - after)
	hd := blankHeader()
	fill(hd.arName(), bsdLongPrefix+fmt.Sprint(padded))
	if h == nil {
		p.indexMeta(&hd)
	} else if err := p.memberMeta(&hd, h); err != nil {
		return nil, err
	}
	if !fillDec(hd.arSize(), padded+size) {
		return nil, rangeError(name, "Size (with the name)", padded+size, "ar_size", 10, sizeLen)
	}
	copy(hd.arFmag(), fmag)
	out := make([]byte, 0, headerLen+padded)
	out = append(out, hd[:]...)
	out = append(out, name...)
	for int64(len(out)) < headerLen+padded {
		out = append(out, 0)
	}
	return out, nil
}

// bsdMemberHeaders fills p.hdrs with each member's BSD header, p.offs with
// its offset, the first at off, and p.size.
func (p *Plan) bsdMemberHeaders(off int64) error {
	p.hdrs = make([][]byte, len(p.entries))
	p.offs = make([]int64, len(p.entries))
	for i := range p.entries {
		e := &p.entries[i]
		h, err := p.bsdHeader(off, e.Name, &e.Header, e.Size)
		if err != nil {
			return err
		}
		p.hdrs[i] = h
		p.offs[i] = off
		off += int64(len(h)) + e.Size + pad2(e.Size)
	}
	p.size = off
	return nil
}

// writeBSDIndex writes the BSD symbol index to head: its header idx, the
// size of the ranlib array, a (name offset, member offset) pair for each
// symbol (little-endian, 4 bytes each), the size of the names and the
// names strs, padded with NULs to a multiple of 8 bytes.
func (p *Plan) writeBSDIndex(head *bytes.Buffer, idx, strs []byte, nsyms int) error {
	start := head.Len() + len(idx)
	head.Write(idx)
	var b [4]byte
	putLE32(b[:], uint32(8*nsyms))
	head.Write(b[:])
	sx := 0
	for i := range p.entries {
		if p.offs[i] > 0xffffffff && len(p.entries[i].Symbols) > 0 {
			return fmt.Errorf("%w: member %q at offset %#x", ErrTooBig, p.entries[i].Name, p.offs[i])
		}
		for _, s := range p.entries[i].Symbols {
			putLE32(b[:], uint32(sx))
			head.Write(b[:])
			putLE32(b[:], uint32(p.offs[i]))
			head.Write(b[:])
			sx += len(s) + 1
		}
	}
	putLE32(b[:], uint32(len(strs)))
	head.Write(b[:])
	head.Write(strs)
	want := start + int(alignUp(bsdIndexLen(nsyms, strs), 8))
	for head.Len() < want {
		head.WriteByte(0)
	}
	return nil
}

// WriteTo streams the archive to w in one pass: the head, then each member's
// header and data. It copies each member's data from its Data with
// io.Copy, so an *os.File destination can use copy_file_range.
func (p *Plan) WriteTo(w io.Writer) (int64, error) {
	var n int64
	write := func(b []byte) error {
		m, err := w.Write(b)
		n += int64(m)
		return err
	}
	if err := write(p.head); err != nil {
		return n, err
	}
	for i := range p.entries {
		e := &p.entries[i]
		if err := write(p.hdrs[i]); err != nil {
			return n, err
		}
		if p.opts.Thin {
			continue
		}
		if e.Size > 0 {
			m, err := io.Copy(w, io.NewSectionReader(e.Data, 0, e.Size))
			n += m
			if err != nil {
				return n, err
			}
			if m < e.Size {
				return n, fmt.Errorf("%w: %q: %d of %d bytes", ErrShortWrite, e.Name, m, e.Size)
			}
		}
		if e.Size%2 == 1 {
			if err := write([]byte{'\n'}); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// An Image is where WriteAtTo puts an archive: fixed-offset writes for the
// small parts and a bulk copy for member data. *bcache.Image satisfies it.
type Image interface {
	WriteAt(p []byte, off int64) (int, error)
	CopyFrom(off int64, r io.Reader, n int64) error
}

// WriteAtTo writes the archive into img at offsets 0..Size. Member data
// whose Data is an *os.File is handed to CopyFrom as that file positioned
// at 0, so the image's fastest bulk path applies; other sources go through
// an io.SectionReader.
func (p *Plan) WriteAtTo(img Image) error {
	if _, err := img.WriteAt(p.head, 0); err != nil {
		return err
	}
	nl := []byte{'\n'}
	var scratch []byte
	for i := range p.entries {
		e := &p.entries[i]
		off := p.offs[i]
		if _, err := img.WriteAt(p.hdrs[i], off); err != nil {
			return err
		}
		if p.opts.Thin {
			continue
		}
		off += int64(len(p.hdrs[i]))
		if e.Size > 0 && e.Size <= smallMember {
			// Small members: one read into a scratch buffer and one
			// WriteAt cost less than setting up the bulk path.
			if cap(scratch) < int(e.Size) {
				scratch = make([]byte, smallMember)
			}
			b := scratch[:e.Size]
			if n, err := e.Data.ReadAt(b, 0); n < len(b) {
				if err == nil || err == io.EOF {
					err = fmt.Errorf("%w: %d of %d bytes", ErrShortWrite, n, len(b))
				}
				return fmt.Errorf("ar: member %q: %w", e.Name, err)
			}
			if _, err := img.WriteAt(b, off); err != nil {
				return err
			}
		} else if e.Size > 0 {
			src, err := bulkSource(e.Data, e.Size)
			if err != nil {
				return fmt.Errorf("ar: member %q: %w", e.Name, err)
			}
			if err := img.CopyFrom(off, src, e.Size); err != nil {
				return fmt.Errorf("ar: member %q: %w", e.Name, err)
			}
		}
		if e.Size%2 == 1 {
			if _, err := img.WriteAt(nl, off+e.Size); err != nil {
				return err
			}
		}
	}
	return nil
}

// smallMember is the size up to which WriteAtTo copies a member through a
// scratch buffer rather than Image.CopyFrom (see BenchmarkRcsD500).
const smallMember = 64 << 10

// bulkSource returns a reader of the n bytes of data for Image.CopyFrom.
// When the bytes are (a section of) an *os.File it returns that file
// positioned at their start, so that CopyFrom can use its file-to-file path
// (copy_file_range); the other sources get an io.SectionReader.
func bulkSource(data io.ReaderAt, n int64) (io.Reader, error) {
	f, off := data, int64(0)
	if sr, ok := data.(*io.SectionReader); ok {
		var size int64
		f, off, size = sr.Outer()
		if size < n {
			return io.NewSectionReader(data, 0, n), nil
		}
	}
	if osf, ok := f.(*os.File); ok {
		if _, err := osf.Seek(off, io.SeekStart); err != nil {
			return nil, err
		}
		return osf, nil
	}
	return io.NewSectionReader(data, 0, n), nil
}

// baseName is the part of a slash-separated path after its last '/'.
func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
