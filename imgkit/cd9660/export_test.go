package cd9660

import (
	"github.com/fixturegen/fixturegen/internal/tooltest"
	"testing"
	"time"
)

// Test helpers for the external tests of this package (package
// cd9660_test), which may import packages that import this one.

// MakeTestTree makes the named test tree (testTrees) with every
// modification time fbsdStamp and returns its directory.
func MakeTestTree(t *testing.T, name string) string {
	t.Helper()
	dir := makeTree(t, name)
	pinTestTimes(t, dir)
	return dir
}

// pinTestTimes gives every entry under dir the modification time
// fbsdStamp and an access time that reading does not move.
func pinTestTimes(t *testing.T, dir string) {
	t.Helper()
	tooltest.PinTimes(t, dir, time.Unix(fbsdStamp, 0))
}

// WriteTimeSpec writes an mtree spec giving every entry under dir its
// type and time=stamp, and returns its path.
func WriteTimeSpec(t *testing.T, dir string, stamp int64) string {
	return writeTimeSpec(t, dir, stamp)
}

// LibraryImage builds the image of dir (with the spec when not "") as
// TestDebianIdentity builds fixturegen's side: -T stamp (none when 0)
// and the -o items given to WriteFile as Options.
func LibraryImage(t *testing.T, dir, spec string, stamp int64, items []string) []byte {
	t.Helper()
	b, _ := debianOurImage(t, dir, spec, debianOptions(t, stamp, items))
	return b
}
