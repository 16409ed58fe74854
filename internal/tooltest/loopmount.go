package tooltest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// loopImageSize is the size of the sparse file a loop-mounted file system
// is made in: above the 300 MB that mkfs.xfs requires, and never written
// to more than the tests write.
const loopImageSize = 512 << 20

// mkfsArgs are the mkfs commands LoopMount makes each file system type
// with (the image path is appended), and the Debian packages that have
// them: XFS with shared extents (reflink), btrfs as it comes.
var mkfsArgs = map[string]struct {
	args []string
	pkg  string
}{
	"xfs":   {[]string{"mkfs.xfs", "-q", "-m", "reflink=1"}, "xfsprogs"},
	"btrfs": {[]string{"mkfs.btrfs", "-q"}, "btrfs-progs"},
}

// LoopMount makes a file system of type fstype ("xfs" or "btrfs") in a
// sparse file under t.TempDir, mounts it on a loop device and returns the
// mount point, which t.Cleanup unmounts before the directory is removed.
// It needs Linux, root, loop devices, mount and the type's mkfs; without
// them the test is skipped with a message saying what is missing, or
// failed when FIXTUREGEN_REQUIRE_TOOLS=1.
func LoopMount(t testing.TB, fstype string) string {
	t.Helper()
	mk, ok := mkfsArgs[fstype]
	if !ok {
		t.Fatalf("tooltest.LoopMount: unknown file system type %q", fstype)
	}
	if msg := loopMissing(mk.args[0], mk.pkg); msg != "" {
		Missing(t, msg)
	}
	dir := t.TempDir()
	img, mnt := filepath.Join(dir, fstype+".img"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, loopImageSize); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(mk.args[0], append(mk.args[1:], img)...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", mk.args[0], err, out)
	}
	if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount -o loop %s: %v: %s", img, err, out)
	}
	t.Cleanup(func() {
		if err := unmountLoop(mnt); err != nil {
			t.Errorf("umount %s: %v", mnt, err)
			exec.Command("umount", "-l", mnt).Run()
		}
	})
	return mnt
}

// loopMissing says what LoopMount lacks here to make a file system with
// the command mkfs (from the Debian package pkg), or returns "".
func loopMissing(mkfs, pkg string) string {
	var missing []string
	switch {
	case runtime.GOOS != "linux":
		return "loop mounts need Linux"
	case os.Geteuid() != 0:
		return "loop mounts need root"
	}
	if _, err := os.Stat("/dev/loop-control"); err != nil {
		missing = append(missing, "loop devices (/dev/loop-control)")
	}
	if _, err := exec.LookPath("mount"); err != nil {
		missing = append(missing, "mount (apt-get install mount)")
	}
	if _, err := exec.LookPath(mkfs); err != nil {
		missing = append(missing, mkfs+" (apt-get install "+pkg+")")
	}
	if len(missing) == 0 {
		return ""
	}
	return "no " + strings.Join(missing, ", no ")
}
