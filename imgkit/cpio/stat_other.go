//go:build !unix

package cpio

import "io/fs"

// hostStat has nothing to return where there is no struct stat.
func hostStat(fs.FileInfo) (hostStatT, bool) { return hostStatT{}, false }
