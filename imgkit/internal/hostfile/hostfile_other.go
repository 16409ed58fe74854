//go:build !unix

package hostfile

import "os"

// A File is a host file that Open opened: here an *os.File, this system
// having no named pipes that block an open.
type File struct{ *os.File }

// Open opens the host file path for reading.
func Open(path string) (File, error) {
	f, err := os.Open(path)
	return File{f}, err
}

// OpenOS opens the host file path for reading.
func OpenOS(path string) (*os.File, error) { return os.Open(path) }

// Regular returns nil when the file opened is a regular file, else an
// error wrapping ErrNotRegular that names path.
func (f File) Regular(path string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return notRegular(path)
	}
	return nil
}
