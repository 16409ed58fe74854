//go:build !linux

package tooltest

import "os/exec"

// unmountLoop unmounts mnt; LoopMount mounts nothing but on Linux.
func unmountLoop(mnt string) error { return exec.Command("umount", mnt).Run() }
