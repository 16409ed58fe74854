package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// mke2fsTree makes a small tree for the mke2fs command: a file, a
// directory, a hole, a symbolic link.
func mke2fsTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "src")
	if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	sp := make([]byte, 30_000)
	copy(sp[20_000:], "after a hole")
	for name, data := range map[string][]byte{"a.txt": []byte("hello\n"), "d/holey": sp} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMke2fsCommandReference checks that "fixturegen mke2fs" writes the
// reference mke2fs 1.47.4's bytes for the same command lines.
func TestMke2fsCommandReference(t *testing.T) {
	t.Parallel()
	bin := tooltest.Need(t, "mke2fs-1.47.4")
	src := mke2fsTree(t)
	ids := []string{"-U", "6b33f6a2-4bd5-4fb1-9ba5-2c4f3a0d1e77", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"}
	// At 8m with 4 KiB blocks (one group, no GDT block to reserve) mke2fs
	// still makes the resize inode and its double indirect block.
	for i, c := range []struct {
		prog, size string
		args       []string
	}{
		{"mke2fs", "8m", []string{"-t", "ext2", "-b", "1024", "-L", "fixture", "-m", "0"}},
		{"mkfs.ext3", "8m", []string{"-I", "128", "-i", "8192", "-O", "dir_index"}},
		{"mke2fs", "8m", []string{"-j", "-b", "2048"}},
		{"mkfs.ext2", "8m", []string{"-T", "small", "-F", "-q"}},
		{"mke2fs", "64m", []string{"-T", "news", "-E", "root_owner=0:0"}},
		{"mke2fs", "64m", []string{"-T", "default"}},
		{"mke2fs", "8m", []string{"-T", "floppy"}},
		{"mke2fs", "64m", []string{"-T", "big"}},
		{"mke2fs", "8m", []string{"-T", "huge", "-b", "1024"}},
		{"mke2fs", "8m", []string{"-t", "ext2", "-b", "4096"}},
		{"mkfs.ext3", "8m", []string{"-b", "4096"}},
		{"mkfs.ext4", "8m", []string{"-L", "root"}},
		{"mke2fs", "64m", []string{"-t", "ext4", "-b", "4096", "-O", "metadata_csum,64bit"}},
		{"mke2fs", "16m", []string{"-t", "ext4", "-I", "128", "-b", "2048"}},
		// -E replaces the -E before it (mke2fs keeps the last), so these
		// lines give hash_seed again.
		{"mke2fs", "8m", []string{"-t", "ext2", "-N", "300", "-g", "2048", "-M", "/mnt/root", "-o", "linux", "-r", "1",
			"-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,root_owner=1000:100,stride=7,stripe_width=14,nodiscard"}},
		{"mkfs.ext3", "16m", []string{"-J", "size=2", "-b", "1024", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,stride=3"}},
		{"mkfs.ext4", "64m", []string{"-G", "4", "-N", "5000", "-J", "size=4", "-b", "1024",
			"-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,lazy_itable_init=0,stride=16,stripe-width=32"}},
		{"mke2fs", "8m", []string{"-e", "remount-ro", "-E", "root_owner=0:5"}},
		{"mkfs.ext4", "16m", []string{"-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,offset=1048576"}},
		// the image ends with the file system's last block: a size not
		// a whole number of blocks, a last group too small to keep
		{"mkfs.ext4", "8292k", nil},
		{"mkfs.ext2", "8292k", nil},
		{"mkfs.ext4", "10241k", []string{"-b", "4096"}},
		{"mkfs.ext3", "10001k", []string{"-b", "2048"}},
		// a label past 16 bytes and a folder past 64 cut as mke2fs cuts
		// them; -b with a suffix
		{"mkfs.ext4", "16m", []string{"-L", "averyveryverylonglabelname", "-M", "/" + strings.Repeat("mnt/", 20), "-b", "4k"}},
		// Buildroot's line (-N 0 is mke2fs's default count), with -v
		{"mkfs.ext4", "60m", []string{"-r", "1", "-N", "0", "-m", "5", "-L", "rootfs", "-I", "256", "-O", "^64bit", "-v"}},
		{"mke2fs", "8m", []string{"-t", "ext2", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,offset=1536"}},
		{"mkfs.ext4", "64m", []string{"-T", "largefile"}},
		// -T's list: mke2fs.conf's stanzas in order, the last to set a
		// value winning, ext3's and ext4's features going on the type's,
		// names it has no stanza for skipped
		{"mke2fs", "8m", []string{"-T", "ext4"}},
		{"mkfs.ext2", "8m", []string{"-T", "small,ext4"}},
		{"mkfs.ext4", "8m", []string{"-T", "ext3"}},
		{"mke2fs", "8m", []string{"-j", "-T", "hurd"}},
		{"mke2fs", "64m", []string{"-T", "small,news,bogus"}},
		{"mke2fs", "64m", []string{"-T", "largefile,floppy", "-I", "512"}},
		{"mkfs.ext3", "8m", []string{"-T", ""}},
		// -b not a power of 2: rounded down, as mke2fs rounds it
		{"mke2fs", "8m", []string{"-t", "ext4", "-b", "3000"}},
		{"mkfs.ext3", "8m", []string{"-b", "1500", "-i", "1024"}},
		{"mke2fs", "64m", []string{"-T", "largefile4", "-t", "ext3"}},
		{"mkfs.ext4", "1g", nil}, // 262144 blocks: a 64-block orphan file
		// -O on top of the type's features
		{"mkfs.ext4", "16m", []string{"-O", "^metadata_csum,uninit_bg", "-b", "1024"}},
		{"mkfs.ext4", "16m", []string{"-O", "^metadata_csum"}},
		{"mkfs.ext4", "64m", []string{"-O", "^64bit,^extent", "-b", "1024"}},
		{"mkfs.ext4", "64m", []string{"-O", "^flex_bg", "-b", "1024"}},
		{"mkfs.ext4", "16m", []string{"-O", "^has_journal"}},
		{"mkfs.ext4", "16m", []string{"-O", "^orphan_file,^metadata_csum_seed,^huge_file,^dir_nlink,^extra_isize"}},
		{"mkfs.ext4", "16m", []string{"-O", "^64bit"}},
		{"mkfs.ext3", "16m", []string{"-O", "extent,flex_bg"}},
		{"mkfs.ext2", "16m", []string{"-O", "metadata_csum,dir_index,uninit_bg"}},
		{"mkfs.ext2", "16m", []string{"-O", "uninit_bg", "-b", "1024"}},
		{"mkfs.ext4", "64m", []string{"-O", "^resize_inode,^dir_index,^ext_attr,^filetype,^large_file", "-b", "1024"}},
		{"mkfs.ext2", "64m", []string{"-O", "^resize_inode,^sparse_super", "-b", "1024"}},
		{"mkfs.ext3", "64m", []string{"-O", "^large_file"}},
		{"mkfs.ext4", "64m", []string{"-O", "sparse_super2", "-b", "1024"}},
		{"mkfs.ext2", "64m", []string{"-O", "sparse_super2", "-b", "1024", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,num_backup_sb=1"}},
		{"mkfs.ext3", "64m", []string{"-O", "sparse_super2,^resize_inode", "-b", "1024", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,num_backup_sb=0"}},
		{"mkfs.ext4", "8m", []string{"-O", "sparse_super2", "-g", "4096", "-b", "1024"}},
		{"mkfs.ext4", "16m", []string{"-O", "encrypt,casefold"}},
		// too small for a journal: mke2fs goes on without one
		{"mkfs.ext4", "1m", nil},
		{"mkfs.ext3", "1m", []string{"-b", "4096"}},
		{"mke2fs", "32m", []string{"-t", "ext4", "-b", "32768"}},
		{"mkfs.ext4", "32m", []string{"-g", "1024", "-b", "1024", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,assume_storage_prezeroed=1"}},
		// zeroed inode tables flagged without group checksums too
		{"mkfs.ext2", "16m", []string{"-b", "1024", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,lazy_itable_init=0"}},
		{"mkfs.ext3", "16m", []string{"-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,assume_storage_prezeroed=1"}},
		// inline_data: a.txt and the folder d inline, d/holey expanded
		{"mkfs.ext4", "16m", []string{"-O", "inline_data"}},
		{"mkfs.ext4", "16m", []string{"-O", "inline_data", "-I", "512", "-b", "1024"}},
		{"mkfs.ext2", "16m", []string{"-O", "inline_data"}},
		{"mke2fs", "8m", []string{"-t", "ext4", "-O", "inline_data,^metadata_csum", "-I", "1024", "-b", "1024"}},
		{"mkfs.ext3", "16m", []string{"-O", "inline_data", "-b", "2048"}},
		{"mke2fs", "8m", []string{"-t", "ext4", "-I", "512"}},
		// quota files (the root's and lost+found's usage) and project
		{"mkfs.ext4", "16m", []string{"-O", "quota", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,root_owner=1000:100"}},
		{"mkfs.ext2", "8m", []string{"-O", "quota,project", "-b", "1024"}},
		{"mkfs.ext4", "64m", []string{"-O", "project", "-b", "1024"}},
		{"mkfs.ext4", "16m", []string{"-O", "quota", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,quotatype=prjquota:usrquota"}},
		{"mkfs.ext3", "16m", []string{"-I", "128", "-O", "quota", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,quotatype=grp"}},
		{"mkfs.ext4", "16m", []string{"-O", "inline_data,quota,project", "-I", "512", "-b", "1024"}},
		{"mke2fs", "32m", []string{"-t", "ext4", "-b", "2048", "-O", "quota,^orphan_file", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,root_owner=70000:0"}},
		// meta_bg (which mke2fs refuses beside resize_inode): with 1 KiB
		// blocks and 1024-block groups a meta group is 16 groups with
		// 64bit (4 of them here), 32 without; with 4 KiB blocks and
		// 256-block groups 64 and 128 (of 160 groups)
		{"mkfs.ext4", "64m", []string{"-O", "meta_bg,^resize_inode", "-b", "1024", "-g", "1024"}},
		{"mkfs.ext4", "64m", []string{"-O", "meta_bg,^resize_inode,^flex_bg", "-b", "1024", "-g", "1024"}},
		{"mkfs.ext4", "64m", []string{"-O", "meta_bg,^resize_inode,^64bit", "-b", "1024", "-g", "1024"}},
		{"mkfs.ext4", "160m", []string{"-O", "meta_bg,^resize_inode", "-b", "4096", "-g", "256"}},
		{"mkfs.ext4", "160m", []string{"-O", "meta_bg,^resize_inode,^flex_bg,^64bit", "-g", "256"}},
		{"mkfs.ext2", "64m", []string{"-O", "meta_bg,^resize_inode", "-b", "1024", "-g", "1024"}},
		{"mkfs.ext2", "160m", []string{"-O", "meta_bg,^resize_inode", "-b", "4096", "-g", "256"}},
		{"mkfs.ext3", "64m", []string{"-O", "meta_bg,^resize_inode", "-b", "1024", "-g", "1024"}},
		{"mkfs.ext3", "160m", []string{"-O", "meta_bg,^resize_inode", "-b", "4096", "-g", "256"}},
		{"mkfs.ext2", "64m", []string{"-O", "meta_bg,^resize_inode,^sparse_super", "-b", "1024", "-g", "1024"}},
		{"mkfs.ext4", "64m", []string{"-O", "meta_bg,^resize_inode,sparse_super2,^metadata_csum,uninit_bg", "-b", "1024", "-g", "1024"}},
		// meta_bg turned on by ext2fs_initialize: 256 reserved GDT blocks
		// are more than 3/4 of a 256-block group
		{"mkfs.ext4", "8m", []string{"-g", "256", "-b", "1024"}},
		{"mkfs.ext2", "8m", []string{"-g", "256", "-b", "1024"}},
		// packed_meta_blocks: tables (with flex_bg) and journal first
		{"mkfs.ext4", "64m", []string{"-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,packed_meta_blocks"}},
		{"mkfs.ext4", "64m", []string{"-b", "1024", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,packed_meta_blocks=1"}},
		{"mkfs.ext4", "64m", []string{"-O", "^has_journal", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,packed_meta_blocks"}},
		{"mkfs.ext4", "64m", []string{"-O", "^flex_bg", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,packed_meta_blocks"}},
		{"mkfs.ext3", "64m", []string{"-b", "1024", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,packed_meta_blocks"}},
		{"mkfs.ext4", "64m", []string{"-O", "meta_bg,^resize_inode", "-b", "1024", "-g", "1024", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,packed_meta_blocks"}},
		{"mkfs.ext4", "64m", []string{"-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,packed_meta_blocks=0"}},
		{"mkfs.ext4", "16m", []string{"-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,packed_meta_blocks="}}, // strtoul of "": off
		{"mkfs.ext4", "64m", []string{"-O", "meta_bg,^resize_inode,inline_data,quota", "-b", "1024", "-g", "1024"}},
		// bigalloc: -C's default (16 blocks), sizes with and without a
		// suffix, -g counting clusters
		{"mkfs.ext4", "64m", []string{"-O", "bigalloc"}},
		{"mkfs.ext4", "64m", []string{"-O", "bigalloc", "-b", "4096", "-C", "64k"}},
		{"mke2fs", "64m", []string{"-t", "ext4", "-O", "bigalloc,^has_journal", "-b", "1024", "-C", "2048"}},
		{"mkfs.ext4", "64m", []string{"-O", "bigalloc", "-b", "1024", "-C", "8192", "-g", "1024"}},
		{"mkfs.ext3", "64m", []string{"-O", "bigalloc,extent", "-b", "4096", "-C", "32768"}},
		{"mkfs.ext4", "32m", []string{"-O", "bigalloc,inline_data,quota", "-C", "4096"}},
	} {
		if !tooltest.ShortSample(i, 10) {
			continue // -short (the race run in CI) takes every tenth line
		}
		t.Run(c.prog+strings.Join(c.args, ""), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pre := []string{"-q", "-F"}
			if typ, ok := strings.CutPrefix(c.prog, "mkfs."); ok {
				pre = append(pre, "-t", typ)
			}
			size := c.size
			ref := exec.Command(bin, append(append(append(pre, ids...), c.args...), "-d", src, "ref.img", size)...)
			ref.Dir = dir
			ref.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1700000000", "E2FSPROGS_FAKE_TIME=",
				"MKE2FS_CONFIG="+filepath.Join(filepath.Dir(bin), "mke2fs-1.47.4.conf"))
			if out, err := ref.CombinedOutput(); err != nil {
				t.Fatalf("%v: %v\n%s", ref.Args, err, out)
			}
			args := append(append(append([]string{}, ids...), c.args...), "-d", src, "got.img", size)
			var stderr bytes.Buffer
			e := &env{Stdout: &stderr, Stderr: &stderr, Dir: dir, Getenv: func(k string) string {
				if k == "SOURCE_DATE_EPOCH" {
					return "1700000000"
				}
				return ""
			}}
			if err := run(e, append([]string{c.prog}, args...)); err != nil {
				t.Fatalf("%s %v: %v\n%s", c.prog, args, err, stderr.String())
			}
			// compared a piece at a time: the 1g line's images would
			// take 2 GiB read whole
			if off, err := tooltest.FirstDiff(filepath.Join(dir, "got.img"), filepath.Join(dir, "ref.img")); err != nil || off >= 0 {
				t.Errorf("%s %v: differs from mke2fs 1.47.4 at byte %d (%v)", c.prog, args, off, err)
			}
		})
	}
}

// TestMke2fsCommandExistingDevice checks "fixturegen mke2fs" against the
// reference on a device that is a file with bytes already: mke2fs writes
// into it, keeping the bytes outside the file system (a disk's partition
// table before -E offset=, a longer file's tail), after a discard that
// zeroes the file system's range and flags the inode tables zeroed
// (not with -E nodiscard or -K, which leave a range of zeros as it is).
func TestMke2fsCommandExistingDevice(t *testing.T) {
	t.Parallel()
	bin := tooltest.Need(t, "mke2fs-1.47.4")
	src := mke2fsTree(t)
	ids := []string{"-U", "6b33f6a2-4bd5-4fb1-9ba5-2c4f3a0d1e77", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"}
	for _, c := range []struct {
		prog    string
		have    int64 // the device's bytes before
		pattern bool  // they are a pattern, else zeros
		size    string
		args    []string
	}{
		{"mkfs.ext4", 16 << 20, true, "8m", nil},
		{"mkfs.ext4", 32 << 20, true, "8m", []string{"-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,offset=1048576"}},
		{"mkfs.ext2", 8 << 20, true, "", nil},
		{"mkfs.ext3", 8 << 20, true, "", []string{"-b", "4096"}},
		{"mkfs.ext3", 4 << 20, false, "8m", nil},
		{"mkfs.ext4", 16 << 20, false, "8m", []string{"-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,nodiscard"}},
		{"mkfs.ext4", 8 << 20, false, "", []string{"-K"}},
		{"mkfs.ext4", 0, false, "8m", nil}, // empty: as a new file
		// no size: the device's whole pages (blocks under 4 KiB)
		{"mkfs.ext4", 10<<20 + 1024, true, "", nil},
		{"mkfs.ext2", 7000000, true, "", []string{"-b", "2048"}},
		// a last group too small to keep: the device's tail stays
		{"mkfs.ext4", 8292 << 10, true, "", nil},
		// no size with offset=: the device less the offset's blocks,
		// the usage type the whole device's (3 MiB is small, 2 floppy)
		{"mkfs.ext2", 3 << 20, true, "", []string{"-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,offset=1048576"}},
		{"mkfs.ext4", 16 << 20, true, "", []string{"-b", "4096", "-E", "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,offset=1536"}},
	} {
		t.Run(fmt.Sprint(c.prog, c.have, c.pattern, c.size, c.args), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			before := make([]byte, c.have)
			for i := range before {
				if c.pattern {
					before[i] = byte(i%251 + 1)
				}
			}
			for _, name := range []string{"ref.img", "got.img"} {
				if err := os.WriteFile(filepath.Join(dir, name), before, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			typ := strings.TrimPrefix(c.prog, "mkfs.")
			line := func(img string) []string {
				l := append(append(append([]string{"-q", "-F", "-t", typ}, ids...), c.args...), "-d", src, img)
				if c.size != "" {
					l = append(l, c.size)
				}
				return l
			}
			ref := exec.Command(bin, line("ref.img")...)
			ref.Dir = dir
			ref.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1700000000", "E2FSPROGS_FAKE_TIME=",
				"MKE2FS_CONFIG="+filepath.Join(filepath.Dir(bin), "mke2fs-1.47.4.conf"))
			if out, err := ref.CombinedOutput(); err != nil {
				t.Fatalf("%v: %v\n%s", ref.Args, err, out)
			}
			var stderr bytes.Buffer
			e := &env{Stdout: &stderr, Stderr: &stderr, Dir: dir, Getenv: func(k string) string {
				if k == "SOURCE_DATE_EPOCH" {
					return "1700000000"
				}
				return ""
			}}
			if err := run(e, append([]string{"mke2fs"}, line("got.img")...)); err != nil {
				t.Fatalf("%v: %v\n%s", line("got.img"), err, stderr.String())
			}
			if off, err := tooltest.FirstDiff(filepath.Join(dir, "got.img"), filepath.Join(dir, "ref.img")); err != nil || off >= 0 {
				t.Errorf("%v: differs from mke2fs 1.47.4 at byte %d (%v)", line("got.img"), off, err)
			}
			// what lies outside the file system is the old bytes: the
			// first MiB before offset=, the tail past 8m
			got, err := os.ReadFile(filepath.Join(dir, "got.img"))
			if err != nil {
				t.Fatal(err)
			}
			start, end := int64(0), c.have
			for _, a := range c.args {
				if _, v, ok := strings.Cut(a, "offset="); ok {
					start, _ = strconv.ParseInt(v, 10, 64)
				}
			}
			if c.size != "" {
				end = start + 8<<20
			}
			if int64(len(got)) < max(c.have, end) {
				t.Errorf("%d bytes, want at least %d", len(got), max(c.have, end))
			} else if !bytes.Equal(got[:start], before[:start]) || end < c.have && !bytes.Equal(got[end:c.have], before[end:]) {
				t.Errorf("the bytes outside the file system (%d to %d) changed", start, end)
			}
		})
	}
}

// TestMke2fsCommandRefusals checks that what is not written is refused
// with one line naming the option, exit status 1 (2 for syntax), and
// nothing left at the target or beside it.
func TestMke2fsCommandRefusals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{"mke2fs", "-t", "ext5", "img", "8m"}, false, "ext5"},
		{[]string{"mke2fs", "-N", "12abc", "img", "8m"}, true, "-N"},
		{[]string{"mke2fs", "-J", "device=/dev/sdb", "img", "8m"}, false, "-J device"},
		{[]string{"mke2fs", "-e", "explode", "img", "8m"}, true, "explode"},
		{[]string{"mke2fs", "-O", "mmp", "img", "8m"}, false, "-O mmp"},
		{[]string{"mke2fs", "-O", "bigalloc", "img", "8m"}, false, "bigalloc needs extent"},
		{[]string{"mke2fs", "-t", "ext4", "-C", "16384", "img", "8m"}, false, "-C 16384: specifying a cluster size requires the bigalloc feature"},
		{[]string{"mke2fs", "-t", "ext4", "-O", "bigalloc", "-C", "1024", "img", "8m"}, true, "invalid cluster size - 1024"},
		{[]string{"mke2fs", "-t", "ext4", "-O", "bigalloc", "-C", "1g", "img", "8m"}, true, "invalid cluster size - 1g"},
		{[]string{"mke2fs", "-t", "ext4", "-O", "bigalloc", "-b", "4096", "-C", "2048", "img", "64m"}, false, "ClusterSize 2048: the cluster size may not be smaller than the block size"},
		{[]string{"mke2fs", "-t", "ext4", "-I", "128", "-O", "project", "img", "8m"}, false, "project quota"},
		{[]string{"mke2fs", "-O", "quota", "-E", "quotatype=usr:bogus", "img", "8m"}, true, "quotatype"},
		{[]string{"mke2fs", "-O", "^sparse_super", "img", "8m"}, false, "resize_inode needs sparse_super"},
		{[]string{"mke2fs", "-t", "ext4", "-O", "^extent", "img", "8m"}, false, "64bit needs extent"},
		{[]string{"mke2fs", "-t", "ext4", "-I", "128", "-O", "inline_data", "img", "8m"}, false, "too small for inline data"},
		{[]string{"mke2fs", "-t", "ext4", "-O", "inline_data,^ext_attr", "img", "8m"}, false, "inline_data needs ext_attr"},
		{[]string{"mke2fs", "-b", "1024", "-I", "2048", "img", "8m"}, false, "-I 2048"},
		{[]string{"mke2fs", "-E", "android_sparse", "img", "8m"}, false, "-E android_sparse"},
		{[]string{"mke2fs", "-O", "meta_bg", "img", "8m"}, false, "resize_inode and meta_bg"},
		{[]string{"mke2fs", "-E", "root_owner", "img", "8m"}, false, "root_owner"},
		{[]string{"mke2fs", "-U", "random", "img", "8m"}, false, "-U random"},
		{[]string{"mke2fs", "-b", "5000", "img", "8m"}, false, "-b 5000"},
		{[]string{"mke2fs", "-b", "1000", "img", "8m"}, true, "invalid block size - 1000"},
		{[]string{"mke2fs", "-c", "img", "8m"}, false, "-c"},
		{[]string{"mke2fs", "-Z", "img", "8m"}, true, "'Z'"},
		{[]string{"mke2fs", "img", "8x"}, true, "8x"},
		{[]string{"mke2fs", "img"}, true, "size"},
		{[]string{"mke2fs", "--timestamp=nope", "img", "8m"}, true, "--timestamp"},
	} {
		dir := t.TempDir()
		e := &env{Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer), Dir: dir, Getenv: func(string) string { return "" }}
		err := run(e, c.args)
		var ue *usageError
		if err == nil || errors.As(err, &ue) != c.usage || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v (usage error %v), want one line naming %q", c.args, err, errors.As(err, &ue), c.want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%v: left %v", c.args, ents)
		}
	}
}

// TestMke2fsWarnings checks the lines mke2fs prints as warnings for a
// command line that it goes on with: a label past 16 bytes (cut), a -T
// name mke2fs.conf has no stanza for, 128-byte inodes (but not hurd's).
func TestMke2fsWarnings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"mkfs.ext4", "-L", "averyveryverylonglabelname"}, []string{"warning: label too long; truncated to 'averyveryverylon'"}},
		{[]string{"mke2fs", "-T", "small,bogus,default"}, []string{"warning: the fs_type bogus is not defined in mke2fs.conf"}},
		{[]string{"mkfs.ext3", "-I", "128"}, []string{"warning: 128-byte inodes cannot handle dates beyond 2038 and are deprecated"}},
		{[]string{"mke2fs", "-T", "hurd"}, nil},
		{[]string{"mke2fs", "-T", "hurd", "-I", "128"}, nil},
		{[]string{"mke2fs", "-T", "ext4"}, nil},
	} {
		var stderr bytes.Buffer
		e := &env{Stdout: new(bytes.Buffer), Stderr: &stderr, Dir: t.TempDir(), Getenv: func(string) string { return "" }}
		if err := run(e, append(c.args, "img", "8m")); err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if stderr.Len() == 0 {
			got = nil
		}
		if len(got) != len(c.want) {
			t.Errorf("%v: standard error %q, want %q", c.args, stderr.String(), c.want)
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(got[i], "fixturegen: mke2fs: ") || !strings.Contains(got[i], w) {
				t.Errorf("%v: line %q, want one saying %q", c.args, got[i], w)
			}
		}
	}
}

// TestMke2fsCommandReproducible checks that without -U, hash_seed and
// SOURCE_DATE_EPOCH two runs give the same bytes. The tree's times are
// pinned: without a time the image keeps the files' own, and a read can
// move an access time (it failed that way under load, the derived UUID
// apart).
func TestMke2fsCommandReproducible(t *testing.T) {
	t.Parallel()
	src := mke2fsTree(t)
	tooltest.PinTimes(t, src, time.Time{})
	dir := t.TempDir()
	for _, name := range []string{"a.img", "b.img"} {
		e := &env{Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer), Dir: dir, Getenv: func(string) string { return "" }}
		if err := run(e, []string{"mkfs.ext3", "-d", src, name, "4M"}); err != nil {
			t.Fatal(err)
		}
	}
	if off, err := tooltest.FirstDiff(filepath.Join(dir, "a.img"), filepath.Join(dir, "b.img")); err != nil || off >= 0 {
		t.Errorf("two runs differ at byte %d (%v)", off, err)
	}
}

// TestMke2fsPlan checks that a catalogue plans a mke2fs line's tree and
// device, and refuses one whose times would come from the checkout.
func TestMke2fsPlan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, err := Runner().Plan(dir, strings.Fields("mkfs.ext2 -b 1024 --timestamp=0 -d inputs/small img.ext2 8m"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Output != 6 || len(p.Inputs) < 1 || p.Inputs[0].Path != "inputs/small" || p.Times {
		t.Errorf("plan %+v: want output 6 (img.ext2), input inputs/small, times fixed", p)
	}
	if _, err := Runner().Plan(dir, strings.Fields("mke2fs -d inputs/small img.ext2 8m")); err == nil || !strings.Contains(err.Error(), "--timestamp") {
		t.Errorf("a line without --timestamp: %v, want a refusal naming --timestamp", err)
	}
}
