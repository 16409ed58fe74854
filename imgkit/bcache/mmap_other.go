//go:build !(linux || darwin || freebsd || netbsd || dragonfly)

package bcache

import (
	"errors"
	"os"
)

// mmapSupported reports whether this system has the mmap mode.
const mmapSupported = false

var errNoMmap = errors.New("mmap not supported on this system")

func mmapFile(*os.File, int64) ([]byte, error) { return nil, errNoMmap }
func munmap([]byte) error                      { return nil }
func msync([]byte, bool) error                 { return nil }

func (im *Image) copyMappedSource(int64, *os.File, int64) (int64, error) { return 0, nil }
