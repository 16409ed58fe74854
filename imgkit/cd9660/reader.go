package cd9660

import (
	"bytes"
	"fmt"
	"io"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// FS is an ISO 9660 volume opened for reading: an io/fs.FS over the
// directory tree of one namespace. It implements fs.ReadDirFS,
// fs.ReadFileFS, fs.StatFS and fs.ReadLinkFS; Open and Stat follow
// symbolic links inside the image, Lstat and ReadLink do not. Sys() of its
// fs.FileInfo values is the *Entry of the file. An FS is safe for
// concurrent use when its io.ReaderAt is.
//
// NewReader reads the Rock Ridge names and attributes of the primary volume when
// its root carries the SUSP indicator, else the Joliet supplementary
// volume when there is one, else the primary volume's ISO 9660 names, the
// order Linux's isofs and libisofs prefer them in; View gives the tree of
// another namespace.
type FS struct {
	r         io.ReaderAt
	size      int64
	blockSize int64
	vds       []*descriptor // the volume descriptor set, in order
	primary   *descriptor
	joliet    *descriptor // the first Joliet supplementary volume, or nil
	boot      *descriptor // the El Torito boot record, or nil
	rr        bool        // the primary root's "." record starts with SP
	suspSkip  int         // SP's LEN_SKP: bytes before each record's SUSP entries
	ns        Namespace
	root      *Entry
}

// A descriptor is one volume descriptor of the set.
type descriptor struct {
	sector int64
	vd     *volumeDescriptor
	level  int // the Joliet level (1 to 3) of a Joliet supplementary volume
}

// Namespace names one of the directory trees an image may hold.
type Namespace int

// The namespaces of an ISO 9660 image.
const (
	// ISO9660 is the primary volume's tree with its ISO 9660 file
	// identifiers, version numbers and trailing dots removed.
	ISO9660 Namespace = iota + 1
	// Joliet is the tree of the Joliet supplementary volume, with UCS-2
	// names.
	Joliet
	// RockRidge is the primary volume's tree with Rock Ridge names, modes,
	// owners, times, symbolic links, devices and relocated directories.
	RockRidge
)

// String returns "ISO 9660", "Joliet" or "Rock Ridge".
func (n Namespace) String() string {
	switch n {
	case ISO9660:
		return "ISO 9660"
	case Joliet:
		return "Joliet"
	case RockRidge:
		return "Rock Ridge"
	}
	return fmt.Sprintf("Namespace(%d)", int(n))
}

// Limits that bound what a corrupt image can make the reader do (the
// symbolic links one lookup follows are bounded by imgfmt.MaxLinkDepth).
const (
	maxDescriptors = 64   // volume descriptors before the terminator
	maxDepth       = 2048 // directory nesting
)

// A ReadCloser is an ISO 9660 image opened from a file by OpenReader: the
// FS and the file it reads, which Close closes.
type ReadCloser struct {
	FS
	imgfmt.ImageFile
}

// OpenReader opens the image file name, which must be a regular file, and
// reads the volume in it as NewReader does. The ReadCloser must be closed when
// no longer needed; the FS and its files are not to be used after that.
func OpenReader(name string) (*ReadCloser, error) {
	rc := new(ReadCloser)
	var err error
	if rc.ImageFile, err = imgfmt.OpenImage(name, rc.FS.init); err != nil {
		return nil, err
	}
	return rc, nil
}

// NewReader reads the ISO 9660 volume in r, which holds size bytes: the volume
// descriptor set from sector 16 and the whole directory tree of the
// preferred namespace (see FS). File data is read when asked for.
func NewReader(r io.ReaderAt, size int64) (*FS, error) {
	f := new(FS)
	if err := f.init(r, size); err != nil {
		return nil, err
	}
	return f, nil
}

// init reads the volume of r into f, for NewReader and OpenReader.
func (f *FS) init(r io.ReaderAt, size int64) error {
	*f = FS{r: r, size: size}
	if err := f.readDescriptors(); err != nil {
		return err
	}
	if err := f.checkPrimary(); err != nil {
		return err
	}
	f.detectRockRidge()
	ns := ISO9660
	switch {
	case f.rr:
		ns = RockRidge
	case f.joliet != nil:
		ns = Joliet
	}
	return f.load(ns)
}

// View returns an FS over the tree of namespace ns of the same image:
// Joliet needs a Joliet supplementary volume, RockRidge the SUSP indicator
// in the primary root.
func (f *FS) View(ns Namespace) (*FS, error) {
	g := &FS{r: f.r, size: f.size, blockSize: f.blockSize, vds: f.vds, primary: f.primary,
		joliet: f.joliet, boot: f.boot, rr: f.rr, suspSkip: f.suspSkip}
	switch {
	case ns == Joliet && f.joliet == nil:
		return nil, formatErr(-1, "", "no Joliet supplementary volume descriptor")
	case ns == RockRidge && !f.rr:
		return nil, formatErr(-1, "SP", "no Rock Ridge SP entry in the root directory")
	case ns != ISO9660 && ns != Joliet && ns != RockRidge:
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, ns)
	}
	if err := g.load(ns); err != nil {
		return nil, err
	}
	return g, nil
}

