//go:build !linux

package cd9660

import (
	"errors"
	"io/fs"
)

// canMknod is false: the tests make device files on Linux only, whose
// device number encoding they use.
const canMknod = false

var errNoMknod = errors.New("special files are made on Linux only")

func mknod(path string, kind byte, perm uint32, dev int) error { return errNoMknod }

func mkfifo(path string, perm uint32) error { return errNoMknod }

func statRdev(fi fs.FileInfo) (uint64, bool) { return 0, false }
