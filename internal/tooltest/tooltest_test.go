package tooltest

import (
	"fmt"
	"testing"
)

// skipRecorder is a testing.TB whose Skipf and Fatalf record the message
// instead of ending the test, so that Need's message can be checked.
type skipRecorder struct {
	testing.TB
	msg string
}

func (r *skipRecorder) Helper()                          {}
func (r *skipRecorder) Skipf(format string, args ...any) { r.msg = fmt.Sprintf(format, args...) }
func (r *skipRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
}

// TestNeedNamesPackage checks that a missing tool's skip names the Debian
// package that installs it, for the ISO 9660 readers the cd9660 tests use
// as for the others. It is not parallel: it sets PATH and
// FIXTUREGEN_REQUIRE_TOOLS with t.Setenv.
func TestNeedNamesPackage(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(RequireEnv, "")
	for tool, pkg := range map[string]string{
		"xorriso":  "xorriso",
		"isoinfo":  "genisoimage",
		"iso-info": "libcdio-utils",
		"bsdtar":   "libarchive-tools",
		"7z":       "p7zip-full",
		"fls":      "sleuthkit",
	} {
		r := &skipRecorder{TB: t}
		if path := Need(r, tool); path != "" {
			t.Errorf("Need(%q) = %q with an empty PATH", tool, path)
		}
		want := "skipping: " + tool + " not found in PATH (apt-get install " + pkg + "); set " + RequireEnv + "=1 to make this a failure"
		if r.msg != want {
			t.Errorf("Need(%q) skipped with %q, want %q", tool, r.msg, want)
		}
	}
}
