//go:build !linux

package cpio

import "os"

// mknod makes nothing here: FIFOs and devices are skipped (see the Linux
// version).
func mknod(*os.Root, string, Entry) (bool, error) { return false, nil }
