package mkimg

import (
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// ErrFormat reports a partition table that is there but malformed: a GPT
// whose headers both fail their checks, a partition past the disk's end.
// Its messages say which structure and at which byte.
var ErrFormat = errors.New("mkimg: malformed partition table")

// readOrder is the order in which NewReader tries the schemes' read
// hooks: GPT first, because a GPT disk also holds an MBR (its protective
// MBR); the schemes whose tables sit at fixed places with magic numbers
// (apm, vtoc8, bsd) next; mbr, whose only magic is the 0xAA55 boot
// signature, after them; ebr, whose first EBR looks like an MBR, last.
// A registered scheme not listed here is tried after these, by name.
var readOrder = []string{"gpt", "apm", "vtoc8", "bsd", "mbr", "ebr"}

// readSchemes returns the registered schemes that have a read hook, in
// the order NewReader tries them.
func readSchemes() []*scheme {
	var out []*scheme
	for _, n := range readOrder {
		if s := schemes[n]; s != nil && s.read != nil {
			out = append(out, s)
		}
	}
	for _, n := range Schemes() {
		if s := schemes[n]; s.read != nil && !slices.Contains(readOrder, n) {
			out = append(out, s)
		}
	}
	return out
}

// ReadTable finds the partition table of the disk in r (size bytes):
// the first scheme, in the order GPT, APM, VTOC8, BSD, MBR, EBR, whose
// reader finds its table. A scheme that finds its marks but a broken
// table behind them (a protective MBR whose GPT headers both fail their
// checks) ends the search with its error, which wraps ErrFormat; when no
// scheme finds its marks, the error wraps ErrNoTable. A partition that
// runs past the disk's end, as on an image cut short, is kept, and
// Table.Problems says what is missing (checkEntries).
func ReadTable(r io.ReaderAt, size int64) (*Table, error) {
	if size < 0 {
		return nil, formatErr(DiskFormatName, -1, "", "negative disk size %d", size)
	}
	var tried []string
	for _, s := range readSchemes() {
		t, err := s.read(r, size)
		if err == nil {
			if err := checkEntries(t, size); err != nil {
				return nil, err
			}
			return t, nil
		}
		if !errors.Is(err, ErrNoTable) {
			// The scheme found its own marks and a broken table behind
			// them; a later scheme's looser match must not hide that.
			return nil, err
		}
		tried = append(tried, s.name)
	}
	return nil, fmt.Errorf("%w of the schemes %s", ErrNoTable, strings.Join(tried, ", "))
}

// checkEntries makes sure every partition of t has a byte range a
// reader can hold, whatever scheme's reader made t, and adds a problem
// for each that runs past the disk's size bytes: other tools (blkid,
// mmls, fdisk) list a cut image's table as it stands, and so does this
// package, while the partition's missing bytes cannot be read
// (Disk.section).
func checkEntries(t *Table, size int64) error {
	for _, e := range t.Partitions {
		if e.Start < 0 || e.Size < 0 || e.Start > math.MaxInt64-e.Size {
			return formatErr(t.Scheme, -1, "", "%s partition %d (bytes %d to %d) is not a byte range of a disk", t.Scheme, e.Index, e.Start, e.Start+e.Size)
		}
		switch {
		case e.Start >= size && e.Size > 0:
			t.Problems = append(t.Problems, fmt.Sprintf("%s partition %d (bytes %d to %d) lies past the image's end (%d bytes); it is listed, but none of it can be read", t.Scheme, e.Index, e.Start, e.Start+e.Size, size))
		case e.Start+e.Size > size:
			t.Problems = append(t.Problems, fmt.Sprintf("%s partition %d (bytes %d to %d) ends past the image's end (%d bytes); listing what is there", t.Scheme, e.Index, e.Start, e.Start+e.Size, size))
		}
	}
	return nil
}

// A Disk is a partitioned disk opened for reading: its table, and each
// partition as a section of the disk.
type Disk struct {
	r    io.ReaderAt
	size int64
	// held is how many of its bytes the image holds, when fewer than
	// size: a disk inside a partition that runs past a cut image's end
	// (0: all of them)
	held      int64
	table     *Table
	container vdisk.Reader // the container r is the disk of; nil for none
	// in names the image the disk's offsets count in when it is not the
	// file read: "the qcow2 container's disk" (imgfmt.FormatError.In).
	in string
}

// NewReader reads the partition table of the disk in r, which holds size
// bytes, as ReadTable finds it. Partitions' contents are read when asked
// for.
func NewReader(r io.ReaderAt, size int64) (*Disk, error) {
	d := new(Disk)
	if err := d.init(r, size); err != nil {
		return nil, err
	}
	return d, nil
}

// init reads the table of r into d, for NewReader and OpenReader. A
// container (qcow2, vhd, vmdk, ...) is opened first, and the table read
// from the raw disk it holds.
func (d *Disk) init(r io.ReaderAt, size int64) error {
	c, name, err := openContainer(r, size)
	if err != nil {
		return err
	}
	if c != nil {
		r, size = c, c.Size()
	}
	var in string
	if name != "" && name != "vhdf" { // a fixed VHD's disk is the file's first bytes
		in = "the " + name + " container's disk"
	}
	t, err := ReadTable(r, size)
	if err != nil {
		if c != nil {
			c.Close() // a VMDK descriptor's extent files
		}
		return imgfmt.MoveFormatError(err, 0, in)
	}
	*d = Disk{r: r, size: size, table: t, container: c, in: in}
	return nil
}

// A ReadCloser is a disk opened from a file by OpenReader: a Disk that
// must be closed when no longer needed. Close closes the disk's file;
// partitions read from it before cannot be read after it.
type ReadCloser struct {
	Disk
	imgfmt.ImageFile
}

// Close closes the disk's file, and the files a container's descriptor
// named (a VMDK's extents).
func (rc *ReadCloser) Close() error {
	var err error
	if rc.Disk.container != nil {
		err = rc.Disk.container.Close()
	}
	return errors.Join(err, rc.ImageFile.Close())
}

// OpenReader opens the disk image file name and reads its table as
// NewReader does.
func OpenReader(name string) (*ReadCloser, error) {
	rc := new(ReadCloser)
	var err error
	if rc.ImageFile, err = imgfmt.OpenImage(name, rc.Disk.init); err != nil {
		return nil, err
	}
	return rc, nil
}

// Table returns the disk's partition table. The caller must not change it.
func (d *Disk) Table() *Table { return d.table }

// Size returns the disk's size in bytes.
func (d *Disk) Size() int64 { return d.size }

// Partition returns the used slot index (1-based, as Entry.Index numbers
// it) as a section of the disk; reading the bytes of a partition that
// runs past the end of a cut image fails with imgfmt.ErrTruncated. An index the table does not use is an
// error wrapping fs.ErrNotExist.
func (d *Disk) Partition(index int) (*io.SectionReader, error) {
	e, ok := d.entry(index)
	if !ok {
		return nil, fmt.Errorf("mkimg: %s table has no partition %d: %w", d.table.Scheme, index, fs.ErrNotExist)
	}
	return d.section(e), nil
}

// section returns partition e's bytes. Where e runs past the disk's end
// (a cut image), a read of the missing bytes fails with an error wrapping
// imgfmt.ErrTruncated rather than ending early, so that they are not
// taken for the partition's end.
func (d *Disk) section(e *Entry) *io.SectionReader {
	r := d.r
	if e.Start+e.Size > d.size {
		r = imgfmt.CutReader(r, d.size)
	}
	return io.NewSectionReader(r, e.Start, e.Size)
}

// entry returns the table's entry for slot index.
func (d *Disk) entry(index int) (*Entry, bool) {
	for i := range d.table.Partitions {
		if d.table.Partitions[i].Index == index {
			return &d.table.Partitions[i], true
		}
	}
	return nil, false
}
