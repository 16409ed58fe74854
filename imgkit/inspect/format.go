package inspect

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"sync"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// Errors returned by this package.
var (
	// ErrUnknownFormat reports a file that no registered format recognises.
	ErrUnknownFormat = errors.New("inspect: unknown format")
)

var (
	mu      sync.RWMutex
	formats []*describe.Kind
)

// Register adds a format, as its package's Describe function returns it.
// Formats are tried in registration order: this package registers msdos,
// ar, ffs, cd9660, ext and disks, so a format registered from another package's init
// is tried after them. Registering a name twice, or a format that fails
// describe.Kind.Check, panics.
func Register(f describe.Kind) {
	if err := f.Check(); err != nil {
		panic("inspect: " + strings.TrimPrefix(err.Error(), "describe: "))
	}
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

// Detect returns the format of the file in r (size bytes), the first whose
// Match accepts its first describe.HeadSize bytes, or nil.
func Detect(r io.ReaderAt, size int64) *describe.Kind {
	head := make([]byte, min(size, describe.HeadSize))
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

// Open detects the format of r and opens it as a file system. A file of
// no registered format is an error wrapping ErrUnknownFormat; when
// imgfmt.Identify names the file system or volume it holds (NTFS, ext4,
// squashfs, ...), the error is also an *imgfmt.UnsupportedError that
// says so.
func Open(r io.ReaderAt, size int64) (fs.FS, *describe.Kind, error) {
	f := Detect(r, size)
	if f == nil {
		if what, ok := imgfmt.Identify(r, size); ok {
			return nil, nil, fmt.Errorf("%w: %w", ErrUnknownFormat, &imgfmt.UnsupportedError{Foreign: what})
		}
		return nil, nil, ErrUnknownFormat
	}
	fsys, err := f.Open(r, size)
	if err != nil {
		return nil, f, err
	}
	return fsys, f, nil
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
