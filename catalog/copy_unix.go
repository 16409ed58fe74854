//go:build unix

package catalog

import (
	"errors"

	"golang.org/x/sys/unix"
)

func isNoData(err error) bool { return errors.Is(err, unix.ENXIO) }
