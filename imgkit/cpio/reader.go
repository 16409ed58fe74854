package cpio

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// An Entry is one entry of an archive as read: its header, its format,
// where its header and data are, and which of the concatenated archives of
// the file holds it (0 for the first).
type Entry struct {
	Header
	Format       Format
	HeaderOffset int64
	DataOffset   int64
	Archive      int
	// Link is the target of a symbolic link (its data).
	Link string
	// dataOf, for a link of a hard-link set written without data, is the
	// index of the entry of the set that holds the data; else its own.
	dataOf int
}

// maxName bounds c_namesize: Linux's PATH_MAX, 4096 bytes with the NUL,
// is what the kernel unpacks; a larger name is refused before it is read.
const maxName = 4096

// A Reader reads an archive held in an io.ReaderAt. It is an io/fs.FS over
// the entries (see DETAILS.md for how names become paths); Entries gives
// them in archive order.
type Reader struct {
	r       io.ReaderAt
	size    int64
	entries []Entry
	root    *node
}

// NewReader reads the archive of size bytes in r: every header up front,
// each checked against the file's size before anything is read or
// allocated. Concatenated archives are read one after another, NULs
// between them skipped, as the Linux kernel unpacks an initramfs. Errors
// wrap ErrFormat and name the byte offset.
func NewReader(r io.ReaderAt, size int64) (*Reader, error) {
	rd := &Reader{r: r, size: size}
	if err := rd.init(); err != nil {
		return nil, err
	}
	return rd, nil
}

// A ReadCloser is a Reader of an archive file that OpenReader opened.
type ReadCloser struct {
	Reader
	imgfmt.ImageFile
}

// OpenReader opens the archive file name and reads it as NewReader does.
func OpenReader(name string) (*ReadCloser, error) {
	rc := new(ReadCloser)
	var err error
	if rc.ImageFile, err = imgfmt.OpenImage(name, func(r io.ReaderAt, size int64) error {
		rc.Reader = Reader{r: r, size: size}
		return rc.Reader.init()
	}); err != nil {
		return nil, err
	}
	return rc, nil
}

// Entries returns the entries in archive order, trailers included. The
// slice is the Reader's own.
func (rd *Reader) Entries() []Entry { return rd.entries }

// formatErr returns the *imgfmt.FormatError, wrapping ErrFormat, of a
// malformed archive at byte off, about the header field named field as
// cpio(5) names it ("" for none). Its message ends with the byte.
func formatErr(off int64, field, format string, args ...any) error {
	return &imgfmt.FormatError{Format: "cpio", Off: off, Field: field,
		Msg: fmt.Sprintf(format, args...) + fmt.Sprintf(" at byte %#x", off), Err: ErrFormat}
}

func (rd *Reader) init() error {
	off := int64(0)
	archive := 0
	sawTrailer := false
	for {
		next, ok, err := rd.skipNULs(off)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if sawTrailer && next%4 != 0 {
			return formatErr(next, "", "data after the trailer that does not start an archive at a 4-byte boundary")
		}
		off = next
		sawTrailer = false
		for !sawTrailer {
			e, end, err := rd.readEntry(off)
			if err != nil {
				return err
			}
			e.Archive = archive
			rd.entries = append(rd.entries, e)
			if e.Name == trailerName {
				sawTrailer = true
			}
			off = end
		}
		rd.linkSets(archive)
		archive++
	}
	if len(rd.entries) == 0 {
		return formatErr(0, "", "no cpio header (empty or all NULs)")
	}
	rd.buildTree()
	return nil
}

// skipNULs returns the offset of the first byte at or after off that is
// not NUL, and false when there is none.
func (rd *Reader) skipNULs(off int64) (int64, bool, error) {
	var buf [4096]byte
	for off < rd.size {
		n := int(min(int64(len(buf)), rd.size-off))
		if _, err := rd.r.ReadAt(buf[:n], off); err != nil && err != io.EOF {
			return 0, false, err
		}
		if i := bytes.IndexFunc(buf[:n], func(r rune) bool { return r != 0 }); i >= 0 {
			return off + int64(i), true, nil
		}
		off += int64(n)
	}
	return off, false, nil
}

