package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"sync"
)

// Errors returned by this package.
var (
	// ErrUnknownFormat reports a file that no registered format recognises.
	ErrUnknownFormat = errors.New("inspect: unknown format")
)

// HeadSize is how many leading bytes of a file Format.Match sees: enough
// for an FFS superblock at byte 65536.
const HeadSize = 65536 + 8192

// A Field is one field of a structure in an image or archive.
type Field struct {
	Path         string     // the structure or file: "boot sector", "/DIR/A.TXT", "b.o"
	Name         string     // the field, by its specification's name where it has one
	Offset, Size int64      // where it is; Offset -1 when it is spread over the file
	Value        string     // its value in words
	Spans        [][2]int64 // for spread fields: the [start, end) ranges it covers
}

// A Format is a kind of file that inspect can open and describe.
type Format struct {
	// Name is the format's short name: "msdos", "ffs", "ar".
	Name string
	// Match reports whether head, the first HeadSize bytes of a file (fewer
	// for a shorter file), starts a file of this format.
	Match func(head []byte) bool
	// Open opens a file of this format as a file system.
	Open func(r io.ReaderAt, size int64) (fs.FS, error)
	// Describe returns the format's extra listing column for a file, from
	// the fs.FileInfo its FS returns (for example the FAT short name).
	Describe func(fi fs.FileInfo) string
	// Fields describes the file field by field. Each (Path, Name) pair must
	// appear at most once.
	Fields func(r io.ReaderAt, size int64) ([]Field, error)
	// Summary returns one line about the file (FAT type, UFS version,
	// archive layout); it may be nil.
	Summary func(fsys fs.FS) string
}

var (
	mu      sync.RWMutex
	formats []*Format
)

// Register adds a format. Formats are tried in registration order.
// Registering a name twice panics.
func Register(f Format) {
	mu.Lock()
	defer mu.Unlock()
	for _, g := range formats {
		if g.Name == f.Name {
			panic("inspect: format " + f.Name + " registered twice")
		}
	}
	formats = append(formats, &f)
}

// Formats returns the names of the registered formats.
func Formats() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.Name
	}
	return names
}

// Detect returns the format of the file in r (size bytes), or nil.
func Detect(r io.ReaderAt, size int64) *Format {
	head := make([]byte, min(size, HeadSize))
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	mu.RLock()
	defer mu.RUnlock()
	for _, f := range formats {
		if f.Match(head) {
			return f
		}
	}
	return nil
}

// Open detects the format of r and opens it as a file system.
func Open(r io.ReaderAt, size int64) (fs.FS, *Format, error) {
	f := Detect(r, size)
	if f == nil {
		return nil, nil, ErrUnknownFormat
	}
	fsys, err := f.Open(r, size)
	if err != nil {
		return nil, f, err
	}
	return fsys, f, nil
}

// hasPrefix reports whether head starts with any of the prefixes.
func hasPrefix(head []byte, prefixes ...string) bool {
	for _, p := range prefixes {
		if bytes.HasPrefix(head, []byte(p)) {
			return true
		}
	}
	return false
}

// hexOff formats an offset as "0x1fe".
func hexOff(off int64) string { return "0x" + strconv.FormatInt(off, 16) }

// sizeString formats a byte count for people.
func sizeString(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 10<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
