package vmdk

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// A VMDK whose descriptor is a text file of its own (VMware's Virtual
// Disk Format 1.1, "The Descriptor File"): createType monolithicFlat,
// twoGbMaxExtentFlat and twoGbMaxExtentSparse, as qemu-img create and
// convert -o subformat=... write them. The descriptor's extent lines name
// the files that hold the disk, one after the other:
//
//	RW 4096 FLAT "disk-flat.vmdk" 0
//	RW 8323072 SPARSE "disk-s001.vmdk"
//	RW 2048 ZERO
//
// A FLAT (or VMFS) extent is raw bytes from a sector offset of its file,
// a SPARSE extent a hosted sparse extent file (openVMDK), a ZERO extent
// zeros. Extent files are opened only beside the descriptor, inside its
// folder.

// Bounds the descriptor reader puts on what it reads.
const (
	// vmdkMaxDescriptor is the largest descriptor file read: VMware's
	// are a few hundred bytes, and one extent line per 2 GB of a 16 TiB
	// disk takes under 400 KiB.
	vmdkMaxDescriptor = 1 << 20
	// vmdkMaxExtents is the most extent lines read, each an open file.
	vmdkMaxExtents = 8192
)

// vmdkDescriptorMagic begins a descriptor file.
var vmdkDescriptorMagic = []byte("# Disk DescriptorFile")

// Descriptor is the VMDK whose descriptor is a text file of its own,
// which mkimg reads but does not write.
type Descriptor struct{}

// Name returns vmdk.
func (Descriptor) Name() string { return "vmdk" }

// Match reports whether head begins a descriptor file.
func (Descriptor) Match(head []byte) bool { return bytes.HasPrefix(head, vmdkDescriptorMagic) }

// Open opens the disk the descriptor in r (size bytes) describes; r must
// be its *os.File (openVMDKDescriptor).
func (Descriptor) Open(r io.ReaderAt, size int64) (vdisk.Reader, error) {
	d, _, err := openVMDKDescriptor(r, size)
	if err != nil {
		return nil, err
	}
	return d.(*vmdkExtents), nil
}

// vmdkExtent is one extent of a descriptor's disk: n bytes of the disk
// from byte start, read from byte off of r (zeros when r is nil).
type vmdkExtent struct {
	start, n int64
	r        io.ReaderAt
	off      int64
}

// vmdkExtents is the disk a descriptor file describes: its extents in
// order, the files they hold open, and the descriptor's lines for
// Fields.
type vmdkExtents struct {
	extents []vmdkExtent
	size    int64
	files   []io.Closer
	fields  []describe.Field
}

// openVMDKDescriptor is the open hook of descriptor files. r must be the
// descriptor's *os.File (or another reader with the Name of the file it
// reads): the extent files are opened in the folder of that name, never
// outside it.
func openVMDKDescriptor(r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	named, ok := r.(interface{ Name() string })
	if !ok {
		return nil, 0, vmdkErr(-1, "", "a descriptor file names its extent files, which are read only when the descriptor is opened as a file")
	}
	dir := filepath.Dir(named.Name())
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("opening the descriptor's folder: %w", err)
	}
	defer root.Close()
	return readVMDKDescriptor(r, size, func(name string) (io.ReaderAt, int64, io.Closer, error) {
		f, n, err := imgfmt.OpenFileIn(root, name)
		if err != nil {
			return nil, 0, nil, extentOpenError(dir, name, err)
		}
		return f, n, f, nil
	})
}

// extentOpenError says why the extent file name beside the descriptor
// in dir did not open, in the user's words.
func extentOpenError(dir, name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("not found in the descriptor's folder")
	}
	if fi, lerr := os.Lstat(filepath.Join(dir, name)); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return errors.New("a symbolic link that leads out of the descriptor's folder")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err
}

