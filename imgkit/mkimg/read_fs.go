package mkimg

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// A Detector finds the format of a partition's contents (size bytes of
// r), or returns nil: imgkit/inspect's Detect, the format registry's,
// which this package cannot import because inspect registers this
// package's disk format.
type Detector func(r io.ReaderAt, size int64) *describe.Kind

// maxNesting bounds how many disks within partitions FS opens, one inside
// the other (an MBR slice holding a BSD disklabel is two), so that a
// partition that holds its own disk again cannot recurse for ever.
const maxNesting = 4

// PartitionFS opens the used slot index as the file system its contents
// hold, the format detect finds (pass inspect.Detect), and returns it with
// that format. A partition of no known format is an error wrapping
// ErrNoFS, and also an *imgfmt.UnsupportedError when imgfmt.Identify
// names the file system it holds.
func (d *Disk) PartitionFS(index int, detect Detector) (fs.FS, *describe.Kind, error) {
	e, ok := d.entry(index)
	if !ok {
		_, err := d.Partition(index)
		return nil, nil, err
	}
	p := newPart(d, e, detect, 0)
	if p.open(); p.fsys == nil {
		if p.err != nil {
			return nil, p.kind, p.err
		}
		if p.foreign != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrNoFS, &imgfmt.UnsupportedError{Foreign: *p.foreign})
		}
		return nil, nil, ErrNoFS
	}
	return p.fsys, p.kind, nil
}

// ErrNoFS reports a partition whose contents are in no format the
// detector knows.
var ErrNoFS = errors.New("mkimg: partition holds no file system of a known format")

// FS returns the disk as a file system: one entry per used slot at its
// root, named p and the slot's index (p1, p2, ...). A partition whose
// contents detect recognises (a FAT, FFS or ISO 9660 image, or a disk of
// its own) is a directory, the root of that file system, so that
// p1/EFI/BOOT/BOOTX64.EFI names a file inside partition 1; any other
// partition is a regular file holding its bytes. Each pN's fs.FileInfo
// has the partition's *Entry as its Sys; the FileInfo of a file inside a
// partition is a PartitionFileInfo, which says the partition's format.
func (d *Disk) FS(detect Detector) fs.FS {
	return newDiskFS(d, detect, 0)
}

// diskFS is the file system FS returns.
type diskFS struct {
	d     *Disk
	parts []*part
}

func newDiskFS(d *Disk, detect Detector, depth int) *diskFS {
	f := &diskFS{d: d}
	for i := range d.table.Partitions {
		f.parts = append(f.parts, newPart(d, &d.table.Partitions[i], detect, depth))
	}
	return f
}

// part is one partition of a diskFS, its file system opened on first use.
type part struct {
	name   string
	scheme string
	e      *Entry
	sec    *io.SectionReader
	// there is how many of its bytes the disk holds: e.Size, less what
	// runs past the end of a cut image
	there  int64
	detect Detector
	depth  int

	once    sync.Once
	opened  atomic.Bool     // once has run
	kind    *describe.Kind  // the detected format, nil for none
	fsys    fs.FS           // nil when the partition is shown as a file
	err     error           // why a detected format did not open
	foreign *imgfmt.Foreign // a format known by its signature only, when kind is nil
	in      string          // the disk's Disk.in
}

func newPart(d *Disk, e *Entry, detect Detector, depth int) *part {
	there := min(e.Size, max(0, d.holds()-e.Start))
	return &part{name: "p" + strconv.Itoa(e.Index), scheme: d.table.Scheme, e: e, sec: d.section(e), there: there, detect: detect, depth: depth, in: d.in}
}

// nestable reports whether partition e of a disk at depth may be read as
// a disk of its own: not past maxNesting, and not when it starts where
// its disk does, since the table found there is then its disk's own (a
// BSD partition or a Sun slice at sector 0 holds the label that lists
// it), which would list the disk again inside itself.
func nestable(e *Entry, depth int) bool { return depth+1 < maxNesting && e.Start != 0 }

// open detects and opens the partition's file system, once. A disk
// within the partition is opened with this package's reader one level
// deeper, and beyond maxNesting, or in a partition at its disk's start,
// not at all (nestable).
func (p *part) open() {
	p.once.Do(func() {
		defer p.opened.Store(true)
		if p.detect == nil {
			return
		}
		k := p.detect(p.sec, p.e.Size)
		if k == nil {
			if f, ok := imgfmt.Identify(p.sec, p.e.Size); ok {
				p.foreign = &f
			}
			return
		}
		if k.Name == DiskFormatName {
			if !nestable(p.e, p.depth) {
				return
			}
			d, err := p.nestedDisk()
			if err != nil {
				p.kind, p.err = k, imgfmt.MoveFormatError(err, p.e.Start, p.in)
				return
			}
			p.kind, p.fsys = k, newDiskFS(d, p.detect, p.depth+1)
			return
		}
		fsys, err := k.Open(p.sec, p.e.Size)
		p.kind = k
		if err != nil {
			// The file system's offsets count from the partition's start.
			p.err = imgfmt.MoveFormatError(err, p.e.Start, p.in)
			return
		}
		p.fsys = fsys
	})
}

