package ext

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestWriteMetaBg compares the writer with the reference for meta_bg
// (asked for, and turned on by ext2fs_initialize when descriptors would
// fill 3/4 of a group) and -E packed_meta_blocks: several meta groups
// with 1 and 4 KiB blocks, with and without flex_bg and 64bit, and
// tables and journal packed at the start. Each image is mke2fs's,
// s_kbytes_written included, e2fsck -fn clean, reads back equal to the
// tree with no warning, and has meta_bg on (or the tables packed) as
// the case says, so that a case that stops exercising it fails.
func TestWriteMetaBg(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := smallTree(t)
	const seedPacked = "hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0,packed_meta_blocks"
	noResize := []string{"meta_bg", "^resize_inode"}
	for i, c := range []struct {
		name   string
		size   string
		opts   Options
		args   []string
		metaBg bool
		groups uint32 // at least this many groups
	}{
		// 64bit: 16 descriptors a 1 KiB block, 4 meta groups
		{"ext4-1k-flex-64bit", "64M", Options{Type: "ext4", BlockSize: 1024, BlocksPerGroup: 1024, Features: noResize},
			[]string{"-t", "ext4", "-b", "1024", "-g", "1024", "-O", "meta_bg,^resize_inode"}, true, 64},
		{"ext4-1k-noflex-32bit", "64M", Options{Type: "ext4", BlockSize: 1024, BlocksPerGroup: 1024, Features: append(noResize, "^flex_bg", "^64bit")},
			[]string{"-t", "ext4", "-b", "1024", "-g", "1024", "-O", "meta_bg,^resize_inode,^flex_bg,^64bit"}, true, 64},
		// 64 descriptors a 4 KiB block (128 without 64bit), 160 groups
		{"ext4-4k-noflex", "160M", Options{Type: "ext4", BlockSize: 4096, BlocksPerGroup: 256, Features: append(noResize, "^flex_bg")},
			[]string{"-t", "ext4", "-b", "4096", "-g", "256", "-O", "meta_bg,^resize_inode,^flex_bg"}, true, 160},
		{"ext3-4k", "160M", Options{Type: "ext3", BlockSize: 4096, BlocksPerGroup: 256, Features: noResize},
			[]string{"-t", "ext3", "-b", "4096", "-g", "256", "-O", "meta_bg,^resize_inode"}, true, 160},
		{"ext2-1k", "64M", Options{Type: "ext2", BlockSize: 1024, BlocksPerGroup: 1024, Features: noResize},
			[]string{"-t", "ext2", "-b", "1024", "-g", "1024", "-O", "meta_bg,^resize_inode"}, true, 64},
		// 256 reserved GDT blocks pass 3/4 of a 256-block group: meta_bg
		// without resize_inode
		{"ext2-1k-auto", "8M", Options{Type: "ext2", BlockSize: 1024, BlocksPerGroup: 256},
			[]string{"-t", "ext2", "-b", "1024", "-g", "256"}, true, 32},
		{"ext4-1k-auto", "8M", Options{Type: "ext4", BlockSize: 1024, BlocksPerGroup: 256},
			[]string{"-t", "ext4", "-b", "1024", "-g", "256"}, true, 32},
		{"ext4-1k-packed-meta_bg", "64M", Options{Type: "ext4", BlockSize: 1024, BlocksPerGroup: 1024, Features: noResize, PackedMetaBlocks: true},
			[]string{"-t", "ext4", "-b", "1024", "-g", "1024", "-O", "meta_bg,^resize_inode", "-E", seedPacked}, true, 64},
		{"ext4-4k-packed", "64M", Options{Type: "ext4", BlockSize: 4096, PackedMetaBlocks: true},
			[]string{"-t", "ext4", "-b", "4096", "-E", seedPacked}, false, 1},
		{"ext4-4k-packed-nojournal", "64M", Options{Type: "ext4", BlockSize: 4096, Features: []string{"^has_journal"}, PackedMetaBlocks: true},
			[]string{"-t", "ext4", "-b", "4096", "-O", "^has_journal", "-E", seedPacked}, false, 1},
		// without flex_bg only the journal moves
		{"ext3-1k-packed", "64M", Options{Type: "ext3", BlockSize: 1024, PackedMetaBlocks: true},
			[]string{"-t", "ext3", "-b", "1024", "-E", seedPacked}, false, 8},
	} {
		if !tooltest.Thin(i, 2, 4) {
			continue // by default every other case, with -short (the race run) every fourth, with FIXTUREGEN_LONG=1 all
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tooltest.Reserve(t, 2*sizeOf(c.size)) // the reference's image and Build's
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
			if f.hasIncompat(incompatMetaBG) != c.metaBg {
				t.Errorf("meta_bg %v, want %v", f.hasIncompat(incompatMetaBG), c.metaBg)
			}
			if n := uint32(len(f.gdt)); n < c.groups {
				t.Errorf("%d groups, want at least %d", n, c.groups)
			}
			if c.opts.PackedMetaBlocks {
				checkPacked(t, f)
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
		})
	}
}

// checkPacked checks that with flex_bg the inode tables follow each
// other in group order within the first eighth of the file system (they
// would be spread over each flex group's groups without packing).
func checkPacked(t *testing.T, f *FS) {
	t.Helper()
	if !f.hasIncompat(incompatFlexBG) {
		return
	}
	prev := uint64(0)
	for i, d := range f.gdt {
		it := d.lohi(groupDesc.bgInodeTableLo, groupDesc.bgInodeTableHi)
		if it <= prev || it >= f.g.blocks/8 {
			t.Errorf("group %d's inode table at %d (the one before at %d), want them packed in order in the first %d blocks", i, it, prev, f.g.blocks/8)
			return
		}
		prev = it
	}
}

// sizeOf is a size argument of these tests ("64M") in bytes.
func sizeOf(s string) int64 {
	var n int64
	for _, c := range s[:len(s)-1] {
		n = n*10 + int64(c-'0')
	}
	return n << 20
}
