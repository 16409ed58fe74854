//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package fstree

import (
	"io/fs"
)

// fillSys reports that this system's FileInfo.Sys has nothing fstree uses:
// ownership is 0 and the type and mode come from the fs.FileMode.
func fillSys(n *Node, fi fs.FileInfo) bool { return false }
