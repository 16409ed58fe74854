package cd9660

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// The interfaces of io/fs that FS implements.
var (
	_ fs.ReadDirFS  = (*FS)(nil)
	_ fs.ReadFileFS = (*FS)(nil)
	_ fs.StatFS     = (*FS)(nil)
	_ fs.ReadLinkFS = (*FS)(nil)
)

var (
	errIsDir      = imgfmt.ErrIsDir
	errNotDir     = errors.New("not a directory")
	errNotSymlink = errors.New("not a symbolic link")
)

// lookup resolves name to its entry, following symbolic links in every
// element, and in the last one only if follow is set. An absolute link
// target is taken from the image's root.
func (f *FS) lookup(op, name string, follow bool) (*Entry, error) {
	t := imgfmt.Tree[*Entry]{Root: f.rootEntry, Child: child, IsLink: isLink, ReadLink: readLink}
	return t.Lookup(op, name, follow)
}

// rootEntry returns the root directory of the FS's tree.
func (f *FS) rootEntry() (*Entry, error) { return f.root, nil }

// child returns the entry name of directory dir.
func child(dir *Entry, name string) (*Entry, error) {
	if !dir.dir {
		return nil, fs.ErrNotExist
	}
	if dir.kidsErr != nil {
		return nil, dir.kidsErr
	}
	for _, k := range dir.kids {
		if k.Name == name {
			return k, nil
		}
	}
	return nil, fs.ErrNotExist
}

// isLink reports whether e is a symbolic link.
func isLink(e *Entry) bool { return e.mode()&fs.ModeSymlink != 0 }

// readLink returns the target of the symbolic link e.
func readLink(e *Entry) (string, error) { return e.Link(), nil }

// Open opens the named file or directory, following symbolic links.
func (f *FS) Open(name string) (fs.File, error) {
	e, err := f.lookup("open", name, true)
	if err != nil {
		return nil, err
	}
	fi := &fileInfo{name: path.Base(name), e: e}
	if e.dir {
		return &dir{DirReader: imgfmt.NewDirReader(fi.name, dirEntries(e.kids)), fi: fi}, nil
	}
	if e.RockRidge != nil && e.RockRidge.Sparse {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errSparse}
	}
	x := &file{fsys: f, fi: fi}
	if err := x.setReader(); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return x, nil
}

// setReader sets the FileReader of x: the recorded bytes, or what a
// zisofs file's blocks decode to.
func (x *file) setReader() error {
	e := x.fi.e
	zp, compressed, err := e.zisofs()
	if err != nil {
		return err
	}
	if !compressed {
		x.FileReader = imgfmt.NewFileReader(x.fi.name, x.size(), x.readAt)
		return nil
	}
	at := int64(0)
	if len(e.extents) > 0 {
		at = e.extents[0].off
	}
	z, err := openZisofs(readerAtFunc(x.readAt), e.Size, at, zp)
	if err != nil {
		return err
	}
	x.zisofs = true
	x.FileReader = imgfmt.NewFileReader(x.fi.name, zp.fileSize(), z.readAt)
	return nil
}

var errSparse = fmt.Errorf("%w: Rock Ridge sparse file (SF)", ErrUnsupported)

// Stat returns the fs.FileInfo of name, following symbolic links.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	e, err := f.lookup("stat", name, true)
	if err != nil {
		return nil, err
	}
	return &fileInfo{name: path.Base(name), e: e}, nil
}

// Lstat returns the fs.FileInfo of name without following a final
// symbolic link.
func (f *FS) Lstat(name string) (fs.FileInfo, error) {
	e, err := f.lookup("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return &fileInfo{name: path.Base(name), e: e}, nil
}

// ReadLink returns the target of the symbolic link name, as its Rock
// Ridge SL entries record it.
func (f *FS) ReadLink(name string) (string, error) {
	e, err := f.lookup("readlink", name, false)
	if err != nil {
		return "", err
	}
	if e.mode()&fs.ModeSymlink == 0 {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: errNotSymlink}
	}
	return e.Link(), nil
}

// Entry returns what the directory records of name hold, not following
// a final symbolic link.
func (f *FS) Entry(name string) (*Entry, error) {
	e, err := f.lookup("entry", name, false)
	if err != nil {
		return nil, err
	}
	c := *e
	c.kids, c.recOffs, c.extents = nil, slices.Clone(e.recOffs), slices.Clone(e.extents)
	if e.RockRidge != nil {
		rr := *e.RockRidge
		c.RockRidge = &rr
	}
	return &c, nil
}

