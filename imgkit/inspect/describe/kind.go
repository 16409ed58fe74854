package describe

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// HeadSize is how many leading bytes of a file Kind.Match sees: enough
// for an FFS superblock at byte 65536 (SBLOCK_UFS2) and its 8192 bytes
// (SBLOCKSIZE).
const HeadSize = 65536 + 8192

// A Kind is a file format that tools can recognise, open and describe:
// what a format package returns from its Describe function.
type Kind struct {
	// Name is the format's short name: "msdos", "ffs", "ar". It is the
	// makefs(8) type name where there is one.
	Name string
	// Match reports whether head, the first HeadSize bytes of a file (fewer
	// for a shorter file), starts a file of this format.
	Match func(head []byte) bool
	// Open opens a file of this format as a file system.
	Open func(r io.ReaderAt, size int64) (fs.FS, error)
	// Fields describes the file field by field; it may be nil. Each
	// (Path, Name) pair must appear at most once.
	Fields func(r io.ReaderAt, size int64) ([]Field, error)
	// Summary returns one line about a file system Open returned (FAT
	// type, UFS version, archive layout); it may be nil.
	Summary func(fsys fs.FS) string
	// Column returns the format's extra listing column for a file, from
	// the fs.FileInfo its FS returns (the FAT short name, the ar member's
	// header offset, the FFS inode number); it may be nil.
	Column func(fi fs.FileInfo) string
	// Owner returns the numeric owner and group the format stores for a
	// file, from the fs.FileInfo its FS returns (an FFS inode's di_uid
	// and di_gid, a Rock Ridge PX entry's, an ar member's ar_uid and
	// ar_gid), with ok false for a file that has none (every file of a
	// format without owners, such as FAT). It may be nil: no file has an
	// owner.
	Owner func(fi fs.FileInfo) (uid, gid uint32, ok bool)
}

// Errors of Kind.Check.
var (
	ErrNoName  = errors.New("describe: format has no Name")
	ErrNoMatch = errors.New("describe: format has no Match")
	ErrNoOpen  = errors.New("describe: format has no Open")
)

// Check reports whether f has what every format must have: a Name, a
// Match and an Open. Fields, Summary, Column and Owner are optional.
func (f *Kind) Check() error {
	switch {
	case f.Name == "":
		return ErrNoName
	case f.Match == nil:
		return fmt.Errorf("%w (format %q)", ErrNoMatch, f.Name)
	case f.Open == nil:
		return fmt.Errorf("%w (format %q)", ErrNoOpen, f.Name)
	}
	return nil
}

// OpenAs returns open, a format's own Open that returns its FS type F, as
// a Kind's Open:
//
//	Open: describe.OpenAs(Open),
//
// When open fails, the fs.FS it returns is nil.
func OpenAs[F fs.FS](open func(r io.ReaderAt, size int64) (F, error)) func(r io.ReaderAt, size int64) (fs.FS, error) {
	return func(r io.ReaderAt, size int64) (fs.FS, error) {
		f, err := open(r, size)
		if err != nil {
			return nil, err
		}
		return f, nil
	}
}

// SummaryOf returns summary, which describes the format's own FS type F,
// as a Kind's Summary: for an fs.FS that is not an F it is "".
func SummaryOf[F fs.FS](summary func(f F) string) func(fsys fs.FS) string {
	return func(fsys fs.FS) string {
		f, ok := fsys.(F)
		if !ok {
			return ""
		}
		return summary(f)
	}
}

// OwnerOf returns owner, which reads a file's owner and group from the *S
// its fs.FileInfo's Sys gives, as a Kind's Owner: for a FileInfo whose
// Sys is not a non-nil *S, ok is false.
func OwnerOf[S any](owner func(s *S) (uid, gid uint32, ok bool)) func(fi fs.FileInfo) (uid, gid uint32, ok bool) {
	return func(fi fs.FileInfo) (uint32, uint32, bool) {
		s, isS := fi.Sys().(*S)
		if !isS || s == nil {
			return 0, 0, false
		}
		return owner(s)
	}
}

// ColumnOf returns column, which describes a file by the *S its
// fs.FileInfo's Sys gives (the format's entry, inode or member), as a
// Kind's Column: for a FileInfo whose Sys is not a non-nil *S it is "".
func ColumnOf[S any](column func(s *S) string) func(fi fs.FileInfo) string {
	return func(fi fs.FileInfo) string {
		s, ok := fi.Sys().(*S)
		if !ok || s == nil {
			return ""
		}
		return column(s)
	}
}
