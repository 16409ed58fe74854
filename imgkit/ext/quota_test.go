package ext

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestWriteQuota compares the writer with the reference for -O quota,
// -O project and -E quotatype: ext4 and ext2 (block maps), 1, 2 and 4
// KiB blocks, the root owned by root or by other users and groups
// (-E root_owner, so that the quota files hold several ids, some in
// tree blocks of their own), on an empty folder (e2fsck -fn clean) and
// on the small tree with files of several owners (mke2fs counts the
// usage before it copies the tree, so e2fsck finds those files missing
// from the quota files, in the reference's image as in the writer's,
// and nothing else):
// identical, s_kbytes_written included.
func TestWriteQuota(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	small := smallTree(t)
	if os.Geteuid() == 0 {
		for i, name := range []string{"a.txt", "big.bin", "dir", "dir/sub/deep.txt", "x.sh"} {
			if err := os.Lchown(filepath.Join(small, name), 1000+i, 100+i*7); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name string
		o    Options
		args []string
	}{
		{"ext4-4k-quota", Options{Type: "ext4", BlockSize: 4096, Features: []string{"quota"}}, []string{"-t", "ext4", "-b", "4096", "-O", "quota"}},
		{"ext4-1k-quota", Options{Type: "ext4", BlockSize: 1024, Features: []string{"quota"}}, []string{"-t", "ext4", "-b", "1024", "-O", "quota"}},
		{"ext4-1k-quota-owner", Options{Type: "ext4", BlockSize: 1024, Features: []string{"quota"}, RootUID: 1000, RootGID: 100}, []string{"-t", "ext4", "-b", "1024", "-O", "quota", "-E", "root_owner=1000:100"}},
		{"ext4-1k-quota-project-owner", Options{Type: "ext4", BlockSize: 1024, Features: []string{"quota", "project"}, RootUID: 70000, RootGID: 1 << 25}, []string{"-t", "ext4", "-b", "1024", "-O", "quota,project", "-E", "root_owner=70000:33554432"}},
		{"ext4-2k-quota-project", Options{Type: "ext4", BlockSize: 2048, Features: []string{"quota", "project"}, RootUID: 5, RootGID: 7}, []string{"-t", "ext4", "-b", "2048", "-O", "quota,project", "-E", "root_owner=5:7"}},
		{"ext4-4k-project", Options{Type: "ext4", BlockSize: 4096, Features: []string{"project"}}, []string{"-t", "ext4", "-b", "4096", "-O", "project"}},
		{"ext4-4k-quotatype-prj", Options{Type: "ext4", BlockSize: 4096, Features: []string{"quota"}, QuotaTypes: []string{"prjquota"}}, []string{"-t", "ext4", "-b", "4096", "-O", "quota", "-E", "quotatype=prjquota"}},
		{"ext4-1k-quotatype-usr-prj", Options{Type: "ext4", BlockSize: 1024, Features: []string{"quota"}, QuotaTypes: []string{"usr", "prjquota"}, RootUID: 1000, RootGID: 1000}, []string{"-t", "ext4", "-b", "1024", "-O", "quota", "-E", "quotatype=usr:prjquota,root_owner=1000:1000"}},
		{"ext4-4k-quotatype-grp", Options{Type: "ext4", BlockSize: 4096, Features: []string{"quota", "^orphan_file"}, QuotaTypes: []string{"usrquota", "grpquota", "^usrquota"}}, []string{"-t", "ext4", "-b", "4096", "-O", "quota,^orphan_file", "-E", "quotatype=usrquota:grpquota:^usrquota"}},
		// quota with no type: no quota file, but the scan and the bitmaps'
		// I/O; prjquota without quota: the project feature only
		{"ext4-1k-quotatype-none", Options{Type: "ext4", BlockSize: 1024, Features: []string{"quota"}, QuotaTypes: []string{}}, []string{"-t", "ext4", "-b", "1024", "-O", "quota", "-E", "quotatype="}},
		{"ext4-4k-quotatype-prj-only", Options{Type: "ext4", BlockSize: 4096, QuotaTypes: []string{"prj"}}, []string{"-t", "ext4", "-b", "4096", "-E", "quotatype=prj"}},
		// no group checksums: the inode scan reads whole inode tables,
		// 8 blocks at a time past the cache
		{"ext4-1k-quota-nocsum", Options{Type: "ext4", BlockSize: 1024, Features: []string{"quota", "^metadata_csum"}, RootUID: 1000, RootGID: 100}, []string{"-t", "ext4", "-b", "1024", "-O", "quota,^metadata_csum", "-E", "root_owner=1000:100"}},
		{"ext4-4k-quota-uninit_bg", Options{Type: "ext4", BlockSize: 4096, Features: []string{"quota", "project", "^metadata_csum", "uninit_bg"}}, []string{"-t", "ext4", "-b", "4096", "-O", "quota,project,^metadata_csum,uninit_bg"}},
		{"ext2-1k-quota-owner", Options{BlockSize: 1024, Features: []string{"quota"}, RootUID: 1000, RootGID: 100}, []string{"-t", "ext2", "-b", "1024", "-O", "quota", "-E", "root_owner=1000:100"}},
		{"ext2-4k-quota-project", Options{BlockSize: 4096, Features: []string{"quota", "project"}}, []string{"-t", "ext2", "-b", "4096", "-O", "quota,project"}},
		{"ext3-1k-quota-128", Options{Type: "ext3", BlockSize: 1024, InodeSize: 128, Features: []string{"quota"}, RootUID: 1 << 24, RootGID: 65536}, []string{"-t", "ext3", "-b", "1024", "-I", "128", "-O", "quota", "-E", "root_owner=16777216:65536"}},
	}
	for i, c := range cases {
		if !tooltest.Thin(i, 2, 4) {
			continue // by default every other case, with -short (the race run) every fourth, with FIXTUREGEN_LONG=1 all
		}
		for _, tree := range []string{"empty", "small"} {
			t.Run(c.name+"/"+tree, func(t *testing.T) {
				t.Parallel()
				src := map[string]string{"empty": empty, "small": small}[tree]
				want, err := os.ReadFile(mke2fs(t, refMke2fs, src, "32M", c.args...))
				if err != nil {
					t.Fatal(err)
				}
				o := c.o
				o.Size = 32 << 20
				got, img := buildCompared(t, src, o, want)
				if tree == "empty" {
					e2fsckClean(t, img)
				} else {
					e2fsckOnlyQuotaUsage(t, img)
				}
				if _, err := NewReader(bytes.NewReader(got), int64(len(got))); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// e2fsckOnlyQuotaUsage runs the reference e2fsck -fn on img and fails
// on any complaint but the quota files' usage, which mke2fs -d leaves
// without the copied files.
func e2fsckOnlyQuotaUsage(t *testing.T, img string) {
	t.Helper()
	bin := tooltest.Need(t, "e2fsck-1.47.4")
	out, err := exec.Command(bin, "-fn", img).CombinedOutput()
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 4) {
		t.Fatalf("e2fsck -fn: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case line == "", strings.HasPrefix(line, "Pass "), strings.HasPrefix(line, "e2fsck 1.47.4"),
			strings.HasPrefix(line, "Update quota info for quota type "),
			strings.HasPrefix(line, "[QUOTA WARNING] Usage inconsistent for ID "), strings.HasPrefix(line, "[QUOTA WARNING] Missing quota entry ID "),
			strings.Contains(line, "WARNING: Filesystem still has errors"),
			strings.HasPrefix(line, img+": ") && strings.Contains(line, " files ("):
		default:
			t.Errorf("e2fsck -fn: %q\n%s", line, out)
			return
		}
	}
}

// TestWriteQuotaRefused checks mke2fs's refusals: project quota with
// 128-byte inodes, and a quota type it does not know.
func TestWriteQuotaRefused(t *testing.T) {
	t.Parallel()
	src := fstree.Dir(t.TempDir())
	for _, o := range []Options{
		{Type: "ext4", Size: 8 << 20, InodeSize: 128, Features: []string{"project"}},
		{Type: "ext4", Size: 8 << 20, InodeSize: 128, Features: []string{"quota"}, QuotaTypes: []string{"prjquota"}},
		{Type: "ext4", Size: 8 << 20, Features: []string{"quota"}, QuotaTypes: []string{"usrquota", "other"}},
	} {
		if _, err := Build(src, &o); !errors.Is(err, ErrOption) {
			t.Errorf("%+v: %v, want ErrOption", o, err)
		}
	}
}
