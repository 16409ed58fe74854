package tooltest

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// unmountLoop unmounts LoopMount's file system at mnt with umount(2)
// while it holds syscall.ForkLock. A child that a test running beside it
// is starting holds a copy of every file the test binary has open, those
// on mnt too, from fork until exec closes them; the kernel then refuses
// to unmount ("target is busy"). os/exec holds ForkLock for that while.
// The loop device, set up by mount -o loop to clear itself, goes too.
func unmountLoop(mnt string) error {
	syscall.ForkLock.Lock()
	defer syscall.ForkLock.Unlock()
	return unix.Unmount(mnt, 0)
}
