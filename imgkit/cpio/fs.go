package cpio

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// The interfaces of io/fs that the Reader implements.
var (
	_ fs.ReadDirFS  = (*Reader)(nil)
	_ fs.StatFS     = (*Reader)(nil)
	_ fs.ReadLinkFS = (*Reader)(nil)
)

func sortStrings(s []string) { slices.Sort(s) }

// fileInfo is the fs.FileInfo of a node; Sys returns its *Entry (nil for
// a directory only implied by other names).
type fileInfo struct {
	name string
	mode fs.FileMode
	size int64
	mod  time.Time
	e    *Entry
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.size }
func (fi *fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi *fileInfo) ModTime() time.Time { return fi.mod }
func (fi *fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi *fileInfo) Sys() any           { return fi.e }

// info returns the fs.FileInfo of n under the name name.
func (rd *Reader) info(n *node, name string) *fileInfo {
	fi := &fileInfo{name: name, mode: fs.ModeDir | 0o755, mod: time.Unix(0, 0).UTC()}
	if n.entry >= 0 {
		e := &rd.entries[n.entry]
		fi.e = e
		fi.mode = FileMode(e.Mode)
		fi.mod = time.Unix(e.Mtime, 0).UTC()
		fi.size = rd.fileSize(n)
	}
	return fi
}

// Open opens the named file or directory, following symbolic links.
func (rd *Reader) Open(name string) (fs.File, error) {
	n, err := rd.lookup("open", name, true)
	if err != nil {
		return nil, err
	}
	fi := rd.info(n, path.Base(name))
	if fi.IsDir() {
		return &dirFile{DirReader: imgfmt.NewDirReader(fi.name, rd.dirEntries(n)), fi: fi}, nil
	}
	f := &file{fi: fi}
	var sr interface {
		ReadAt([]byte, int64) (int, error)
	}
	if fi.mode.IsRegular() {
		sr = rd.Section(n.entry)
	} else {
		sr = emptyReader{}
	}
	f.FileReader = imgfmt.NewFileReader(fi.name, f.fi.size, sr.ReadAt)
	return f, nil
}

// Stat returns the fs.FileInfo of name, following symbolic links.
func (rd *Reader) Stat(name string) (fs.FileInfo, error) {
	n, err := rd.lookup("stat", name, true)
	if err != nil {
		return nil, err
	}
	return rd.info(n, path.Base(name)), nil
}

// Lstat returns the fs.FileInfo of name without following a final
// symbolic link.
func (rd *Reader) Lstat(name string) (fs.FileInfo, error) {
	n, err := rd.lookup("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return rd.info(n, path.Base(name)), nil
}

// ReadLink returns the target of the symbolic link name.
func (rd *Reader) ReadLink(name string) (string, error) {
	n, err := rd.lookup("readlink", name, false)
	if err != nil {
		return "", err
	}
	if n.entry < 0 || rd.entries[n.entry].Mode&ModeType != ModeSymlink {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	return rd.entries[n.entry].Link, nil
}

// ReadDir returns the entries of the directory name sorted by name.
func (rd *Reader) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := rd.lookup("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if !rd.isDir(n) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errNotDir}
	}
	return rd.dirEntries(n), nil
}

// file is an open file of the FS; special files read as empty.
type file struct {
	imgfmt.FileReader
	fi *fileInfo
}

func (f *file) Stat() (fs.FileInfo, error) { return f.fi, nil }

// dirFile is an open directory of the FS.
type dirFile struct {
	imgfmt.DirReader
	fi *fileInfo
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.fi, nil }

type emptyReader struct{}

func (emptyReader) ReadAt(p []byte, off int64) (int, error) { return 0, errEOF }

var (
	errEOF    = io.EOF
	errNotDir = errors.New("not a directory")
)