// readVMDKDescriptor reads the descriptor file in r (size bytes) and
// opens its extents with open, which returns an extent file's reader,
// size and closer.
func readVMDKDescriptor(r io.ReaderAt, size int64, open func(name string) (io.ReaderAt, int64, io.Closer, error)) (_ io.ReaderAt, _ int64, err error) {
	if size > vmdkMaxDescriptor {
		return nil, 0, vmdkErr(-1, "", "a descriptor file of %d bytes, past the %d read", size, vmdkMaxDescriptor)
	}
	text := make([]byte, size)
	if _, err := r.ReadAt(text, 0); err != nil && err != io.EOF {
		return nil, 0, fmt.Errorf("reading the descriptor: %w", err)
	}
	if i := bytes.IndexByte(text, 0); i >= 0 {
		text = text[:i] // qemu-img pads the descriptor with NULs
	}
	d := &vmdkExtents{}
	defer func() {
		if err != nil {
			d.closeFiles()
		}
	}()
	seen := map[string]bool{} // the settings' names, each a field once
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, vmdkMaxDescriptor)
	for line, off := 1, int64(0); sc.Scan(); line++ {
		raw := sc.Text()
		fieldOff, fieldLen := off, int64(len(raw))
		off += fieldLen + 1
		s := strings.TrimSpace(raw)
		if s == "" || s[0] == '#' {
			continue
		}
		access, _, _ := strings.Cut(s, " ")
		if key, value, ok := strings.Cut(s, "="); ok && !isVMDKAccess(access) {
			if err := d.setting(strings.TrimSpace(key), strings.Trim(strings.TrimSpace(value), `"`)); err != nil {
				return nil, 0, lineErr(fieldOff, strings.TrimSpace(key), line, err)
			}
			name := strings.TrimSpace(key)
			if seen[name] {
				name += " (line " + strconv.Itoa(line) + ")"
			}
			seen[name] = true
			d.fields = append(d.fields, describe.Field{Path: "VMDK descriptor", Name: name, Offset: fieldOff, Size: fieldLen, Value: strings.TrimSpace(value)})
			continue
		}
		if len(d.extents) == vmdkMaxExtents {
			return nil, 0, vmdkErr(fieldOff, "", "descriptor line %d: more than %d extents", line, vmdkMaxExtents)
		}
		if err := d.extent(s, open); err != nil {
			return nil, 0, lineErr(fieldOff, "", line, err)
		}
		d.fields = append(d.fields, describe.Field{Path: "VMDK descriptor", Name: "extent " + strconv.Itoa(len(d.extents)), Offset: fieldOff, Size: fieldLen, Value: s})
	}
	if len(d.extents) == 0 {
		return nil, 0, vmdkErr(-1, "", "the descriptor names no extent")
	}
	return d, d.size, nil
}

// lineErr is the error err of descriptor line number line, at byte off
// of the descriptor: an *imgfmt.FormatError with the line's place (its
// setting's name as field, "" for an extent line), which err follows in
// the message and the chain.
func lineErr(off int64, field string, line int, err error) error {
	return fmt.Errorf("%w: %w", vmdkErr(off, field, "descriptor line %d", line), err)
}

// quoteLine quotes a descriptor line, or its first 60 bytes, for an
// error.
func quoteLine(s string) string {
	if len(s) > 60 {
		return strconv.Quote(s[:60]) + "..."
	}
	return strconv.Quote(s)
}

// isVMDKAccess reports whether word is an extent line's access, its
// first word.
func isVMDKAccess(word string) bool {
	switch strings.ToUpper(word) {
	case "RW", "RDONLY", "NOACCESS":
		return true
	}
	return false
}

// setting checks one key=value line of the descriptor: a disk with a
// parent (a snapshot's delta) is not read.
func (d *vmdkExtents) setting(key, value string) error {
	switch {
	case key == "parentCID" && !strings.EqualFold(value, "ffffffff"):
		return fmt.Errorf("parentCID %s: the disk is a delta of a parent disk, which is not read", value)
	case key == "parentFileNameHint":
		return fmt.Errorf("parentFileNameHint %s: the disk is a delta of a parent disk, which is not read", quoteLine(value))
	}
	return nil
}

// extent reads one extent line, access sectors type ["file" [offset]],
// opens its file and appends it to the disk.
func (d *vmdkExtents) extent(s string, open func(string) (io.ReaderAt, int64, io.Closer, error)) error {
	head, quoted, hasName := strings.Cut(s, `"`)
	f := strings.Fields(head)
	if len(f) != 3 {
		return fmt.Errorf("%s: want an access, a size in sectors, a type and a file name", quoteLine(s))
	}
	access, typ := strings.ToUpper(f[0]), strings.ToUpper(f[2])
	sectors, err := strconv.ParseInt(f[1], 10, 64)
	switch {
	case access != "RW" && access != "RDONLY":
		return fmt.Errorf("%s: access %s; want RW or RDONLY", quoteLine(s), f[0])
	case err != nil || sectors < 0:
		return fmt.Errorf("%s: size %s is not a number of sectors", quoteLine(s), quoteLine(f[1]))
	case sectors > (math.MaxInt64-d.size)/vmdkSectorSize:
		return fmt.Errorf("%s: the extents come to more than %d bytes", quoteLine(s), int64(math.MaxInt64))
	}
	e := vmdkExtent{start: d.size, n: sectors * vmdkSectorSize}
	var name, rest string
	if hasName {
		var closed bool
		name, rest, closed = strings.Cut(quoted, `"`)
		if !closed {
			return fmt.Errorf("%s: the file name has no closing quote", quoteLine(s))
		}
	}
	switch typ {
	case "ZERO":
	case "FLAT", "VMFS":
		if err := e.openFlat(s, name, rest, d, open); err != nil {
			return err
		}
	case "SPARSE":
		if err := e.openSparse(name, d, open); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s: extents of type %s are not read (FLAT, VMFS, SPARSE and ZERO are)", quoteLine(s), quoteLine(f[2]))
	}
	d.extents = append(d.extents, e)
	d.size += e.n
	return nil
}