// nestedDisk reads the disk a partition holds. An MBR's extended
// partition (type ebr) holds a chain of EBRs, which also reads as an MBR
// of its own; it is read with the ebr scheme, whose links count from the
// extended partition's start, and any other partition as ReadTable finds
// it.
func (p *part) nestedDisk() (*Disk, error) {
	if s := schemes["ebr"]; p.scheme == "mbr" && p.e.Type == "ebr" && s != nil && s.read != nil {
		t, err := s.read(p.sec, p.e.Size)
		if err == nil {
			err = checkEntries(t, p.e.Size)
		}
		if err != nil {
			return nil, err
		}
		return &Disk{r: p.sec, size: p.e.Size, held: p.there, table: t}, nil
	}
	d, err := NewReader(p.sec, p.e.Size)
	if err == nil && d.container == nil {
		d.held = p.there
	}
	return d, err
}

// holds returns how many of the disk's bytes the image holds: the
// partitions of a disk nested in a cut partition are cut where it is.
func (d *Disk) holds() int64 {
	if d.held > 0 && d.held < d.size {
		return d.held
	}
	return d.size
}

// notDir says why a path inside the partition, which is shown as a file
// of its bytes, does not exist: its file system is one fixturegen does
// not read, or its detected format did not open, or it has none.
func (p *part) notDir() error {
	switch {
	case p.foreign != nil:
		return &imgfmt.UnsupportedError{Foreign: *p.foreign}
	case p.err != nil:
		return fmt.Errorf("%w: its %s did not open: %w", fs.ErrNotExist, p.kind.Name, p.err)
	}
	return fs.ErrNotExist
}

// warnings says, once the partition has been opened, what its listing
// leaves out: the file system it holds that fixturegen does not read,
// why a format it was detected as did not open, or its file system's own
// warnings, each after its name.
func (p *part) warnings() []string {
	if !p.opened.Load() {
		return nil
	}
	switch {
	case p.foreign != nil:
		return []string{p.name + " " + (&imgfmt.UnsupportedError{Foreign: *p.foreign}).Error() + "; it is listed as a file of its bytes"}
	case p.err != nil:
		return []string{fmt.Sprintf("%s: not read as %s (%v); it is listed as a file of its bytes", p.name, p.kind.Name, p.err)}
	}
	var out []string
	for _, w := range describe.Warnings(p.fsys) {
		out = append(out, p.name+": "+w)
	}
	return out
}

// Warnings returns what the disk's listing leaves out or shows only in
// part (describe.Warner): the table's Problems (partitions that run past
// a cut image's end, a damaged primary GPT header), then, for each
// partition opened so far, the warnings of part.warnings.
func (f *diskFS) Warnings() []string {
	out := slices.Clone(f.d.table.Problems)
	for _, p := range f.parts {
		out = append(out, p.warnings()...)
	}
	return out
}

// info is the partition's own fs.FileInfo, as its pN entry shows it.
func (p *part) info() fs.FileInfo {
	p.open()
	return partInfo{p}
}

// partInfo is the fs.FileInfo (and fs.DirEntry) of a pN entry.
type partInfo struct{ p *part }

func (i partInfo) Name() string { return i.p.name }

