//go:build !unix

package ar

import "io/fs"

// fileOwner returns uid 0, gid 0 and a regular-file st_mode built from the
// permission bits where the system has no owners.
func fileOwner(fi fs.FileInfo) (uid, gid int, mode int64) {
	return 0, 0, 0o100000 | int64(fi.Mode().Perm())
}
