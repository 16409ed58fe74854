package ext

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// inlineTree makes a tree around inline_data's limits: empty files and
// files of 1 to 5000 bytes (60 in i_block, up to 128 or 384 with
// system.data in a 256 or 512-byte inode), files of zeros (left inline
// whatever their size), a file ending in a hole (written short),
// directories of 0, 1, 5, 50 and 500 entries (inline until their 56
// bytes are full, then a block), symbolic links of 59 to 300 bytes, hard
// links, and user attributes beside system.data (in the body and in the
// block). It reports whether the attributes could be set.
func inlineTree(t *testing.T) (string, bool) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "inline")
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + byte(i*7%26)
		}
		return b
	}
	for _, n := range []int{0, 1, 59, 60, 61, 100, 128, 129, 160, 384, 385, 1000, 5000} {
		write(fmt.Sprintf("f%d", n), text(n))
	}
	write("zero100", make([]byte, 100))
	write("zero8k", make([]byte, 8192))
	hole := make([]byte, 9000)
	hole[0] = 'x'
	write("hole-end", hole)
	lead := make([]byte, 9000)
	copy(lead[5000:], "after zeros")
	write("hole-start", lead)
	big := text(300_000)
	write("big", big)
	clear(big[:20_000])
	write("big-hole-start", big)
	if err := os.MkdirAll(filepath.Join(dir, "d0"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("d1/a", []byte("one"))
	for i := range 5 {
		write(fmt.Sprintf("d5/file%d", i), text(i))
	}
	for i := range 50 {
		write(fmt.Sprintf("d50/entry%d", i), text(i))
	}
	for i := range 500 {
		write(fmt.Sprintf("d500/n%d", i), nil)
	}
	write("d2/sub/leaf", text(70))
	for _, n := range []int{59, 60, 61, 100, 129, 300, 384, 385} {
		if err := os.Symlink(strings.Repeat("t", n-4)+"/end", filepath.Join(dir, fmt.Sprintf("l%d", n))); err != nil {
			t.Fatal(err)
		}
		// links made by ext2fs_symlink into a full inline directory
		if err := os.Symlink(strings.Repeat("s", n-4)+"/end", filepath.Join(dir, "d1", fmt.Sprintf("link%d", n))); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range [][2]string{{"f1", "hard1"}, {"f100", "d5/hard100"}, {"f1000", "d1/hard1000"}} {
		if err := os.Link(filepath.Join(dir, l[0]), filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	xattrs := true
	for _, x := range []struct {
		path, name string
		value      []byte
	}{
		{"f100", "user.small", []byte("hello")},
		{"f1", "user.big", bytes.Repeat([]byte("y"), 80)},
		{"f60", "user.a", []byte("fits beside system.data")},
		{"d0", "user.dir", []byte("v")},
		{"d5", "user.dir", []byte("expanded")},
		{"f5000", "user.x", []byte("1234")},
	} {
		if err := setXattr(filepath.Join(dir, x.path), x.name, x.value); err != nil {
			xattrs = false
			break
		}
	}
	return dir, xattrs
}

// TestWriteInlineData compares images made with -O inline_data with the
// reference: ext4 with 1, 4 and 64 KiB blocks and 256 and 512-byte
// inodes, ext4 without metadata_csum, ext2 and ext3 (block maps, 1024-byte
// inodes, ^filetype) and ext4 without extents: identical (the last past
// s_kbytes_written), e2fsck -fn clean, the same bytes built in place
// (Write to a bcache.Section), and every path reads back equal to the
// source (a file ending in a hole as far as its last data block).
func TestWriteInlineData(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src, xattrs := inlineTree(t)
	if !xattrs {
		t.Log("the test folder's file system takes no user attributes: the tree has none")
	}
	for i, v := range []struct {
		typ      string
		bs       int
		isize    int
		features string
		mib      int // the size, 16 MiB if 0
	}{
		{"ext4", 4096, 256, "inline_data", 0},
		{"ext4", 1024, 256, "inline_data", 0},
		{"ext4", 4096, 512, "inline_data", 0},
		{"ext4", 1024, 512, "inline_data,^metadata_csum", 0},
		{"ext2", 1024, 256, "inline_data", 0},
		{"ext2", 4096, 256, "inline_data", 0},
		{"ext4", 65536, 256, "inline_data", 128},
		{"ext2", 2048, 1024, "inline_data", 0},
		{"ext3", 1024, 1024, "inline_data,^dir_index,^filetype", 0},
		{"ext4", 1024, 256, "inline_data,^64bit,^extent", 0},
	} {
		if !tooltest.ShortSample(i, 4) {
			continue // -short (the race run in CI) takes every fourth case
		}
		t.Run(fmt.Sprintf("%s-%d-%d-%s", v.typ, v.bs, v.isize, v.features), func(t *testing.T) {
			t.Parallel()
			mib := max(v.mib, 16)
			o := Options{Type: v.typ, BlockSize: v.bs, InodeSize: v.isize, Size: int64(mib) << 20, Features: strings.Split(v.features, ",")}
			f := sameAsReference(t, src, fmt.Sprintf("%dM", mib), o, "-t", v.typ, "-b", fmt.Sprint(v.bs), "-I", fmt.Sprint(v.isize), "-O", v.features)
			checkAgainstTree(t, f, src, true, true)
			o.UUID, o.HashSeed = testUUID, testHashSeed
			o.Timestamp, o.ClampTimes = time.Unix(testEpoch, 0), true
			img := filepath.Join(t.TempDir(), "w.img")
			if err := WriteFile(img, fstree.Dir(src), &o); err != nil {
				t.Fatal(err)
			}
			e2fsckClean(t, img)
			// built in place (a disk's partition): the same bytes
			want, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buildInPlace(t, fstree.Dir(src), &o), want) {
				t.Error("built in place, the image differs from WriteFile's")
			}
		})
	}
}

// TestWriteInlineDataReaderTree compares -O inline_data images of the
// reader tests' tree (a 3000-entry directory, a sparse 5 MiB file, 255-byte
// and UTF-8 names, devices, a FIFO) with the reference's.
func TestWriteInlineDataReaderTree(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := mkTree(t)
	for _, v := range []struct {
		typ string
		bs  int
	}{{"ext4", 4096}, {"ext2", 1024}} {
		t.Run(fmt.Sprint(v.typ, "-", v.bs), func(t *testing.T) {
			t.Parallel()
			o := Options{Type: v.typ, BlockSize: v.bs, Size: 32 << 20, Features: []string{"inline_data"}}
			f := sameAsReference(t, src, "32M", o, "-t", v.typ, "-b", fmt.Sprint(v.bs), "-O", "inline_data")
			checkAgainstTree(t, f, src, true, true)
		})
	}
}

// TestWriteInlineDataRefused: 128-byte inodes and inline_data without
// ext_attr are refused, as mke2fs refuses the first (and makes an image
// e2fsck finds wrong of the second).
func TestWriteInlineDataRefused(t *testing.T) {
	t.Parallel()
	for _, o := range []Options{
		{Type: "ext4", InodeSize: 128, Size: 8 << 20, Features: []string{"inline_data"}},
		{Type: "ext4", Size: 8 << 20, Features: []string{"inline_data", "^ext_attr"}},
	} {
		_, err := Build(fstree.Dir(t.TempDir()), &o)
		if !errors.Is(err, ErrOption) {
			t.Errorf("%+v: %v, want ErrOption", o, err)
		}
	}
}

// TestWriteInlineDataFS writes a tree that is not a host folder
// (fstree.FS of a MapFS: no SEEK_DATA, each file one region) with
// -O inline_data: e2fsck -fn clean, and every file reads back, inline
// or expanded.
func TestWriteInlineDataFS(t *testing.T) {
	t.Parallel()
	m := fstest.MapFS{
		"small":      {Data: []byte("inline"), Mode: 0o644},
		"edge":       {Data: bytes.Repeat([]byte("e"), 128), Mode: 0o644},
		"over":       {Data: bytes.Repeat([]byte("o"), 129), Mode: 0o644},
		"zeros":      {Data: make([]byte, 5000), Mode: 0o644},
		"late":       {Data: append(make([]byte, 5000), "late"...), Mode: 0o644},
		"dir/a":      {Data: []byte("a"), Mode: 0o644},
		"dir/b":      {Data: []byte("b"), Mode: 0o644},
		"full/name1": {Data: nil, Mode: 0o644},
		"full/name2": {Data: nil, Mode: 0o644},
		"full/name3": {Data: nil, Mode: 0o644},
		"full/name4": {Data: nil, Mode: 0o644},
	}
	o := Options{Type: "ext4", BlockSize: 1024, Size: 8 << 20, Features: []string{"inline_data"}, Timestamp: time.Unix(testEpoch, 0)}
	img := filepath.Join(t.TempDir(), "fs.img")
	if err := WriteFile(img, fstree.FS(m), &o); err != nil {
		t.Fatal(err)
	}
	e2fsckClean(t, img)
	f := openImage(t, img)
	for name, want := range map[string]struct {
		data   []byte
		inline bool
	}{
		"small": {m["small"].Data, true}, "edge": {m["edge"].Data, true}, "over": {m["over"].Data, false},
		"zeros": {m["zeros"].Data, true}, "late": {m["late"].Data, false}, "dir/b": {m["dir/b"].Data, true},
	} {
		got, err := f.ReadFile(name)
		if err != nil || !bytes.Equal(got, want.data) {
			t.Errorf("%s: %d bytes, %v; want %d", name, len(got), err, len(want.data))
		}
		fi, err := f.Lstat(name)
		if err != nil {
			t.Fatal(err)
		}
		if in := fi.Sys().(*Inode); (in.Flags&inlineDataFL != 0) != want.inline {
			t.Errorf("%s: i_flags %#x, want inline %v", name, in.Flags, want.inline)
		}
	}
	for dir, inline := range map[string]bool{"dir": true, "full": false} {
		fi, err := f.Lstat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if in := fi.Sys().(*Inode); (in.Flags&inlineDataFL != 0) != inline {
			t.Errorf("%s: i_flags %#x, want inline %v", dir, in.Flags, inline)
		}
	}
}
