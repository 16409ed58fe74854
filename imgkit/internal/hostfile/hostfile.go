// Package hostfile opens the host files that a walk of a folder found to
// be regular files, to read their data, as cheaply as the system allows
// and without blocking: the tree may have changed since the walk, and a
// named pipe (FIFO) put where a file was must not hang a build that opens
// it.
//
// On Unix a file is opened with open(2) and O_NONBLOCK, which changes
// nothing for a regular file and keeps the open of a FIFO without a writer
// from waiting for one (its reads then end at once). Open's File is the
// bare descriptor, read with read(2) and pread(2): an *os.File costs two
// more system calls a file (os.NewFile's fcntl and its close) and a
// finalizer, about a third of the opening and closing of the files of a
// tree of thousands (BENCHMARKS.md, 2026-12-07). OpenOS gives an *os.File
// for the readers that need one (copy_file_range through bcache.CopyFrom).
package hostfile

import (
	"errors"
	"io/fs"
)

// ErrNotRegular is the error of File.Regular for a file that is no longer
// a regular file: something else took its name after the walk.
var ErrNotRegular = errors.New("not a regular file (the tree changed after it was walked)")

// notRegular returns the error of path's file being of another type.
func notRegular(path string) error {
	return &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
}
