//go:build unix

package ffs

import "syscall"

func umask(m int) int { return syscall.Umask(m) }