// Namespace returns the namespace whose tree the FS shows.
func (f *FS) Namespace() Namespace { return f.ns }

// HasRockRidge reports whether the primary volume's root carries the SUSP
// indicator (SP) that Rock Ridge images start with.
func (f *FS) HasRockRidge() bool { return f.rr }

// HasJoliet reports whether the image has a Joliet supplementary volume.
func (f *FS) HasJoliet() bool { return f.joliet != nil }

// HasBootRecord reports whether the image has an El Torito boot record.
func (f *FS) HasBootRecord() bool { return f.boot != nil }

// BlockSize returns the Logical Block Size of the primary volume.
func (f *FS) BlockSize() int64 { return f.blockSize }

// VolumeIdentifier returns the primary volume's Volume Identifier without
// trailing blanks.
func (f *FS) VolumeIdentifier() string {
	return string(bytes.TrimRight(f.primary.vd.volumeIdentifier(), " \x00"))
}

// volumeBytes returns the primary volume's size in bytes, its Volume
// Space Size in logical blocks, or 0 before it is read.
func (f *FS) volumeBytes() int64 {
	if f.primary == nil {
		return 0
	}
	n, _ := get733(f.primary.vd.volumeSpaceSize())
	return int64(n) * f.blockSize
}

// Warnings says, when the image ends before the volume does (an image
// cut short), how large the volume is and the image: it is listed as far
// as the image goes, and reading a file's blocks past its end fails with
// an error wrapping imgfmt.ErrTruncated. It implements describe.Warner.
func (f *FS) Warnings() []string {
	if n := f.volumeBytes(); n > f.size {
		return []string{fmt.Sprintf("volume of %d bytes (Volume Space Size at byte %#x) ends past the image's end (%d bytes); listing what is there", n, f.primary.sector*SectorSize+80, f.size)}
	}
	return nil
}

// formatErr returns the *imgfmt.FormatError, wrapping ErrFormat, of a
// structure at byte off (-1: none) whose field (as ECMA-119, El Torito,
// SUSP or RRIP name it, "" for none) is malformed.
func formatErr(off int64, field, format string, args ...any) error {
	return &imgfmt.FormatError{Format: "cd9660", Off: off, Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrFormat}
}

