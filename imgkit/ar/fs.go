package ar

import (
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// The Reader, and so the ReadCloser, is an io/fs.FS over the archive's
// members, as DETAILS.md describes.
var (
	_ fs.FS        = (*Reader)(nil)
	_ fs.ReadDirFS = (*Reader)(nil)
	_ fs.StatFS    = (*Reader)(nil)
	_ fs.ReadDirFS = (*ReadCloser)(nil)
	_ fs.StatFS    = (*ReadCloser)(nil)
)

// fsTree maps each exposed path to a member index (files) or to -1
// (directories), and each directory to its entries.
type fsTree struct {
	files map[string]int
	dirs  map[string][]string // directory → child names in archive order
}

// tree returns the path tree, building it on first use. A Reader may be
// used from several goroutines at once, so the tree is built once under
// ar.fstOnce, as archive/zip builds its file list.
func (ar *Reader) tree() *fsTree {
	ar.fstOnce.Do(func() { ar.fst = ar.buildTree() })
	return ar.fst
}

// buildTree maps the members to the paths the io/fs.FS exposes.
func (ar *Reader) buildTree() *fsTree {
	t := &fsTree{files: map[string]int{}, dirs: map[string][]string{".": nil}}
	count := map[string]int{}
	for i, m := range ar.members {
		count[m.Name]++
		p := m.Name
		if n := count[m.Name]; n > 1 {
			p += ";" + strconv.Itoa(n)
		}
		if !fs.ValidPath(p) || p == "." {
			continue
		}
		if _, dup := t.files[p]; dup {
			continue
		}
		if _, isDir := t.dirs[p]; isDir {
			continue
		}
		// Make sure the parents exist and are not files.
		ok := true
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, f := t.files[d]; f {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		t.files[p] = i
		child := p
		for {
			d := path.Dir(child)
			_, exists := t.dirs[d]
			t.dirs[d] = append(t.dirs[d], path.Base(child))
			if exists || d == "." {
				break
			}
			child = d
		}
	}
	return t
}

// Open opens the member or directory name.
func (ar *Reader) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	t := ar.tree()
	if i, ok := t.files[name]; ok {
		m := &ar.members[i]
		f := &memberFile{info: fileInfo{name: path.Base(name), m: m}}
		var ra io.ReaderAt = ar.r
		off := m.DataOffset
		if off < 0 {
			file, thin, err := ar.openThin(m)
			if err != nil {
				return nil, &fs.PathError{Op: "open", Path: name, Err: err}
			}
			f.file, ra, off = file, thin, 0
		}
		f.FileReader = imgfmt.NewFileReader(f.info.name, m.Size, io.NewSectionReader(ra, off, m.Size).ReadAt)
		return f, nil
	}
	if _, ok := t.dirs[name]; ok {
		ents, _ := ar.ReadDir(name)
		return &dirFile{DirReader: imgfmt.NewDirReader(path.Base(name), ents), info: fileInfo{name: path.Base(name), dir: true}}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// Stat describes the member or directory name.
func (ar *Reader) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	t := ar.tree()
	if i, ok := t.files[name]; ok {
		return fileInfo{name: path.Base(name), m: &ar.members[i]}, nil
	}
	if _, ok := t.dirs[name]; ok {
		return fileInfo{name: path.Base(name), dir: true}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// ReadDir lists directory name, sorted by name as fs.ReadDirFS requires.
func (ar *Reader) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	t := ar.tree()
	kids, ok := t.dirs[name]
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	seen := map[string]bool{}
	var ents []fs.DirEntry
	for _, k := range kids {
		if seen[k] {
			continue
		}
		seen[k] = true
		full := path.Join(name, k)
		info, _ := ar.Stat(full)
		ents = append(ents, fs.FileInfoToDirEntry(info))
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}

// fileInfo is the fs.FileInfo of a member or a synthesised directory.
type fileInfo struct {
	name string
	m    *Member
	dir  bool
}

func (fi fileInfo) Name() string { return fi.name }
func (fi fileInfo) Size() int64 {
	if fi.dir {
		return 0
	}
	return fi.m.Size
}

// Mode returns a member's permission, setuid, setgid and sticky bits of
// ar_mode, as a regular file's, and 0755 for a directory.
func (fi fileInfo) Mode() fs.FileMode {
	if fi.dir {
		return fs.ModeDir | 0o755
	}
	m := fs.FileMode(fi.m.Mode & 0o777)
	for _, b := range [...]struct {
		bit  int64
		mode fs.FileMode
	}{{0o4000, fs.ModeSetuid}, {0o2000, fs.ModeSetgid}, {0o1000, fs.ModeSticky}} {
		if fi.m.Mode&b.bit != 0 {
			m |= b.mode
		}
	}
	return m
}
func (fi fileInfo) ModTime() time.Time {
	if fi.dir {
		return time.Unix(0, 0).UTC()
	}
	return fi.m.ModTime
}
func (fi fileInfo) IsDir() bool { return fi.dir }

// Sys returns the *Member for a member, nil for a directory.
func (fi fileInfo) Sys() any {
	if fi.dir {
		return nil
	}
	return fi.m
}

// memberFile is an open member: a section of the archive, or of a thin
// member's file, which Close closes.
type memberFile struct {
	imgfmt.FileReader
	info fileInfo
	file fs.File // a thin member's file, else nil
}

func (f *memberFile) Stat() (fs.FileInfo, error) { return f.info, nil }

// Close closes the member and, for a thin member, its file.
func (f *memberFile) Close() error {
	if err := f.FileReader.Close(); err != nil {
		return err
	}
	if f.file == nil {
		return nil
	}
	return f.file.Close()
}

// dirFile is an open directory.
type dirFile struct {
	imgfmt.DirReader
	info fileInfo
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