// readEntry reads the entry whose header is at off and returns it with the
// offset after its data and padding.
func (rd *Reader) readEntry(off int64) (Entry, int64, error) {
	var magic [6]byte
	if off+6 > rd.size {
		// off may be past the end: the last entry's padding to 4 bytes
		// was cut off
		return Entry{}, 0, formatErr(min(off, rd.size), "", "archive truncated in a header (no TRAILER!!! entry)")
	}
	if _, err := rd.r.ReadAt(magic[:], off); err != nil {
		return Entry{}, 0, err
	}
	switch string(magic[:]) {
	case magicNewc, magicCRC:
		return rd.readNewc(off, string(magic[:]) == magicCRC)
	case magicODC:
		return rd.readODC(off)
	}
	if magic[0] == 0xc7 && magic[1] == 0x71 || magic[0] == 0x71 && magic[1] == 0xc7 {
		return Entry{}, 0, fmt.Errorf("%w: old binary cpio header (-H bin) at byte %#x", ErrUnsupportedFormat, off)
	}
	return Entry{}, 0, formatErr(off, "c_magic", "bad magic %q (want 070701, 070702 or 070707)", magic[:])
}

// field reads one numeric field of a header, naming it in errors.
type fieldReader struct {
	off  int64 // the header's offset
	hdr  []byte
	base uint64
	err  error
}

func (f *fieldReader) get(b []byte, name string) uint64 {
	if f.err != nil {
		return 0
	}
	v, ok := parseDigits(b, f.base)
	if !ok {
		f.err = formatErr(f.at(b), name, "%s %q is not a number", name, b)
	}
	return v
}

// at returns the byte offset in the archive of b, a field of the header.
func (f *fieldReader) at(b []byte) int64 { return f.off + int64(cap(f.hdr)-cap(b)) }

func (rd *Reader) readNewc(off int64, crc bool) (Entry, int64, error) {
	var h newcHeader
	if off+newcLen > rd.size {
		return Entry{}, 0, formatErr(off, "", "archive truncated in a header (%d of %d bytes)", rd.size-off, newcLen)
	}
	if _, err := rd.r.ReadAt(h[:], off); err != nil {
		return Entry{}, 0, err
	}
	f := &fieldReader{off: off, hdr: h[:], base: 16}
	e := Entry{Format: FormatNewc, HeaderOffset: off, dataOf: -1}
	if crc {
		e.Format = FormatCRC
	}
	e.Ino = f.get(h.cIno(), "c_ino")
	e.Mode = uint32(f.get(h.cMode(), "c_mode"))
	e.UID = uint32(f.get(h.cUID(), "c_uid"))
	e.GID = uint32(f.get(h.cGID(), "c_gid"))
	e.Nlink = uint32(f.get(h.cNlink(), "c_nlink"))
	e.Mtime = int64(f.get(h.cMtime(), "c_mtime"))
	e.Size = int64(f.get(h.cFilesize(), "c_filesize"))
	e.DevMajor = uint32(f.get(h.cDevmajor(), "c_devmajor"))
	e.DevMinor = uint32(f.get(h.cDevminor(), "c_devminor"))
	e.RdevMajor = uint32(f.get(h.cRdevmajor(), "c_rdevmajor"))
	e.RdevMinor = uint32(f.get(h.cRdevminor(), "c_rdevminor"))
	namesize := int64(f.get(h.cNamesize(), "c_namesize"))
	e.Check = uint32(f.get(h.cCheck(), "c_check"))
	if f.err != nil {
		return Entry{}, 0, f.err
	}
	name, err := rd.readName(f.at(h.cNamesize()), off+newcLen, namesize)
	if err != nil {
		return Entry{}, 0, err
	}
	e.Name = name
	e.DataOffset = off + newcLen + namesize
	e.DataOffset += pad4(e.DataOffset)
	end, err := rd.checkData(&e, 54)
	if err != nil {
		return Entry{}, 0, err
	}
	return e, end + pad4(end), nil
}