// readAt reads exactly len(b) bytes at byte off of the image. A read
// inside the volume (its Volume Space Size) but past the end of an image
// cut short is an *imgfmt.TruncatedError.
func (f *FS) readAt(b []byte, off int64) error {
	if end := off + int64(len(b)); off >= 0 && end > f.size && end <= f.volumeBytes() {
		return &imgfmt.TruncatedError{Off: max(off, f.size), End: end, Size: f.size}
	}
	if off < 0 || off > f.size || int64(len(b)) > f.size-off {
		return formatErr(-1, "", "read of %d bytes at byte %#x is outside the image of %d bytes", len(b), off, f.size)
	}
	n, err := f.r.ReadAt(b, off)
	switch {
	case n == len(b):
		return nil // an io.ReaderAt may say io.EOF with a full read at the end
	case err == nil || err == io.EOF:
		return fmt.Errorf("cd9660: reading %d bytes at byte %#x: %w", len(b), off, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("cd9660: reading %d bytes at byte %#x: %w", len(b), off, err)
}

// readDescriptors reads the volume descriptor set from sector 16 up to
// its terminator (ECMA-119 8), at most maxDescriptors of them; a sector
// without the standard identifier ends the set as well.
func (f *FS) readDescriptors() error {
	for i := int64(0); i < maxDescriptors; i++ {
		sector := systemAreaSectors + i
		off := sector * SectorSize
		if off+SectorSize > f.size {
			break
		}
		vd := new(volumeDescriptor)
		if err := f.readAt(vd[:], off); err != nil {
			return err
		}
		if string(vd.standardIdentifier()) != standardIdentifier {
			break
		}
		p := &descriptor{sector: sector, vd: vd, level: jolietLevel(vd)}
		f.vds = append(f.vds, p)
		typ := vd.volumeDescriptorType()[0]
		if typ == vdTypeTerminator {
			break
		}
		switch {
		case typ == vdTypePrimary && f.primary == nil:
			f.primary = p
		case typ == vdTypeSupplementary && p.level > 0 && f.joliet == nil:
			f.joliet = p
		case typ == vdTypeBootRecord && f.boot == nil && isElTorito(vd):
			f.boot = p
		}
	}
	if f.primary == nil {
		return formatErr(systemAreaSectors*SectorSize, "", "no primary volume descriptor in the volume descriptor set at byte %#x", systemAreaSectors*SectorSize)
	}
	return nil
}

// jolietLevel returns the Joliet level that a supplementary volume
// descriptor's escape sequences announce (%/@, %/C, %/E), or 0.
func jolietLevel(vd *volumeDescriptor) int {
	if vd.volumeDescriptorType()[0] != vdTypeSupplementary || vd.volumeFlags()[0]&1 != 0 {
		return 0
	}
	esc := vd.escapeSequences()
	for i := 0; i+3 <= len(esc); i++ {
		if esc[i] != '%' || esc[i+1] != '/' {
			continue
		}
		switch esc[i+2] {
		case '@':
			return 1
		case 'C':
			return 2
		case 'E':
			return 3
		}
	}
	return 0
}

// isElTorito reports whether the boot record vd is El Torito's.
func isElTorito(vd *volumeDescriptor) bool {
	id := vd.bootSystemIdentifier()
	return string(bytes.TrimRight(id, "\x00")) == elToritoIdentifier
}

// checkPrimary checks the primary volume descriptor's logical block size
// and root directory record.
func (f *FS) checkPrimary() error {
	vd := f.primary.vd
	base := f.primary.sector * SectorSize
	bs, _ := get723(vd.logicalBlockSize())
	if bs != 512 && bs != 1024 && bs != 2048 {
		return formatErr(base+128, "Logical Block Size", "Logical Block Size %d at byte %#x is not 512, 1024 or 2048", bs, base+128)
	}
	f.blockSize = int64(bs)
	for _, d := range []*descriptor{f.primary, f.joliet} {
		if d == nil {
			continue
		}
		root := d.vd.rootDirectoryRecord()
		if root[0] < dirRecordFixedLen+1 || root[32] != 1 {
			if d == f.joliet {
				f.joliet = nil // a broken Joliet volume leaves the primary one
				continue
			}
			return formatErr(d.sector*SectorSize+156, "Directory Record for Root Directory", "bad Directory Record for Root Directory at byte %#x", d.sector*SectorSize+156)
		}
	}
	return nil
}
