//go:build !unix && !windows

package filelock

import "os"

const supported = false

// TryLock succeeds at once: this system has no file locks.
func TryLock(f *os.File) (bool, error) { return true, nil }

// Unlock does nothing.
func Unlock(f *os.File) {}
