package mkimg

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// DiskFormatName is the name of the disk format Describe returns, as
// fixturegen diff and the registry's Formats list it.
const DiskFormatName = "disk"

// matchSize is the disk size Match's reader claims: the head it is given
// is all it can read, and the disk's real size is not known yet.
const matchSize = 1 << 50

// Describe returns the format contract of partitioned disks, for
// imgkit/inspect's registry: a file is a disk when ReadTable finds a
// table in its first describe.HeadSize bytes; it opens as Disk.FS; its
// fields are the table's and each partition's entry, named as the
// scheme's specification names them, then the fields of each partition's
// file system under /pN; its listing's column shows each partition's
// scheme, type, label, start, size and GUIDs, and inside a partition the
// column of the partition's format. detect finds a partition's format
// (inspect passes its own Detect).
func Describe(detect Detector) describe.Kind {
	return describe.Kind{
		Name:    DiskFormatName,
		Match:   Match,
		Open:    func(r io.ReaderAt, size int64) (fs.FS, error) { return openFSOrBare(r, size, detect) },
		Fields:  func(r io.ReaderAt, size int64) ([]describe.Field, error) { return Fields(r, size, detect) },
		Summary: anySummary,
		Column:  column,
		Owner:   owner,
	}
}

// anySummary is the summary of a disk's FS, or of the file system of a
// container's disk that has no partition table.
func anySummary(fsys fs.FS) string {
	switch f := fsys.(type) {
	case *diskFS:
		return summary(f)
	case *bareFS:
		return bareSummary(f)
	}
	return ""
}

// Match reports whether head, a disk's first bytes, begins a container
// format's file (qcow2, vhd, vmdk, ...) or holds a partition table that
// ReadTable would find, or one that is there but broken
// (ErrFormat): a protective MBR whose primary GPT header fails its
// checks is a disk, whose backup header Open reads or whose error Open
// reports, rather than a file of no known format.
func Match(head []byte) bool {
	if containerOf(head) != nil {
		return true
	}
	_, err := ReadTable(headReader(head), matchSize)
	return err == nil || errors.Is(err, ErrFormat)
}

// headReader reads head, and zeros past its end.
type headReader []byte

func (h headReader) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	if off < int64(len(h)) {
		n = copy(p, h[off:])
	}
	clear(p[n:])
	return len(p), nil
}

// summary says the scheme, sector size, partition count and disk GUID of
// a disk, and what its reader read past.
func summary(f *diskFS) string {
	t := f.d.table
	plural := "s"
	if len(t.Partitions) == 1 {
		plural = ""
	}
	s := fmt.Sprintf("%s, %d-byte sectors, %d partition%s", t.Scheme, t.SectorSize, len(t.Partitions), plural)
	for _, fl := range t.Fields {
		if fl.Name == "DiskGUID" {
			s += ", DiskGUID " + fl.Value
			break
		}
	}
	if len(t.Problems) > 0 {
		s += "; " + strings.Join(t.Problems, "; ")
	}
	return s
}

// column is the listing's column: a partition's scheme, type, label,
// start, size and GUIDs for pN, and within a partition its format's
// column.
func column(fi fs.FileInfo) string {
	switch v := fi.(type) {
	case PartitionFileInfo:
		if v.Format != nil && v.Format.Column != nil {
			return v.Format.Column(v.FileInfo)
		}
		return ""
	case partInfo:
		return EntryColumn(v.p.scheme, v.p.e)
	}
	return ""
}

// owner is the owner and group a partition's format stores for a file
// inside it.
func owner(fi fs.FileInfo) (uint32, uint32, bool) {
	if v, ok := fi.(PartitionFileInfo); ok && v.Format != nil && v.Format.Owner != nil {
		return v.Format.Owner(v.FileInfo)
	}
	return 0, 0, false
}

// EntryColumn describes a partition in one line as fixturegen ls shows
// it: the scheme, the type alias, the label when there is one, the start
// and size in bytes, the raw type when it differs from the alias, and
// the partition's GUID when the scheme has one:
//
//	gpt efi "EFI" start=17408 size=1048576 type=c12a7328-f81f-11d2-ba4b-00a0c93ec93b guid=0101...
func EntryColumn(scheme string, e *Entry) string {
	var b strings.Builder
	b.WriteString(scheme + " " + e.Type)
	if e.Label != "" {
		b.WriteString(" " + strconv.Quote(e.Label))
	}
	fmt.Fprintf(&b, " start=%d size=%d", e.Start, e.Size)
	if e.RawType != e.Type {
		b.WriteString(" type=" + e.RawType)
	}
	if e.GUID != "" {
		b.WriteString(" guid=" + e.GUID)
	}
	return b.String()
}

// Fields describes the disk in r (size bytes) field by field: its table's
// fields, each partition's entry, and each partition's contents — the
// fields of its file system, as detect's format describes them, moved to
// the partition's offset and put under /pN (a file /EFI/BOOT of partition
// 1 is /p1/EFI/BOOT, a structure such as the boot sector is "p1: boot
// sector"), or, for a partition of no known format, one "data" field
// /pN with its size and sum.
func Fields(r io.ReaderAt, size int64, detect Detector) ([]describe.Field, error) {
	return diskFields(r, size, detect, 0)
}

// diskFields is Fields for a disk depth levels inside another.
func diskFields(r io.ReaderAt, size int64, detect Detector, depth int) ([]describe.Field, error) {
	d, err := NewReader(r, size)
	if errors.Is(err, ErrNoTable) {
		return bareFields(r, size, detect, err)
	}
	if err != nil {
		return nil, err
	}
	t := d.table
	out := slices.Clone(t.Fields)
	for _, e := range t.Partitions {
		out = append(out, e.Fields...)
	}
	for i := range t.Partitions {
		e := &t.Partitions[i]
		inner, err := partitionFields(d, e, detect, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, inner...)
	}
	return containerFields(d.container, out), nil
}

// partitionFields describes the contents of partition e.
func partitionFields(d *Disk, e *Entry, detect Detector, depth int) ([]describe.Field, error) {
	name := "p" + strconv.Itoa(e.Index)
	sec := d.section(e)
	var inner []describe.Field
	var err error = ErrNoFS
	if detect != nil {
		if k := detect(sec, e.Size); k != nil {
			switch {
			case k.Name == DiskFormatName && nestable(e, depth):
				inner, err = diskFields(sec, e.Size, detect, depth+1)
			case k.Name != DiskFormatName && k.Fields != nil:
				inner, err = k.Fields(sec, e.Size)
			}
		}
	}
	if err != nil {
		sum, err := describe.SumRange(sec, 0, e.Size)
		if err != nil {
			return nil, fmt.Errorf("mkimg: reading %s partition %d: %w", d.table.Scheme, e.Index, err)
		}
		return []describe.Field{{Path: "/" + name, Name: "data", Offset: -1, Spans: [][2]int64{{e.Start, e.Start + e.Size}}, Value: describe.DataValue(e.Size, sum)}}, nil
	}
	for i := range inner {
		f := &inner[i]
		switch {
		case strings.HasPrefix(f.Path, "/"):
			f.Path = "/" + name + f.Path
		case f.Name == "data":
			f.Path = "/" + name + "/" + f.Path
		default:
			f.Path = name + ": " + f.Path
		}
		if f.Offset >= 0 {
			f.Offset += e.Start
		}
		spans := make([][2]int64, len(f.Spans))
		for j, s := range f.Spans {
			spans[j] = [2]int64{s[0] + e.Start, s[1] + e.Start}
		}
		f.Spans = spans
	}
	return inner, nil
}
