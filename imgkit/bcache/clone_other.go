//go:build !linux

package bcache

import (
	"io"
	"os"
)

// initClone does nothing: cloning file data is done on Linux only (macOS
// clones whole files, FreeBSD through copy_file_range on ZFS; neither is
// measured).
func (im *Image) initClone() {}

// cloneFile never clones here.
func (im *Image) cloneFile([]byte, *FileCopy, io.ReadCloser) (bool, error) { return false, nil }

// cloneFrom never clones here.
func (im *Image) cloneFrom(int64, *os.File, int64) (bool, error) { return false, nil }
