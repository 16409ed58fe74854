//go:build !unix

package ext

import "io/fs"

// hostNumbers returns 0s: this system's file information has no inode or
// device numbers (the comparisons that need them run on Unix).
func hostNumbers(fs.FileInfo) (ino, rdev uint64) { return 0, 0 }
