//go:build !linux

package fstree

import "os"

// lstatNode sets the metadata of n from the host file p, not following a
// symbolic link.
func lstatNode(p string, n *Node) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	fillInfo(n, fi)
	return nil
}

// lstatNodeAt is lstatNode of the host file p, the entry name of the
// open folder dir.
func lstatNodeAt(dir *os.File, name, p string, n *Node) error { return lstatNode(p, n) }
