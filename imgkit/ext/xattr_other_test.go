//go:build !linux

package ext

import "errors"

// setXattr fails: the tests set extended attributes on Linux only.
func setXattr(string, string, []byte) error { return errors.ErrUnsupported }