// ReadDir returns the entries of directory name sorted by name.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := f.lookup("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if !e.dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errNotDir}
	}
	out := dirEntries(e.kids)
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// ReadFile returns the contents of the regular file name.
func (f *FS) ReadFile(name string) ([]byte, error) {
	fl, err := f.Open(name)
	if err != nil {
		return nil, err
	}
	defer fl.Close()
	x, ok := fl.(*file)
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errIsDir}
	}
	if x.zisofs {
		return readGrowing(x, x.fi.Size())
	}
	size := x.size()
	if size > f.size && size <= f.volumeBytes() {
		// An image cut short: the buffer grows only with what is read,
		// and the read fails where the image ends.
		return readGrowing(x, size)
	}
	if size > f.size {
		return nil, &fs.PathError{Op: "read", Path: name, Err: formatErr(-1, "", "file of %d bytes in an image of %d", size, f.size)}
	}
	b := make([]byte, size)
	if _, err := x.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}

// readGrowing reads all of r, a file of size bytes whose size the image
// does not bound (zisofs blocks of no bytes stand for any number of
// zeros): the buffer grows with what is read, from at most 1 MiB, so that
// memory follows the bytes decoded, never a size read from the image.
func readGrowing(r io.Reader, size int64) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, min(size, 1<<20)))
	if _, err := io.Copy(buf, r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// dirEntries returns the fs.DirEntry values of entries.
func dirEntries(list []*Entry) []fs.DirEntry {
	out := make([]fs.DirEntry, len(list))
	for i, k := range list {
		out[i] = fs.FileInfoToDirEntry(&fileInfo{name: k.Name, e: k})
	}
	return out
}

// fileInfo is the fs.FileInfo of an entry.
type fileInfo struct {
	name string
	e    *Entry
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Mode() fs.FileMode  { return fi.e.mode() }
func (fi *fileInfo) ModTime() time.Time { return fi.e.modTime() }
func (fi *fileInfo) IsDir() bool        { return fi.e.dir }
func (fi *fileInfo) Sys() any           { return fi.e }

// Size returns the Data Length of a file or directory, the uncompressed
// size of a zisofs file the reader decodes, and the length of a symbolic
// link's target, as lstat(2) gives it.
func (fi *fileInfo) Size() int64 {
	if fi.e.mode()&fs.ModeSymlink != 0 {
		return int64(len(fi.e.Link()))
	}
	if p, ok, err := fi.e.zisofs(); ok && err == nil {
		return p.fileSize()
	}
	return fi.e.Size
}

// file is an open file that is not a directory. Only regular files have
// data; devices, fifos, sockets and symbolic links read as empty.
type file struct {
	imgfmt.FileReader
	fsys   *FS
	fi     *fileInfo
	zisofs bool // FileReader decodes zisofs blocks
}

func (x *file) Stat() (fs.FileInfo, error) { return x.fi, nil }

// size returns the number of bytes recorded for the file.
func (x *file) size() int64 {
	if !x.fi.e.mode().IsRegular() {
		return 0
	}
	return x.fi.e.Size
}

// readAt reads the file's bytes at off from its extents, for its
// FileReader.
func (x *file) readAt(want []byte, off int64) (int, error) {
	n := 0
	for _, ext := range x.fi.e.extents {
		if len(want) == n {
			break
		}
		if off >= ext.n {
			off -= ext.n
			continue
		}
		m, err := x.fsys.readExtent(ext, want[n:], off)
		n += m
		if err != nil {
			return n, err
		}
		off = 0
	}
	return n, nil
}

// readExtent reads into p the bytes of extent x from byte off of it, up to
// its end; it returns how many it read.
func (f *FS) readExtent(x extent, p []byte, off int64) (int, error) {
	p = p[:min(int64(len(p)), x.n-off)]
	n := 0
	for n < len(p) {
		pos, run := x.off+off, x.n-off
		if x.unit != 0 {
			unit := off / x.unit
			pos = x.off + unit*(x.unit+x.gap) + off%x.unit
			run = x.unit - off%x.unit
		}
		chunk := p[n:][:min(int64(len(p)-n), run)]
		if err := f.readAt(chunk, pos); err != nil {
			return n, err
		}
		n += len(chunk)
		off += int64(len(chunk))
	}
	return n, nil
}

// dir is an open directory; its DirReader lists its entries in the order
// of its records.
type dir struct {
	imgfmt.DirReader
	fi *fileInfo
}

func (d *dir) Stat() (fs.FileInfo, error) { return d.fi, nil }