// openExtentFile checks that an extent's file name stays in the
// descriptor's folder and opens it.
func (d *vmdkExtents) openExtentFile(name string, open func(string) (io.ReaderAt, int64, io.Closer, error)) (io.ReaderAt, int64, error) {
	switch {
	case name == "":
		return nil, 0, errors.New("the extent names no file")
	case filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.VolumeName(name) != "":
		return nil, 0, fmt.Errorf("extent file %s: an absolute path; extent files are read only from the descriptor's folder", quoteLine(name))
	}
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return nil, 0, fmt.Errorf("extent file %s: a path with \"..\"; extent files are read only from the descriptor's folder", quoteLine(name))
		}
	}
	r, n, c, err := open(name)
	if err != nil {
		return nil, 0, fmt.Errorf("extent file %s: %w", quoteLine(name), err)
	}
	d.files = append(d.files, c)
	return r, n, nil
}

// openFlat opens a FLAT extent's file, whose bytes from the sector
// offset rest gives (0 when none) are the extent's, and which must hold
// them all.
func (e *vmdkExtent) openFlat(s, name, rest string, d *vmdkExtents, open func(string) (io.ReaderAt, int64, io.Closer, error)) error {
	var sector int64
	if rest = strings.TrimSpace(rest); rest != "" {
		var err error
		if sector, err = strconv.ParseInt(rest, 10, 64); err != nil || sector < 0 || sector > math.MaxInt64/vmdkSectorSize {
			return fmt.Errorf("%s: offset %s is not a number of sectors", quoteLine(s), quoteLine(rest))
		}
	}
	r, n, err := d.openExtentFile(name, open)
	if err != nil {
		return err
	}
	e.r, e.off = r, sector*vmdkSectorSize
	if e.off > n || e.n > n-e.off {
		return fmt.Errorf("extent file %s: %d bytes, too few for %d bytes from byte %d", quoteLine(name), n, e.n, e.off)
	}
	return nil
}

// openSparse opens a SPARSE extent's file, a hosted sparse extent whose
// capacity must hold the extent.
func (e *vmdkExtent) openSparse(name string, d *vmdkExtents, open func(string) (io.ReaderAt, int64, io.Closer, error)) error {
	f, n, err := d.openExtentFile(name, open)
	if err != nil {
		return err
	}
	r, capacity, err := openVMDK(f, n)
	if err != nil {
		return fmt.Errorf("extent file %s: %w", quoteLine(name), err)
	}
	if capacity < e.n {
		return fmt.Errorf("extent file %s: a capacity of %d bytes, less than the extent's %d", quoteLine(name), capacity, e.n)
	}
	e.r = r
	return nil
}

// ReadAt reads the disk's bytes at off, extent by extent.
func (d *vmdkExtents) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("vmdk: negative offset %d", off)
	}
	n := 0
	for n < len(p) {
		if off >= d.size {
			return n, io.EOF
		}
		i := sort.Search(len(d.extents), func(i int) bool { return d.extents[i].start+d.extents[i].n > off })
		e := &d.extents[i]
		in := off - e.start
		m := int(min(int64(len(p)-n), e.n-in))
		if e.r == nil {
			clear(p[n : n+m])
		} else if k, err := e.r.ReadAt(p[n:n+m], e.off+in); k < m {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return n + k, fmt.Errorf("vmdk: reading extent %d: %w", i+1, err)
		}
		n += m
		off += int64(m)
	}
	return n, nil
}

// Size returns the disk's size in bytes.
func (d *vmdkExtents) Size() int64 { return d.size }

// Close closes the extent files.
func (d *vmdkExtents) Close() error { return d.closeFiles() }

// closeFiles closes the extent files.
func (d *vmdkExtents) closeFiles() error {
	var errs []error
	for _, c := range d.files {
		errs = append(errs, c.Close())
	}
	d.files = nil
	return errors.Join(errs...)
}

// FileSpans is none: the disk's bytes are in the extent files, not in
// the descriptor.
func (d *vmdkExtents) FileSpans(off, n int64) [][2]int64 { return nil }

// Fields names the descriptor's settings and extent lines.
func (d *vmdkExtents) Fields() []describe.Field { return d.fields }
