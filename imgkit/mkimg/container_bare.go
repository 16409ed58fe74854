package mkimg

import (
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"io"
	"io/fs"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// A container (qcow2, vhd, vhdx, vmdk, ...) may hold a disk with no
// partition table, only a file system, as qemu-img convert makes of a
// FAT or ext2 image. Such a disk is not a Disk (NewReader finds no
// table), but Describe's Open and Fields read the file system it holds,
// as a partition's would be read.

// bareFS is the file system of a container's disk that has no partition
// table: the file system's own FS, whose fs.FileInfo values are
// PartitionFileInfo values naming its format, so that the disk format's
// listing column is that format's.
type bareFS struct {
	fsys      fs.FS
	kind      *describe.Kind
	container string // the container format's name
	p         *part  // what innerFile needs: the format, and "." as the name
}

// openBare opens the file system of a container's disk that has no
// partition table. r (size bytes) is the container's file; noTable is
// the error NewReader gave, which a file that is no container gives
// back. A disk of no format detect knows, or one whose format's Open
// fails, gives an error saying which file system it holds when
// imgfmt.Identify knows it.
func openBare(r io.ReaderAt, size int64, detect Detector, noTable error) (*bareFS, vdisk.Reader, error) {
	c, name, err := openContainer(r, size)
	if err != nil {
		return nil, nil, err
	}
	if c == nil || detect == nil {
		return nil, nil, noTable
	}
	vr, vsize := io.ReaderAt(c), c.Size()
	unsupported := func() error {
		if f, ok := imgfmt.Identify(vr, vsize); ok {
			return fmt.Errorf("%w: the %s container holds %s, which fixturegen does not read yet", ErrNoTable, name, f.What)
		}
		return nil
	}
	k := detect(vr, vsize)
	if k == nil || k.Name == DiskFormatName {
		if err := unsupported(); err != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("%w: the %s container holds no file system of a known format either", ErrNoTable, name)
	}
	fsys, err := k.Open(vr, vsize)
	if err != nil {
		// A format whose match is loose (a FAT boot sector's) may take
		// another file system's first sector for its own (NTFS's).
		if err := unsupported(); err != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("mkimg: the %s container holds no partition table but a %s file system: %w", name, k.Name, err)
	}
	return &bareFS{fsys: fsys, kind: k, container: name, p: &part{name: ".", kind: k}}, c, nil
}

// openFSOrBare is Describe's Open: the disk's FS, or for a container
// whose disk has no partition table the file system that disk holds.
func openFSOrBare(r io.ReaderAt, size int64, detect Detector) (fs.FS, error) {
	d, err := NewReader(r, size)
	if errors.Is(err, ErrNoTable) {
		b, _, err := openBare(r, size, detect, err)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	if err != nil {
		return nil, err
	}
	return d.FS(detect), nil
}

// bareFields is Fields for a container whose disk has no partition
// table: the container's fields, then the file system's at their bytes
// in the container's file.
func bareFields(r io.ReaderAt, size int64, detect Detector, noTable error) ([]describe.Field, error) {
	b, c, err := openBare(r, size, detect, noTable)
	if err != nil {
		return nil, err
	}
	var inner []describe.Field
	if b.kind.Fields != nil {
		if inner, err = b.kind.Fields(c, c.Size()); err != nil {
			return nil, err
		}
	}
	return containerFields(c, inner), nil
}

// bareSummary says what the container holds, and the file system's own
// summary.
func bareSummary(b *bareFS) string {
	s := fmt.Sprintf("%s container, no partition table, %s", b.container, b.kind.Name)
	if b.kind.Summary != nil {
		if inner := b.kind.Summary(b.fsys); inner != "" {
			s += ": " + inner
		}
	}
	return s
}

// Open opens a file of the file system.
func (b *bareFS) Open(name string) (fs.File, error) {
	f, err := b.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return &innerFile{File: f, p: b.p}, nil
}

// ReadLink reads a symbolic link, where the file system can.
func (b *bareFS) ReadLink(name string) (string, error) { return fs.ReadLink(b.fsys, name) }

// Lstat returns a file's fs.FileInfo without following a symbolic link,
// where the file system can.
func (b *bareFS) Lstat(name string) (fs.FileInfo, error) {
	fi, err := fs.Lstat(b.fsys, name)
	if err != nil {
		return nil, err
	}
	return PartitionFileInfo{fi, b.kind}, nil
}