// Size is the partition's bytes that the disk holds: all of them but in
// a cut image, whose table can claim any size (a problem says so). A
// reader that sizes its buffer by it, as fs.ReadFile does, then takes
// no more memory than the image has bytes, and its read past them ends
// with imgfmt.ErrTruncated.
func (i partInfo) Size() int64 { return i.p.there }
func (i partInfo) Mode() fs.FileMode {
	if i.p.fsys != nil {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i partInfo) ModTime() time.Time         { return time.Unix(0, 0) }
func (i partInfo) IsDir() bool                { return i.p.fsys != nil }
func (i partInfo) Sys() any                   { return i.p.e }
func (i partInfo) Type() fs.FileMode          { return i.Mode().Type() }
func (i partInfo) Info() (fs.FileInfo, error) { return i, nil }

// A PartitionFileInfo is the fs.FileInfo of a file inside a partition of
// a disk's FS: the partition's file system's own, and the format that
// file system was opened as, whose Column and Owner read it.
type PartitionFileInfo struct {
	fs.FileInfo
	Format *describe.Kind
}

// rootInfo is the fs.FileInfo of the disk's root directory.
type rootInfo struct{}

func (rootInfo) Name() string       { return "." }
func (rootInfo) Size() int64        { return 0 }
func (rootInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (rootInfo) ModTime() time.Time { return time.Unix(0, 0) }
func (rootInfo) IsDir() bool        { return true }
func (rootInfo) Sys() any           { return nil }

// lookup splits name into the partition it is in and the rest of it
// within the partition's file system ("." for the partition itself).
func (f *diskFS) lookup(op, name string) (*part, string, error) {
	if !fs.ValidPath(name) {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	first, rest, _ := strings.Cut(name, "/")
	for _, p := range f.parts {
		if p.name != first {
			continue
		}
		if rest == "" {
			rest = "."
		}
		if rest != "." {
			if p.open(); p.fsys == nil {
				return nil, "", &fs.PathError{Op: op, Path: name, Err: p.notDir()}
			}
		}
		return p, rest, nil
	}
	return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
}

// Open opens name: the root, a partition (pN) or a file inside one.
func (f *diskFS) Open(name string) (fs.File, error) {
	if name == "." {
		return &rootFile{f: f}, nil
	}
	p, rest, err := f.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if rest == "." {
		if p.open(); p.fsys == nil {
			return &rawFile{SectionReader: io.NewSectionReader(p.sec, 0, p.e.Size), p: p}, nil
		}
		file, err := p.fsys.Open(".")
		if err != nil {
			return nil, err
		}
		return &innerFile{File: file, p: p, root: true}, nil
	}
	file, err := p.fsys.Open(rest)
	if err != nil {
		return nil, prefixErr(err, p.name)
	}
	return &innerFile{File: file, p: p}, nil
}

// ReadLink reads a symbolic link inside a partition whose file system can.
func (f *diskFS) ReadLink(name string) (string, error) {
	p, rest, err := f.lookup("readlink", name)
	if err != nil {
		return "", err
	}
	if rest == "." {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	target, err := fs.ReadLink(p.fsys, rest)
	return target, prefixErr(err, p.name)
}

// Lstat returns a file's fs.FileInfo without following a symbolic link,
// where the partition's file system can.
func (f *diskFS) Lstat(name string) (fs.FileInfo, error) {
	if name == "." {
		return rootInfo{}, nil
	}
	p, rest, err := f.lookup("lstat", name)
	if err != nil {
		return nil, err
	}
	if rest == "." {
		return p.info(), nil
	}
	fi, err := fs.Lstat(p.fsys, rest)
	if err != nil {
		return nil, prefixErr(err, p.name)
	}
	return PartitionFileInfo{fi, p.kind}, nil
}

// prefixErr puts the partition's name before the path of a *fs.PathError
// from its file system, so that the error names the disk's path.
func prefixErr(err error, prefix string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: prefix + "/" + pe.Path, Err: pe.Err}
	}
	return err
}

// rootFile is the disk's root directory, listing the partitions.
type rootFile struct {
	f   *diskFS
	pos int
}

func (r *rootFile) Stat() (fs.FileInfo, error) { return rootInfo{}, nil }
func (r *rootFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: ".", Err: errors.New("is a directory")}
}
func (r *rootFile) Close() error { return nil }

// ReadDir lists the partitions in slot order, n at a time as
// fs.ReadDirFile asks.
func (r *rootFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := r.f.parts[r.pos:]
	if n > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if n > 0 && n < len(rest) {
		rest = rest[:n]
	}
	out := make([]fs.DirEntry, len(rest))
	for i, p := range rest {
		out[i] = p.info().(partInfo)
	}
	r.pos += len(rest)
	return out, nil
}

// rawFile is a partition of no known format, read as its bytes.
type rawFile struct {
	*io.SectionReader
	p *part
}

func (r *rawFile) Stat() (fs.FileInfo, error) { return r.p.info(), nil }
func (r *rawFile) Close() error               { return nil }

// innerFile is a file inside a partition: the partition's file system's
// own, with its fs.FileInfo and directory entries marked with the
// partition's format. The partition's root reports itself as pN.
type innerFile struct {
	fs.File
	p    *part
	root bool
}

func (f *innerFile) Stat() (fs.FileInfo, error) {
	if f.root {
		return f.p.info(), nil
	}
	fi, err := f.File.Stat()
	if err != nil {
		return nil, err
	}
	return PartitionFileInfo{fi, f.p.kind}, nil
}

// ReadDir lists a directory inside the partition, when the partition's
// file system's directory can be listed.
func (f *innerFile) ReadDir(n int) ([]fs.DirEntry, error) {
	d, ok := f.File.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: f.p.name, Err: errors.New("not a directory")}
	}
	list, err := d.ReadDir(n)
	for i, e := range list {
		list[i] = innerEntry{e, f.p.kind}
	}
	return list, err
}

// innerEntry is a directory entry inside a partition.
type innerEntry struct {
	fs.DirEntry
	kind *describe.Kind
}

func (e innerEntry) Info() (fs.FileInfo, error) {
	fi, err := e.DirEntry.Info()
	if err != nil {
		return nil, err
	}
	return PartitionFileInfo{fi, e.kind}, nil
}