func (rd *Reader) readODC(off int64) (Entry, int64, error) {
	var h odcHeader
	if off+odcLen > rd.size {
		return Entry{}, 0, formatErr(off, "", "archive truncated in a header (%d of %d bytes)", rd.size-off, odcLen)
	}
	if _, err := rd.r.ReadAt(h[:], off); err != nil {
		return Entry{}, 0, err
	}
	f := &fieldReader{off: off, hdr: h[:], base: 8}
	e := Entry{Format: FormatODC, HeaderOffset: off, dataOf: -1}
	dev := f.get(h.cDev(), "c_dev")
	e.DevMajor, e.DevMinor = devMajor(dev), devMinor(dev)
	e.Ino = f.get(h.cIno(), "c_ino")
	e.Mode = uint32(f.get(h.cMode(), "c_mode"))
	e.UID = uint32(f.get(h.cUID(), "c_uid"))
	e.GID = uint32(f.get(h.cGID(), "c_gid"))
	e.Nlink = uint32(f.get(h.cNlink(), "c_nlink"))
	rdev := f.get(h.cRdev(), "c_rdev")
	e.RdevMajor, e.RdevMinor = devMajor(rdev), devMinor(rdev)
	e.Mtime = int64(f.get(h.cMtime(), "c_mtime"))
	namesize := int64(f.get(h.cNamesize(), "c_namesize"))
	e.Size = int64(f.get(h.cFilesize(), "c_filesize"))
	if f.err != nil {
		return Entry{}, 0, f.err
	}
	name, err := rd.readName(f.at(h.cNamesize()), off+odcLen, namesize)
	if err != nil {
		return Entry{}, 0, err
	}
	e.Name = name
	e.DataOffset = off + odcLen + namesize
	end, err := rd.checkData(&e, 65)
	return e, end, err
}

// readName reads the NUL-terminated name of namesize bytes at at;
// sizeAt is the offset of the header's c_namesize, for the error.
func (rd *Reader) readName(sizeAt, at, namesize int64) (string, error) {
	switch {
	case namesize < 1:
		return "", formatErr(sizeAt, "c_namesize", "c_namesize is 0")
	case namesize > maxName:
		return "", formatErr(sizeAt, "c_namesize", "c_namesize %d is longer than %d (PATH_MAX)", namesize, maxName)
	case namesize > rd.size-at:
		return "", formatErr(sizeAt, "c_namesize", "c_namesize %d runs past the end of the file (%d bytes)", namesize, rd.size)
	}
	b := make([]byte, namesize)
	if _, err := rd.r.ReadAt(b, at); err != nil && err != io.EOF {
		return "", err
	}
	if b[namesize-1] != 0 || bytes.IndexByte(b[:namesize-1], 0) >= 0 {
		return "", formatErr(at, "c_name", "name of c_namesize %d is not a string ending in its one NUL", namesize)
	}
	return string(b[:namesize-1]), nil
}

// checkData checks that the entry's data lies inside the file, reads a
// symbolic link's target and returns the offset after the data. sizeAt is
// the offset of c_filesize in the header, for the error.
func (rd *Reader) checkData(e *Entry, sizeAt int64) (int64, error) {
	if e.Size > rd.size-e.DataOffset {
		return 0, formatErr(e.HeaderOffset+sizeAt, "c_filesize", "c_filesize %d of %q runs past the end of the file (%d bytes)", e.Size, e.Name, rd.size)
	}
	if e.Mode&ModeType == ModeSymlink {
		if e.Size > maxName {
			return 0, formatErr(e.HeaderOffset+sizeAt, "c_filesize", "symbolic link %q of %d bytes (more than PATH_MAX)", e.Name, e.Size)
		}
		b := make([]byte, e.Size)
		if _, err := rd.r.ReadAt(b, e.DataOffset); err != nil && err != io.EOF {
			return 0, err
		}
		e.Link = string(b)
	}
	return e.DataOffset + e.Size, nil
}

// linkSets points the links of each hard-link set of archive that were
// written without data (newc, crc) at the entry of the set that has it.
func (rd *Reader) linkSets(archive int) {
	holder := map[linkKey]int{}
	for i := range rd.entries {
		e := &rd.entries[i]
		e.dataOf = i
		if e.Archive != archive || e.Format == FormatODC || e.Mode&ModeType != ModeRegular || e.Nlink < 2 {
			continue
		}
		if _, ok := holder[keyOf(&e.Header)]; !ok || e.Size > 0 {
			holder[keyOf(&e.Header)] = i
		}
	}
	for i := range rd.entries {
		e := &rd.entries[i]
		if e.Archive != archive || e.Format == FormatODC || e.Mode&ModeType != ModeRegular || e.Nlink < 2 || e.Size > 0 {
			continue
		}
		e.dataOf = holder[keyOf(&e.Header)]
	}
}

