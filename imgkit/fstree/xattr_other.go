//go:build !linux

package fstree

// readXattrs returns none: extended attributes are read on Linux only.
func readXattrs(string) ([]Xattr, error) { return nil, nil }
