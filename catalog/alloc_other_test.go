//go:build !unix

package catalog

import "io/fs"

// allocated reports false: the system does not say.
func allocated(fi fs.FileInfo) (int64, bool) { return 0, false }
