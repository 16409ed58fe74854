//go:build !unix

package ffs

// umask does nothing where the system has no umask: files are created with
// the permissions asked for.
func umask(m int) int { return m }
