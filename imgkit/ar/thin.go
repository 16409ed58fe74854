package ar

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// ErrThinMember is wrapped by the errors of reading a thin archive's member
// whose file cannot be read as the archive's header describes it: the file
// is missing (the error then also wraps fs.ErrNotExist), is not a regular
// file, has another size than the header says, or is named by a path that
// the member file system cannot look up.
var ErrThinMember = errors.New("ar: thin member")

// openMemberFunc opens the file that names, a thin archive's member name as
// stored (slash-separated), refers to.
type openMemberFunc func(name string) (fs.File, error)

// thinFiles holds the member files that Section opened, each with its
// checked reader, for later calls of Section and for Close.
type thinFiles struct {
	mu    sync.Mutex
	files map[int]thinFile
}

// thinFile is an open member file and the reader openThin made for it.
type thinFile struct {
	f  fs.File
	ra io.ReaderAt
}

// NewReaderDir reads the archive of size bytes in r as NewReader does, and
// reads the members of a thin archive from the files they name, as GNU ar
// and llvm-ar do: a relative name is resolved against dir, the directory
// that holds the archive, and may climb out of it with ".." (GNU ar stores
// such names for members outside the archive's directory); an absolute
// name is used as it is. Close releases the member files Section opened.
func NewReaderDir(r io.ReaderAt, size int64, dir string) (*Reader, error) {
	ar, err := NewReader(r, size)
	if err != nil {
		return nil, err
	}
	ar.openMember = dirOpener(dir)
	return ar, nil
}

// NewReaderFS reads the archive of size bytes in r as NewReader does, and
// reads the members of a thin archive from members, a file system rooted
// at the archive's directory. An fs.FS holds only unrooted paths without
// ".." elements, so a member whose name is absolute or climbs out of the
// archive's directory cannot be read (ErrThinMember); NewReaderDir reads
// those as GNU ar does. The files members opens must implement io.ReaderAt
// (os.DirFS's and testing/fstest.MapFS's do). Close releases the member
// files Section opened.
func NewReaderFS(r io.ReaderAt, size int64, members fs.FS) (*Reader, error) {
	ar, err := NewReader(r, size)
	if err != nil {
		return nil, err
	}
	ar.openMember = fsOpener(members)
	return ar, nil
}

// dirOpener opens member files on the host file system relative to dir.
// It checks with stat that the name is a regular file before it opens it,
// so that a member naming a FIFO or a device never blocks or reads a
// stream.
func dirOpener(dir string) openMemberFunc {
	return func(name string) (fs.File, error) {
		p := filepath.FromSlash(name)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, errNotRegular
		}
		return os.Open(p)
	}
}

// fsOpener opens member files in fsys, checking as dirOpener does that
// each is a regular file before it is opened.
func fsOpener(fsys fs.FS) openMemberFunc {
	return func(name string) (fs.File, error) {
		if !fs.ValidPath(name) {
			return nil, errors.New("absolute or climbing out of the archive's directory, so not in its file system")
		}
		st, err := fs.Stat(fsys, name)
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, errNotRegular
		}
		return fsys.Open(name)
	}
}

var errNotRegular = errors.New("not a regular file")

// thinError is the ErrThinMember error for member name: what went wrong,
// err, without the path that an fs.PathError would repeat.
func thinError(name string, err error) error {
	return fmt.Errorf("%w %s: %w", ErrThinMember, name, unwrapPath(err))
}

// openThin opens the file of thin member m and returns it with a reader of
// exactly m.Size bytes over it. The file's size must equal the header's:
// GNU ar 2.40 fails on a shorter file and reads the first Size bytes of a
// longer one, llvm-ar 14 reads the whole file whatever the header says;
// either way a file of another size is not the file the archive was made
// of (the archive is stale), and ls, the symbol index and a linker all
// trust the header, so both are refused here.
func (ar *Reader) openThin(m *Member) (fs.File, io.ReaderAt, error) {
	if ar.openMember == nil {
		return nil, nil, fmt.Errorf("%w: %s", ErrThin, m.Name)
	}
	f, err := ar.openMember(m.Name)
	if err != nil {
		return nil, nil, thinError(m.Name, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, thinError(m.Name, err)
	}
	switch {
	case !st.Mode().IsRegular():
		err = errNotRegular
	case st.Size() != m.Size:
		err = fmt.Errorf("file of %d bytes where the archive's header says %d: the archive is stale", st.Size(), m.Size)
	}
	ra, ok := f.(io.ReaderAt)
	if err == nil && !ok {
		err = errors.New("member file system's file has no ReadAt")
	}
	if err != nil {
		f.Close()
		return nil, nil, thinError(m.Name, err)
	}
	return f, &sizedReaderAt{r: ra, size: m.Size, name: m.Name}, nil
}

// sizedReaderAt reads a thin member's file of size bytes and turns an end
// of file before size, a file that shrank after it was opened, into an
// error instead of a short member.
type sizedReaderAt struct {
	r    io.ReaderAt
	size int64
	name string
}

func (s *sizedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := s.r.ReadAt(p, off)
	if err == io.EOF && off+int64(n) < s.size && n < len(p) {
		return n, thinError(s.name, fmt.Errorf("file ends at byte %d of the %d its header says: %w", off+int64(n), s.size, io.ErrUnexpectedEOF))
	}
	return n, err
}

// thinSection returns a reader over thin member i's data. The member file
// is opened and checked on the first call for i and stays open, shared by
// the readers of later calls, until Close.
func (ar *Reader) thinSection(i int) (*io.SectionReader, error) {
	m := &ar.members[i]
	ar.thinOpen.mu.Lock()
	defer ar.thinOpen.mu.Unlock()
	tf, ok := ar.thinOpen.files[i]
	if !ok {
		f, ra, err := ar.openThin(m)
		if err != nil {
			return nil, err
		}
		if ar.thinOpen.files == nil {
			ar.thinOpen.files = map[int]thinFile{}
		}
		tf = thinFile{f: f, ra: ra}
		ar.thinOpen.files[i] = tf
	}
	return io.NewSectionReader(tf.ra, 0, m.Size), nil
}

// Close closes the member files of a thin archive that Section opened;
// readers Section returned for them fail afterwards. It is safe to call on
// any Reader and more than once.
func (ar *Reader) Close() error {
	ar.thinOpen.mu.Lock()
	defer ar.thinOpen.mu.Unlock()
	var first error
	for i, tf := range ar.thinOpen.files {
		if err := tf.f.Close(); err != nil && first == nil {
			first = err
		}
		delete(ar.thinOpen.files, i)
	}
	return first
}

// isThinFile reports whether the file at the host path p is the file of
// thin member i, which Section has opened.
func (ar *Reader) isThinFile(i int, p string) bool {
	ar.thinOpen.mu.Lock()
	tf, ok := ar.thinOpen.files[i]
	ar.thinOpen.mu.Unlock()
	if !ok {
		return false
	}
	mst, err := tf.f.Stat()
	if err != nil {
		return false
	}
	ost, err := os.Stat(p)
	return err == nil && os.SameFile(mst, ost)
}
