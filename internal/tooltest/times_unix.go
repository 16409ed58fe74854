//go:build unix

package tooltest

import (
	"time"

	"golang.org/x/sys/unix"
)

// lchtimes sets the access and modification times of the symbolic link
// path itself, not of what it points to.
func lchtimes(path string, atime, mtime time.Time) error {
	ts := []unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	return unix.UtimesNanoAt(unix.AT_FDCWD, path, ts, unix.AT_SYMLINK_NOFOLLOW)
}
