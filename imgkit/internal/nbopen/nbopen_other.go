//go:build !unix

package nbopen

import (
	"io"
	"os"
)

// Read opens name for reading: this system has no named pipes that block
// an open.
func Read(name string) (io.ReadCloser, error) { return os.Open(name) }

// Write opens name for writing.
func Write(name string) (*os.File, error) { return os.OpenFile(name, os.O_WRONLY, 0) }
