//go:build !linux

package fstree

import "errors"

const canMknod = false

// mknod is only used on Linux.
func mknod(path string, mode uint32, major, minor uint32) error {
	return errors.New("mknod test helper only on Linux")
}
