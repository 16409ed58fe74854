package ext

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestWriteBigalloc compares the writer with the reference for -O
// bigalloc: clusters of 2 to 64 blocks (and -C's default, 16 blocks)
// with 1 and 4 KiB blocks, with and without a journal, one group and
// several (-g counts clusters), of the small tree with attributes added.
// Each image is mke2fs's, e2fsck -fn clean, and reads back equal to
// the tree with no warning and every checksum of Fields matching.
func TestWriteBigalloc(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := bigallocTree(t)
	for i, c := range []struct {
		name string
		size string
		opts Options
		args []string
	}{
		{"4k-default", "32M", Options{Type: "ext4", BlockSize: 4096, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "4096", "-O", "bigalloc"}},
		{"4k-8k", "32M", Options{Type: "ext4", BlockSize: 4096, ClusterSize: 8192, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "4096", "-O", "bigalloc", "-C", "8192"}},
		{"4k-128k", "128M", Options{Type: "ext4", BlockSize: 4096, ClusterSize: 128 << 10, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "4096", "-O", "bigalloc", "-C", "131072"}},
		{"1k-2k", "32M", Options{Type: "ext4", BlockSize: 1024, ClusterSize: 2048, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "1024", "-O", "bigalloc", "-C", "2048"}},
		{"1k-default", "32M", Options{Type: "ext4", BlockSize: 1024, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "1024", "-O", "bigalloc"}},
		{"1k-64k", "32M", Options{Type: "ext4", BlockSize: 1024, ClusterSize: 65536, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "1024", "-O", "bigalloc", "-C", "65536"}},
		{"1k-4k-nojournal", "32M", Options{Type: "ext4", BlockSize: 1024, ClusterSize: 4096, Features: []string{"bigalloc", "^has_journal"}},
			[]string{"-t", "ext4", "-b", "1024", "-O", "bigalloc,^has_journal", "-C", "4096"}},
		// -g counts clusters: several groups, flex_bg
		{"1k-16k-groups", "64M", Options{Type: "ext4", BlockSize: 1024, ClusterSize: 16384, BlocksPerGroup: 512, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "1024", "-O", "bigalloc", "-C", "16384", "-g", "512"}},
		{"4k-16k-groups", "128M", Options{Type: "ext4", BlockSize: 4096, ClusterSize: 16384, BlocksPerGroup: 1024, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "4096", "-O", "bigalloc", "-C", "16384", "-g", "1024"}},
		{"1k-4k-groups-noflex", "64M", Options{Type: "ext4", BlockSize: 1024, ClusterSize: 4096, BlocksPerGroup: 1024, Features: []string{"bigalloc", "^flex_bg"}},
			[]string{"-t", "ext4", "-b", "1024", "-O", "bigalloc,^flex_bg", "-C", "4096", "-g", "1024"}},
		{"4k-meta_bg", "64M", Options{Type: "ext4", BlockSize: 4096, ClusterSize: 16384, BlocksPerGroup: 256, Features: []string{"bigalloc", "meta_bg", "^resize_inode"}},
			[]string{"-t", "ext4", "-b", "4096", "-O", "bigalloc,meta_bg,^resize_inode", "-C", "16384", "-g", "256"}},
		{"1k-inline", "32M", Options{Type: "ext4", BlockSize: 1024, ClusterSize: 4096, Features: []string{"bigalloc", "inline_data"}},
			[]string{"-t", "ext4", "-b", "1024", "-O", "bigalloc,inline_data", "-C", "4096"}},
		{"1k-quota", "32M", Options{Type: "ext4", BlockSize: 1024, ClusterSize: 8192, Features: []string{"bigalloc", "quota"}},
			[]string{"-t", "ext4", "-b", "1024", "-O", "bigalloc,quota", "-C", "8192"}},
		{"4k-noresize", "32M", Options{Type: "ext4", BlockSize: 4096, ClusterSize: 16384, Features: []string{"bigalloc", "^resize_inode"}},
			[]string{"-t", "ext4", "-b", "4096", "-O", "bigalloc,^resize_inode", "-C", "16384"}},
		{"4k-32k-ext3", "32M", Options{Type: "ext3", BlockSize: 4096, ClusterSize: 32768, Features: []string{"bigalloc", "extent"}},
			[]string{"-t", "ext3", "-b", "4096", "-O", "bigalloc,extent", "-C", "32768"}},
	} {
		if !tooltest.Thin(i, 2, 3) {
			continue // by default every other case, with -short (the race run) every third, with FIXTUREGEN_LONG=1 all
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(mke2fs(t, refMke2fs, src, c.size, c.args...))
			if err != nil {
				t.Fatal(err)
			}
			o := c.opts
			o.Size = sizeOf(c.size)
			got, img := buildCompared(t, src, o, want)
			if slices.Contains(o.Features, "quota") {
				// mke2fs -d leaves the quota files as they were before the copy
				e2fsckOnlyQuotaUsage(t, img)
			} else {
				e2fsckClean(t, img)
			}
			f, err := NewReader(bytes.NewReader(got), int64(len(got)))
			if err != nil {
				t.Fatal(err)
			}
			if !f.hasRoCompat(roCompatBigalloc) {
				t.Errorf("bigalloc is off")
			}
			checkAgainstTree(t, f, src, true, slices.Contains(o.Features, "inline_data"))
			if w := f.Warnings(); len(w) != 0 {
				t.Errorf("warnings: %q", w)
			}
			fields, err := Fields(bytes.NewReader(got), int64(len(got)))
			if err != nil {
				t.Fatal(err)
			}
			for _, fd := range fields {
				if strings.Contains(fd.Value, "(computed") {
					t.Errorf("%s %s: %s", fd.Path, fd.Name, fd.Value)
				}
			}
		})
	}
}

