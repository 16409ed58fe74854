//go:build !unix

package bcache

import (
	"io"
	"os"
)

// openSource opens a source file for reading.
func openSource(path string) (io.ReadCloser, error) { return os.Open(path) }
