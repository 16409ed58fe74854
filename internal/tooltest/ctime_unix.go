//go:build unix

package tooltest

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// SameTimes sets the access and modification times of each path (not
// following links) to when, over and over until the host gives all of them
// one change time too, as it does when they fall in one tick of its clock:
// then only what a fingerprint holds beyond size, mode and times (inodes,
// link targets) tells them apart. It gives up after 100 tries, leaving the
// change times apart, which only makes a test's changes easier to see.
func SameTimes(t testing.TB, when time.Time, paths ...string) {
	t.Helper()
	ts := []unix.Timespec{unix.NsecToTimespec(when.UnixNano()), unix.NsecToTimespec(when.UnixNano())}
	for try := 0; try < 100; try++ {
		ctimes := map[int64]bool{}
		for _, p := range paths {
			if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range paths {
			var st unix.Stat_t
			if err := unix.Lstat(p, &st); err != nil {
				t.Fatal(err)
			}
			ctimes[st.Ctim.Nano()] = true
		}
		if len(ctimes) <= 1 {
			return
		}
	}
}
