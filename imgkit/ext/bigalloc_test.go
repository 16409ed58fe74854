package ext

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

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
	src := smallTree(t)
	for i, c := range []struct {
		name string
		size string
		opts Options
		args []string
	}{
		{"4k-64k", "64M", Options{Type: "ext4", BlockSize: 4096, ClusterSize: 65536, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "4096", "-O", "bigalloc", "-C", "65536"}},
		{"4k-default", "64M", Options{Type: "ext4", BlockSize: 4096, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "4096", "-O", "bigalloc"}},
		{"4k-8k", "64M", Options{Type: "ext4", BlockSize: 4096, ClusterSize: 8192, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "4096", "-O", "bigalloc", "-C", "8192"}},
		{"4k-256k", "64M", Options{Type: "ext4", BlockSize: 4096, ClusterSize: 256 << 10, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "4096", "-O", "bigalloc", "-C", "262144"}},
		{"1k-2k", "64M", Options{Type: "ext4", BlockSize: 1024, ClusterSize: 2048, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "1024", "-O", "bigalloc", "-C", "2048"}},
		{"1k-default", "64M", Options{Type: "ext4", BlockSize: 1024, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "1024", "-O", "bigalloc"}},
		{"1k-64k", "64M", Options{Type: "ext4", BlockSize: 1024, ClusterSize: 65536, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "1024", "-O", "bigalloc", "-C", "65536"}},
		{"4k-16k-nojournal", "64M", Options{Type: "ext4", BlockSize: 4096, ClusterSize: 16384, Features: []string{"bigalloc", "^has_journal"}},
			[]string{"-t", "ext4", "-b", "4096", "-O", "bigalloc,^has_journal", "-C", "16384"}},
		{"1k-4k-nojournal", "64M", Options{Type: "ext4", BlockSize: 1024, ClusterSize: 4096, Features: []string{"bigalloc", "^has_journal"}},
			[]string{"-t", "ext4", "-b", "1024", "-O", "bigalloc,^has_journal", "-C", "4096"}},
		// -g counts clusters: several groups, flex_bg
		{"1k-16k-groups", "64M", Options{Type: "ext4", BlockSize: 1024, ClusterSize: 16384, BlocksPerGroup: 512, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "1024", "-O", "bigalloc", "-C", "16384", "-g", "512"}},
		{"4k-16k-groups", "128M", Options{Type: "ext4", BlockSize: 4096, ClusterSize: 16384, BlocksPerGroup: 1024, Features: []string{"bigalloc"}},
			[]string{"-t", "ext4", "-b", "4096", "-O", "bigalloc", "-C", "16384", "-g", "1024"}},
		{"1k-4k-groups-noflex", "64M", Options{Type: "ext4", BlockSize: 1024, ClusterSize: 4096, BlocksPerGroup: 1024, Features: []string{"bigalloc", "^flex_bg"}},
			[]string{"-t", "ext4", "-b", "1024", "-O", "bigalloc,^flex_bg", "-C", "4096", "-g", "1024"}},
		{"4k-32k-ext3", "64M", Options{Type: "ext3", BlockSize: 4096, ClusterSize: 32768, Features: []string{"bigalloc", "extent"}},
			[]string{"-t", "ext3", "-b", "4096", "-O", "bigalloc,extent", "-C", "32768"}},
	} {
		if testing.Short() && i%3 != 0 {
			continue // -short (the race run in CI) takes every third case
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
			e2fsckClean(t, img)
			f, err := NewReader(bytes.NewReader(got), int64(len(got)))
			if err != nil {
				t.Fatal(err)
			}
			if !f.hasRoCompat(roCompatBigalloc) {
				t.Errorf("bigalloc is off")
			}
			checkAgainstTree(t, f, src, true, false)
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
			_ = fmt.Sprint()
		})
	}
}
