//go:build !unix

package catalog

import "io/fs"

// hostInfo reports false: this system's stat has no owner or inode.
func hostInfo(fi fs.FileInfo) (hostStat, bool) { return hostStat{}, false }
