package tooltest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// PinTimes sets the access time of every entry of the tree under root,
// symbolic links included, to a whole second two hours from now, and its
// modification time to mtime (or, when mtime is zero, leaves it as it is).
//
// Tests that give one tree to two writers need it when the image keeps
// access times (UFS2 inodes, Rock Ridge TF): under relatime a read moves
// an entry's atime while it is not later than its mtime or ctime, and
// with the kernel's coarse clock a read right after the write can leave
// it equal, so one settling read is not enough (TestCompatDebianBytes
// failed that way in CI: two inodes 27 seconds apart). An atime after
// both stays put under relatime and noatime.
func PinTimes(t testing.TB, root string, mtime time.Time) {
	t.Helper()
	atime := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		m := mtime
		if m.IsZero() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			m = fi.ModTime()
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return lchtimes(p, atime, m)
		}
		return os.Chtimes(p, atime, m)
	})
	if err != nil {
		t.Fatal(err)
	}
}