// Section returns a reader of the data of entry i: for a link written
// without data, that of the link of its set that holds it.
func (rd *Reader) Section(i int) *io.SectionReader {
	e := &rd.entries[rd.entries[i].dataOf]
	return io.NewSectionReader(rd.r, e.DataOffset, e.Size)
}

// fsName returns the path an entry name has in the FS, or "" when it has
// none: leading "/" and "./" elements removed, "." for the root.
func fsName(name string) string {
	p := strings.TrimLeft(name, "/")
	for strings.HasPrefix(p, "./") {
		p = strings.TrimLeft(p[2:], "/")
	}
	p = strings.TrimSuffix(p, "/")
	if p == "" || p == "." {
		return "."
	}
	if !fs.ValidPath(p) {
		return ""
	}
	return p
}

// A node is a file or directory of the FS: an entry, or a directory that
// only the names of others imply (entry -1).
type node struct {
	entry int
	name  string
	kids  map[string]*node
	order []string
}

// buildTree maps the entries to paths: a later entry of a path replaces
// an earlier one, as unpacking does; the trailers are left out.
func (rd *Reader) buildTree() {
	rd.root = &node{entry: -1, name: ".", kids: map[string]*node{}}
	for i := range rd.entries {
		e := &rd.entries[i]
		if e.Name == trailerName {
			continue
		}
		p := fsName(e.Name)
		if p == "" {
			continue
		}
		if p == "." {
			if e.Mode&ModeType == ModeDir {
				rd.root.entry = i
			}
			continue
		}
		dir := rd.root
		elems := strings.Split(p, "/")
		for _, el := range elems[:len(elems)-1] {
			k := dir.kids[el]
			if k == nil {
				k = &node{entry: -1, name: el, kids: map[string]*node{}}
				dir.kids[el] = k
				dir.order = append(dir.order, el)
			} else if !rd.isDir(k) {
				k.entry, k.kids = -1, map[string]*node{}
			}
			dir = k
		}
		last := elems[len(elems)-1]
		k := dir.kids[last]
		if k == nil {
			k = &node{name: last, kids: map[string]*node{}}
			dir.kids[last] = k
			dir.order = append(dir.order, last)
		}
		k.entry = i
		if !rd.isDir(k) {
			k.kids, k.order = map[string]*node{}, nil
		}
	}
}

// isDir reports whether n is a directory.
func (rd *Reader) isDir(n *node) bool {
	return n.entry < 0 || rd.entries[n.entry].Mode&ModeType == ModeDir
}

// lookup resolves name, following symbolic links in every element and in
// the last when follow is set.
func (rd *Reader) lookup(op, name string, follow bool) (*node, error) {
	t := imgfmt.Tree[*node]{
		Root: func() (*node, error) { return rd.root, nil },
		Child: func(dir *node, el string) (*node, error) {
			if k := dir.kids[el]; k != nil && rd.isDir(dir) {
				return k, nil
			}
			return nil, fs.ErrNotExist
		},
		IsLink: func(n *node) bool {
			return n.entry >= 0 && rd.entries[n.entry].Mode&ModeType == ModeSymlink
		},
		ReadLink: func(n *node) (string, error) { return rd.entries[n.entry].Link, nil },
	}
	return t.Lookup(op, name, follow)
}

// FileMode converts c_mode to an fs.FileMode, as ffs and ext convert
// their i_mode: c_mode holds the same S_IF* type bits and permissions.
func FileMode(m uint32) fs.FileMode {
	return fstree.FileMode(fstree.TypeOfUnixMode(m), m&0o7777)
}

// fileSize returns the size of the node's data as the FS shows it.
func (rd *Reader) fileSize(n *node) int64 {
	if n.entry < 0 {
		return 0
	}
	e := &rd.entries[n.entry]
	if e.Mode&ModeType == ModeRegular || e.Mode&ModeType == ModeSymlink {
		return rd.entries[e.dataOf].Size
	}
	return 0
}

// dirEntries returns the entries of directory n sorted by name.
func (rd *Reader) dirEntries(n *node) []fs.DirEntry {
	names := append([]string(nil), n.order...)
	sortStrings(names)
	out := make([]fs.DirEntry, 0, len(names))
	for _, nm := range names {
		out = append(out, fs.FileInfoToDirEntry(rd.info(n.kids[nm], nm)))
	}
	return out
}
