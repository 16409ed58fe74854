//go:build !unix

package tooltest

import "time"

// lchtimes leaves a symbolic link's times as they are: this system has no
// lutimes, and its tests make no symbolic links to compare.
func lchtimes(path string, atime, mtime time.Time) error { return nil }
