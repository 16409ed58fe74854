// Package tooltest lets tests depend on external validators (fsck.fat, mtools,
// sleuthkit, GNU ar, llvm-ar, Debian's and FreeBSD's makefs, FreeBSD's mkimg,
// sgdisk, sfdisk, fdisk, cc, and the ISO 9660 readers xorriso, isoinfo,
// iso-info, bsdtar and 7z) without making them a hard requirement on a
// developer's machine.
//
// A test that needs a tool calls Need. Where the tool is missing the test is
// skipped with a message naming the tool and the Debian package that provides
// it, unless the environment variable FIXTUREGEN_REQUIRE_TOOLS is set to 1, as
// .ci/run does: then the test fails, so that CI can never pass by skipping.
//
// Long (FIXTUREGEN_LONG=1) runs the exhaustive sweeps whole; without it
// they run a fixed sample (Sample).
package tooltest

import (
	"os"
	"os/exec"
	"testing"

	"github.com/fixturegen/fixturegen/internal/references"
)

// RequireEnv is the environment variable that turns a missing tool from a
// skip into a failure.
const RequireEnv = "FIXTUREGEN_REQUIRE_TOOLS"

// packages maps a command to the Debian package that installs it, for the
// skip message.
var packages = map[string]string{
	"fsck.fat":    "dosfstools",
	"mkfs.fat":    "dosfstools",
	"mcopy":       "mtools",
	"mdir":        "mtools",
	"mmd":         "mtools",
	"fls":         "sleuthkit",
	"fsstat":      "sleuthkit",
	"istat":       "sleuthkit",
	"icat":        "sleuthkit",
	"tsk_recover": "sleuthkit",
	"diff":        "diffutils",
	"makefs":      "makefs",
	"ar":          "binutils",
	"nm":          "binutils",
	"ranlib":      "binutils",
	"llvm-ar":     "llvm",
	"llvm-nm":     "llvm",
	"cc":          "gcc",
	"gcc":         "gcc",
	"xorriso":     "xorriso",
	"isoinfo":     "genisoimage",
	"iso-info":    "libcdio-utils",
	"bsdtar":      "libarchive-tools",
	"7z":          "p7zip-full",
	"sgdisk":      "gdisk",
	"sfdisk":      "fdisk",
	"fdisk":       "fdisk",
	"mmls":        "sleuthkit",
	"losetup":     "mount",
	"qemu-img":    "qemu-utils",
	"qemu-io":     "qemu-utils",
}

// Required reports whether missing tools fail tests instead of skipping them.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Missing ends the test for want of what msg says (a tool, root, a file
// system that keeps holes): it is skipped, or failed when
// FIXTUREGEN_REQUIRE_TOOLS=1, as CI runs the tests.
func Missing(t testing.TB, msg string) {
	t.Helper()
	miss(t, "", msg)
}

// miss ends the test for want of the command tool (when not "") or what
// msg says, and records it for the note at the end of the run.
func miss(t testing.TB, tool, msg string) {
	t.Helper()
	skipped(tool, msg)
	if Required() {
		t.Fatalf("%s, and %s=1 requires it", msg, RequireEnv)
	}
	t.Skipf("skipping: %s; set %s=1 to make this a failure", msg, RequireEnv)
}

// Need returns the path of the named command. When it cannot be found the
// test is skipped, or failed when FIXTUREGEN_REQUIRE_TOOLS=1.
func Need(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	miss(t, name, NotFound(name))
	return ""
}

// NotFound returns the message Need gives for a command missing from
// PATH: its name and how to install it. Scenarios that check for tools
// themselves (testscript's need command in internal/cli) report with it.
func NotFound(name string) string {
	msg := name + " not found in PATH"
	if pkg, ok := packages[name]; ok {
		msg += " (apt-get install " + pkg + ")"
	} else if _, ok := references.ToolOf(name); ok {
		msg += " (" + references.Command + " builds it from the repository's references folder)"
	}
	return msg
}