// bigallocTree is smallTree with what clusters change: a sparse file
// whose data shares clusters with holes, a folder of 300 entries that
// grows past a cluster, and user attributes in inodes and in a block.
func bigallocTree(t *testing.T) string {
	t.Helper()
	dir := smallTree(t)
	sp, err := os.Create(filepath.Join(dir, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{0, 6000, 3<<20 + 1000} {
		if _, err := sp.WriteAt(bytes.Repeat([]byte{0xcd}, 3000), off); err != nil {
			t.Fatal(err)
		}
	}
	if err := sp.Truncate(5 << 20); err != nil {
		t.Fatal(err)
	}
	sp.Close()
	if err := os.Mkdir(filepath.Join(dir, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		if err := os.WriteFile(filepath.Join(dir, "folder", fmt.Sprintf("file-%04d", i)), []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, x := range []struct{ path, name, value string }{
		{"a.txt", "user.short", "v"},
		{"x.sh", "user." + strings.Repeat("long", 10), strings.Repeat("x", 300)},
		{"dir", "user.folder", "yes"},
	} {
		if err := setXattr(filepath.Join(dir, x.path), x.name, []byte(x.value)); err != nil {
			t.Skipf("the test folder's file system takes no %s attribute: %v", x.name, err)
		}
	}
	return dir
}

// TestWriteBigallocRefused checks that bigalloc settings mke2fs refuses
// are refused with ErrOption naming the field: bigalloc without extent,
// a cluster size without bigalloc, out of range, or smaller than the
// block size.
func TestWriteBigallocRefused(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Type: "ext2", Size: 64 << 20, Features: []string{"bigalloc"}}, "bigalloc needs extent"},
		{Options{Type: "ext4", Size: 64 << 20, Features: []string{"bigalloc", "^extent", "^64bit"}}, "bigalloc needs extent"},
		{Options{Type: "ext4", Size: 64 << 20, ClusterSize: 16384}, "ClusterSize 16384: specifying a cluster size requires the bigalloc feature"},
		{Options{Type: "ext4", Size: 64 << 20, ClusterSize: 1024, Features: []string{"bigalloc"}}, "ClusterSize 1024: invalid cluster size"},
		{Options{Type: "ext4", Size: 64 << 20, ClusterSize: 1 << 30, Features: []string{"bigalloc"}}, "invalid cluster size"},
		{Options{Type: "ext4", Size: 64 << 20, BlockSize: 4096, ClusterSize: 2048, Features: []string{"bigalloc"}}, "may not be smaller than the block size"},
	} {
		_, err := Build(fstree.Dir(src), &c.o)
		if !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want ErrOption saying %q", c.o, err, c.want)
		}
	}
}
