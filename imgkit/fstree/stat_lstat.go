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
