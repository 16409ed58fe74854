//go:build netbsd || openbsd || dragonfly

package fstree

import "syscall"

// statTimes reports that the times are to be taken from the FileInfo: on
// these systems only the modification time is used.
func statTimes(n *Node, st *syscall.Stat_t) bool { return false }
