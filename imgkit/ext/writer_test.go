package ext

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// The -U and -E hash_seed values the mke2fs helper passes, as bytes.
var (
	testUUID     = [16]byte{0x6b, 0x33, 0xf6, 0xa2, 0x4b, 0xd5, 0x4f, 0xb1, 0x9b, 0xa5, 0x2c, 0x4f, 0x3a, 0x0d, 0x1e, 0x77}
	testHashSeed = [16]byte{0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0}
)

// smallTree makes a tree of every kind of node mke2fs -d copies: files
// of one block, of direct and indirect blocks and with a hole, an empty
// file, directories two deep, symbolic links of 59 (fast) and 60 bytes
// (slow), a hard link, a FIFO, and enough names in one directory to
// need a second block.
func smallTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "src")
	write := func(name string, data []byte, mode os.FileMode) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	big := make([]byte, 300_000)
	for i := range big {
		big[i] = byte(i*7 + i>>9)
	}
	write("a.txt", []byte("hello\n"), 0o644)
	write("empty", nil, 0o600)
	write("big.bin", big, 0o644)
	write("x.sh", []byte("#!/bin/sh\n"), 0o755)
	write(strings.Repeat("n", 255), []byte("long name"), 0o644)
	write("dir/sub/deep.txt", []byte("deep"), 0o644)
	write("dir/hard1", []byte("linked twice"), 0o644)
	if err := os.Link(filepath.Join(dir, "dir/hard1"), filepath.Join(dir, "hard2")); err != nil {
		t.Fatal(err)
	}
	sp := make([]byte, 40_000)
	copy(sp[20_000:], "after a hole")
	write("holey", sp, 0o644)
	for _, n := range []int{59, 60} {
		if err := os.Symlink(strings.Repeat("t", n-4)+"/end", filepath.Join(dir, fmt.Sprintf("l%d", n))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		write(fmt.Sprintf("many/entry-%02d-%s", i, strings.Repeat("x", 20)), nil, 0o644)
	}
	tooltest.Mkfifo(t, filepath.Join(dir, "fifo"))
	return dir
}

// writeCase is one mke2fs command line the writer reproduces.
type writeCase struct {
	name string
	long bool   // only with tooltest.Long: a large image
	size string // mke2fs's size argument
	opts Options
	args []string
}

var writeCases = []writeCase{
	{name: "ext2-1k-4M", size: "4M", opts: Options{BlockSize: 1024, Size: 4 << 20}, args: []string{"-t", "ext2", "-b", "1024"}},
	{name: "ext2-1k-64M", size: "64M", opts: Options{BlockSize: 1024, Size: 64 << 20}, args: []string{"-t", "ext2", "-b", "1024"}},
	{name: "ext2-4k-64M", size: "64M", opts: Options{BlockSize: 4096, Size: 64 << 20}, args: []string{"-t", "ext2", "-b", "4096"}},
	{name: "ext3-1k-4M", size: "4M", opts: Options{Type: "ext3", BlockSize: 1024, Size: 4 << 20}, args: []string{"-t", "ext3", "-b", "1024"}},
	{name: "ext3-1k-64M", size: "64M", opts: Options{Type: "ext3", BlockSize: 1024, Size: 64 << 20}, args: []string{"-t", "ext3", "-b", "1024"}},
	{name: "ext3-4k-64M", size: "64M", opts: Options{Type: "ext3", BlockSize: 4096, Size: 64 << 20}, args: []string{"-t", "ext3", "-b", "4096"}},
	{name: "ext4-1k-4M", size: "4M", opts: Options{Type: "ext4", BlockSize: 1024, Size: 4 << 20}, args: []string{"-t", "ext4", "-b", "1024"}},
	{name: "ext4-1k-64M", size: "64M", opts: Options{Type: "ext4", BlockSize: 1024, Size: 64 << 20}, args: []string{"-t", "ext4", "-b", "1024"}},
	{name: "ext4-4k-64M", size: "64M", opts: Options{Type: "ext4", BlockSize: 4096, Size: 64 << 20}, args: []string{"-t", "ext4", "-b", "4096"}},
	{name: "ext2-8k-64M", size: "64M", opts: Options{BlockSize: 8192, Size: 64 << 20}, args: []string{"-t", "ext2", "-b", "8192"}},
	{name: "ext4-64k-64M", size: "64M", opts: Options{Type: "ext4", BlockSize: 65536, Size: 64 << 20}, args: []string{"-t", "ext4", "-b", "65536"}},
	{name: "ext3-16k-64M", size: "64M", opts: Options{Type: "ext3", BlockSize: 16384, Size: 64 << 20}, args: []string{"-t", "ext3", "-b", "16384"}},
	// mke2fs.conf's "default" type: 4 KiB blocks, inode_ratio 16384, 5 groups.
	{name: "ext2-default-600M", long: true, size: "600M", opts: Options{Size: 600 << 20}, args: []string{"-t", "ext2"}},
}

// TestWriteReference compares the writer's image with the reference
// mke2fs's, byte for byte, for an empty tree and a small one.
func TestWriteReference(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	trees := map[string]string{"empty": filepath.Join(t.TempDir(), "empty"), "small": smallTree(t)}
	if err := os.Mkdir(trees["empty"], 0o755); err != nil {
		t.Fatal(err)
	}
	for i, c := range writeCases {
		if !tooltest.ShortSample(i, 3) {
			continue // -short (the race run in CI) takes every third case
		}
		if c.long && !tooltest.Long() {
			continue
		}
		for _, tree := range []string{"empty", "small"} {
			t.Run(c.name+"/"+tree, func(t *testing.T) {
				t.Parallel()
				src := trees[tree]
				ref := mke2fs(t, refMke2fs, src, c.size, c.args...)
				want, err := os.ReadFile(ref)
				if err != nil {
					t.Fatal(err)
				}
				got, img := buildCompared(t, src, c.opts, want)
				e2fsckClean(t, img)
				if tree == "small" {
					f, err := NewReader(bytes.NewReader(got), int64(len(got)))
					if err != nil {
						t.Fatal(err)
					}
					if b, err := f.ReadFile("big.bin"); err != nil || len(b) != 300_000 {
						t.Errorf("big.bin: %d bytes, %v", len(b), err)
					}
				}
			})
		}
	}
}

// TestWriteReaderTree compares the writer with the reference on the
// reader tests' tree: a 5 MiB sparse file, 255-byte and UTF-8 names, a
// directory of 3000 files (indirect directory blocks), devices as root.
func TestWriteReaderTree(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := mkTree(t)
	for _, v := range []struct {
		typ string
		bs  int
	}{{"ext2", 1024}, {"ext2", 4096}, {"ext3", 1024}, {"ext4", 1024}, {"ext4", 4096}} {
		if testing.Short() && v.typ != "ext4" {
			continue // -short (the race run in CI): ext4 only
		}
		typ, bs := v.typ, v.bs
		t.Run(fmt.Sprint(typ, "-", bs), func(t *testing.T) {
			t.Parallel()
			f := sameAsReference(t, src, "32M", Options{Type: typ, BlockSize: bs, Size: 32 << 20}, "-t", typ, "-b", fmt.Sprint(bs))
			checkAgainstTree(t, f, src, true, false)
		})
	}
}

// buildCompared builds src with o (the test ids and SOURCE_DATE_EPOCH
// added), fails where it differs from want, and returns the image and a
// file of the test's holding it.
func buildCompared(t *testing.T, src string, o Options, want []byte) ([]byte, string) {
	t.Helper()
	o.UUID, o.HashSeed = testUUID, testHashSeed
	o.Timestamp, o.ClampTimes = time.Unix(testEpoch, 0), true
	got, err := Build(fstree.Dir(src), &o)
	if err != nil {
		t.Fatal(err)
	}
	compareImages(t, got, want)
	img := filepath.Join(t.TempDir(), "w.img")
	if err := os.WriteFile(img, got, 0o644); err != nil {
		t.Fatal(err)
	}
	return got, img
}

// sameAsReference makes the image of src with o (the test ids and
// SOURCE_DATE_EPOCH added) and with the reference mke2fs and its args at
// size, fails where they differ (s_kbytes_written included), and
// returns the image read back.
func sameAsReference(t *testing.T, src, size string, o Options, args ...string) *FS {
	t.Helper()
	want, err := os.ReadFile(mke2fs(t, refMke2fs, src, size, args...))
	if err != nil {
		t.Fatal(err)
	}
	o.UUID, o.HashSeed = testUUID, testHashSeed
	o.Timestamp, o.ClampTimes = time.Unix(testEpoch, 0), true
	got, err := Build(fstree.Dir(src), &o)
	if err != nil {
		t.Fatal(err)
	}
	compareImages(t, got, want)
	f, err := NewReader(bytes.NewReader(got), int64(len(got)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// compareImages fails with the first differing byte ranges of got and
// want, each named by the reference's Fields.
func compareImages(t *testing.T, got, want []byte) {
	t.Helper()

	if len(got) != len(want) {
		t.Errorf("size %d, want %d", len(got), len(want))
	}
	if bytes.Equal(got, want) {
		return
	}
	fields, _ := Fields(bytes.NewReader(want), int64(len(want)))
	name := func(off int64) string {
		for _, f := range fields {
			if f.Offset >= 0 && off >= f.Offset && off < f.Offset+f.Size {
				return f.Path + " " + f.Name
			}
		}
		return "?"
	}
	n := 0
	for i := 0; i < min(len(got), len(want)) && n < 12; i++ {
		if got[i] != want[i] {
			j := i
			for j < min(len(got), len(want)) && got[j] != want[j] && j-i < 64 {
				j++
			}
			t.Errorf("bytes differ at %d (block %d of 1k, %d of 4k): %s: got % x, want % x", i, i/1024, i/4096, name(int64(i)), got[i:j], want[i:j])
			n++
			i = j
		}
	}
}

// e2fsckClean runs the reference e2fsck -fn on img and fails on any
// complaint.
func e2fsckClean(t *testing.T, img string) {
	t.Helper()
	bin := tooltest.Need(t, "e2fsck-1.47.4")
	out, err := exec.Command(bin, "-fn", img).CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if err != nil {
		t.Errorf("e2fsck -fn: %v\n%s", err, out)
	}
}

// TestWriteOptionsRefused checks that what the writer does not reproduce
// is refused with ErrOption rather than written differently.
func TestWriteOptionsRefused(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	for _, o := range []Options{
		{Type: "ext5", Size: 64 << 20},
		{Size: 0},
		{Size: 64 << 20, BlockSize: 512},
		{Size: 64 << 20, Label: strings.Repeat("l", 17)},
	} {
		if _, err := Build(fstree.Dir(src), &o); !errors.Is(err, ErrOption) {
			t.Errorf("%+v: %v, want ErrOption", o, err)
		}
	}
}

// islandTree is a folder of sparse files whose data blocks are islands
// (one block of data, one of hole), so that their extent trees grow to
// depth 1 (5 extents), to depth 2 on 1 KiB blocks (400 extents, past
// the root's 4 leaves of 84) and beyond a split of a depth-1 leaf, and
// a directory whose blocks are interleaved with files' (many small files
// written between its expansions), a file that starts with a hole and
// one of zeros written out.
func islandTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "islands")
	if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{3, 5, 90, 400} {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("islands-%03d", n)))
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if _, err := f.WriteAt(bytes.Repeat([]byte{byte(i + 1)}, 100), int64(i)*8192); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// a file that starts with a hole, and one of zeros written out
	f, err := os.Create(filepath.Join(dir, "hole-first"))
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int64{100 << 10, 300 << 10} {
		if _, err := f.WriteAt([]byte("past a hole"), at); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(f.Truncate(400<<10), f.Close()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "zeros"), make([]byte, 70000), 0o644); err != nil {
		t.Fatal(err)
	}
	// small files (read whole, without SEEK_HOLE, when they hold no
	// sector of zeros): one whose end is a hole, one whose last part
	// sector is zeros written out, one of data throughout
	tail := bytes.Repeat([]byte("data"), 300)
	for name, size := range map[string]int64{"hole-last": 20_000, "zeros-last": 1_500, "dense": 1_200} {
		if err := os.WriteFile(filepath.Join(dir, name), tail, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(filepath.Join(dir, name), size); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 300 {
		name := filepath.Join(dir, "d", fmt.Sprintf("%s-%03d", strings.Repeat("n", 40), i))
		if err := os.WriteFile(name, []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestWriteExtentTrees compares ext4 images of islandTree with the
// reference: 1 and 4 KiB blocks, 256 and 128-byte inodes.
func TestWriteExtentTrees(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := islandTree(t)
	for i, v := range []struct{ bs, isize int }{{1024, 256}, {4096, 256}, {1024, 128}, {2048, 256}} {
		if testing.Short() && i != 0 {
			continue // -short (the race run in CI): 1 KiB blocks only
		}
		t.Run(fmt.Sprint(v.bs, "-", v.isize), func(t *testing.T) {
			t.Parallel()
			f := sameAsReference(t, src, "48M", Options{Type: "ext4", BlockSize: v.bs, InodeSize: v.isize, Size: 48 << 20}, "-t", "ext4", "-b", fmt.Sprint(v.bs), "-I", fmt.Sprint(v.isize))
			checkAgainstTree(t, f, src, true, false)
		})
	}
}

// indirectTree is a folder for block-mapped files' I/O: a file past
// the double indirect block's reach with 1 KiB blocks, sparse files
// whose data starts in an indirect block's range or past it (rewritten
// by copy_file's 64 KiB windows), a directory past 12 blocks of 1 KiB
// with a slow symbolic link in it (found by iterating it), a hard link.
func indirectTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ind")
	if err := os.MkdirAll(filepath.Join(dir, "many"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 700_000)
	for i := range data {
		data[i] = byte(i*13 + i>>10 + 1)
	}
	write := func(name string, size int64, at ...int64) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(at); i += 2 {
			if _, err := f.WriteAt(data[:at[i+1]], at[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := errors.Join(f.Truncate(size), f.Close()); err != nil {
			t.Fatal(err)
		}
	}
	write("dind.bin", 700_000, 0, 700_000)
	write("sparse-1", 400_000, 0, 5000, 20_000, 3000, 300_000, 100)
	write("sparse-2", 300_000, 290_000, 10_000)
	write("sparse-3", 3<<20, 13<<10, 1024, 600<<10, 4096, 2<<20, 10)
	for i := range 300 {
		name := filepath.Join(dir, "many", fmt.Sprintf("%s-%03d", strings.Repeat("n", 40), i))
		if err := os.WriteFile(name, []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(strings.Repeat("t", 100), filepath.Join(dir, "many", "z-slow")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "sparse-2"), filepath.Join(dir, "hard")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestWriteBlockMapped compares images of indirectTree without extents
// whose s_kbytes_written is counted (ext4 -O ^extent, ext3 and ext2 with
// metadata_csum or uninit_bg) with the reference, the field included:
// the I/O of indirect blocks (bmap.c's, block_iterate3's) is modelled.
func TestWriteBlockMapped(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := indirectTree(t)
	for i, v := range []struct {
		typ       string
		bs, isize int
		features  string
	}{
		{"ext4", 1024, 256, "^64bit,^extent"},
		{"ext4", 4096, 256, "^64bit,^extent"},
		{"ext4", 1024, 128, "^64bit,^extent,^has_journal"},
		{"ext3", 1024, 256, "metadata_csum"},
		{"ext3", 4096, 256, "metadata_csum"},
		{"ext3", 1024, 256, "uninit_bg"},
		{"ext2", 1024, 256, "uninit_bg"},
		{"ext2", 4096, 128, "uninit_bg"},
		{"ext2", 1024, 256, "metadata_csum"},
	} {
		if !tooltest.ShortSample(i, 3) {
			continue // -short (the race run in CI) takes every third case
		}
		t.Run(fmt.Sprintf("%s-%d-%d-%s", v.typ, v.bs, v.isize, v.features), func(t *testing.T) {
			t.Parallel()
			o := Options{Type: v.typ, BlockSize: v.bs, InodeSize: v.isize, Size: 32 << 20, Features: strings.Split(v.features, ",")}
			f := sameAsReference(t, src, "32M", o, "-t", v.typ, "-b", fmt.Sprint(v.bs), "-I", fmt.Sprint(v.isize), "-O", v.features)
			checkAgainstTree(t, f, src, true, false)
		})
	}
}

// TestWriteDirExtentTree compares ext4 images of a folder of one-line
// files with the reference, the field s_kbytes_written included: each
// file's block lands between two of the folder's, so the folder's
// extent tree grows past the inode (a leaf block after 4 extents, a
// second leaf after 84 with 1 KiB blocks), and its lookups, links and
// expansions read the tree blocks as ext2fs_block_iterate3 and
// ext2fs_bmap2 do.
func TestWriteDirExtentTree(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	for i, v := range []struct{ bs, files int }{{1024, 350}, {4096, 1300}, {1024, 6000}} {
		if testing.Short() && i != 0 {
			continue // -short (the race run in CI): the smallest
		}
		t.Run(fmt.Sprint(v.bs, "-", v.files), func(t *testing.T) {
			t.Parallel()
			src := filepath.Join(t.TempDir(), "src")
			if err := os.MkdirAll(filepath.Join(src, "d"), 0o755); err != nil {
				t.Fatal(err)
			}
			for k := range v.files {
				if err := os.WriteFile(filepath.Join(src, "d", fmt.Sprintf("f%04d", k)), fmt.Appendf(nil, "line %d\n", k), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f := sameAsReference(t, src, "32M", Options{Type: "ext4", BlockSize: v.bs, Size: 32 << 20}, "-t", "ext4", "-b", fmt.Sprint(v.bs))
			checkAgainstTree(t, f, src, true, false)
		})
	}
}

// TestWriteBigDirectory compares a directory of 1200 entries of 250-byte
// names (about 400 blocks of 1 KiB: past the 268 that direct and single
// indirect blocks map, so its double indirect block is made) with the
// reference, as ext2, ext3 and ext4.
func TestWriteBigDirectory(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := filepath.Join(t.TempDir(), "big")
	if err := os.MkdirAll(filepath.Join(src, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 1200 {
		name := fmt.Sprintf("%04d-%s", i, strings.Repeat("x", 245))
		if err := os.WriteFile(filepath.Join(src, "d", name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Four long names leave a hole in the first block that the short
	// names after them could take; mke2fs -d links every name but a
	// symbolic link's into the last block only (EXT2FS_LINK_APPEND), and
	// a symbolic link into the first hole that fits.
	if err := os.MkdirAll(filepath.Join(src, "holes", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if err := os.WriteFile(filepath.Join(src, "holes", fmt.Sprintf("l%d-%s", i, strings.Repeat("y", 240))), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"s1", "s2", "s3"} {
		if err := os.WriteFile(filepath.Join(src, "holes", n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("target", filepath.Join(src, "holes", "t-link")); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"ext2", "ext3", "ext4"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			f := sameAsReference(t, src, "16M", Options{Type: typ, BlockSize: 1024, Size: 16 << 20}, "-t", typ, "-b", "1024")
			checkAgainstTree(t, f, src, true, false)
		})
	}
}

// TestWriteHugeSparseFile compares a 5 GiB sparse file (data at its
// start, past 4 GiB and at its end; with 4 KiB blocks past the double
// indirect block's reach, so ext2's triple indirect block is made) with
// the reference, as ext2 and ext4. The layout reads only the file's data
// extents (SEEK_DATA), as mke2fs does.
func TestWriteHugeSparseFile(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := filepath.Join(t.TempDir(), "huge")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(src, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int64{0, 4<<30 + 12345, 5<<30 - 10} {
		if _, err := f.WriteAt([]byte("island of data"), at); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"ext2", "ext4"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			r := sameAsReference(t, src, "64M", Options{Type: typ, BlockSize: 4096, Size: 64 << 20}, "-t", typ, "-b", "4096")
			fi, err := r.Stat("sparse")
			if err != nil || fi.Size() != 5<<30+4 {
				t.Fatalf("sparse: %v, %v", fi, err)
			}
			sf, err := r.Open("sparse")
			if err != nil {
				t.Fatal(err)
			}
			defer sf.Close()
			buf := make([]byte, 14)
			if _, err := sf.(io.ReaderAt).ReadAt(buf, 4<<30+12345); err != nil || string(buf) != "island of data" {
				t.Errorf("past 4 GiB: %q, %v", buf, err)
			}
		})
	}
}

// TestWriteXattrs compares images of a tree whose files carry extended
// attributes (user. names short and long enough to overflow the inode's
// body into the attribute block, in the order the host lists them, and
// a POSIX ACL, converted to ext4's form) with the reference, which copies
// them with llistxattr as the writer's host walk reads them, as ext2
// (128-byte inodes: every attribute in the block) and ext4.
func TestWriteXattrs(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := filepath.Join(t.TempDir(), "xattrs")
	if err := os.MkdirAll(filepath.Join(src, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "blockonly", "dir/c", "plain"} {
		if err := os.WriteFile(filepath.Join(src, n), []byte("contents of "+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set := func(p, name string, value []byte) {
		t.Helper()
		if err := setXattr(filepath.Join(src, p), name, value); err != nil {
			t.Skipf("the test folder's file system takes no %s attribute: %v", name, err)
		}
	}
	set("a", "user.short", []byte("v"))
	set("a", "user.mime_type", []byte("text/plain"))
	set("b", "user.zzz", []byte("small"))
	set("b", "user."+strings.Repeat("long", 10), bytes.Repeat([]byte("x"), 100))
	set("b", "user.aa", []byte("fits in the block too"))
	set("dir", "user.folder", []byte("yes"))
	// alone in the block: the body keeps the magic all the same
	set("blockonly", "user.blockonly", bytes.Repeat([]byte("b"), 300))
	set(".", "user.root", []byte("the source folder's own"))
	// an access ACL: user::rw-, user:1000:r--, group::r--, mask::r--, other::---
	acl := []byte{2, 0, 0, 0}
	for _, e := range [][3]uint32{{0x01, 6, 0xffffffff}, {0x02, 4, 1000}, {0x04, 4, 0xffffffff}, {0x10, 4, 0xffffffff}, {0x20, 0, 0xffffffff}} {
		acl = binary.LittleEndian.AppendUint16(acl, uint16(e[0]))
		acl = binary.LittleEndian.AppendUint16(acl, uint16(e[1]))
		acl = binary.LittleEndian.AppendUint32(acl, e[2])
	}
	set("dir/c", "system.posix_acl_access", acl)
	for _, v := range []struct {
		typ   string
		isize int
	}{{"ext2", 128}, {"ext4", 256}, {"ext3", 256}, {"ext4", 512}, {"ext2", 1024}} {
		t.Run(fmt.Sprint(v.typ, "-", v.isize), func(t *testing.T) {
			t.Parallel()
			f := sameAsReference(t, src, "8M", Options{Type: v.typ, BlockSize: 1024, InodeSize: v.isize, Size: 8 << 20}, "-t", v.typ, "-b", "1024", "-I", fmt.Sprint(v.isize))
			if w := f.Warnings(); len(w) != 0 {
				t.Errorf("warnings: %q", w)
			}
			xs, err := f.Xattrs("b")
			if err != nil || len(xs) != 3 {
				t.Errorf("b's attributes: %v, %v", xs, err)
			}
		})
	}
}

// TestWriteHugeFileSystem compares a 4 TiB ext4 (32768 groups: 2048 flex
// groups, backups up to group 19683, a 1 GiB journal in the middle) of a
// small tree with the reference, as sparse files. Not with -short.
func TestWriteHugeFileSystem(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a 4 TiB sparse image each")
	}
	sameSparseAsReference(t, t.TempDir(), 4<<40, "4T")
}

// sameSparseAsReference makes an ext4 of size bytes (sizeArg for mke2fs)
// of a small tree with the writer and with the reference, as sparse
// files in dir, and fails where they differ.
func sameSparseAsReference(t *testing.T, dir string, size int64, sizeArg string) {
	t.Helper()
	sameSparseAsReferenceWith(t, dir, Options{Size: size}, sizeArg)
}

// sameSparseAsReferenceWith is sameSparseAsReference with the writer's
// options o (Type, the ids and times set here) and mke2fs's arguments
// args after -t ext4.
func sameSparseAsReferenceWith(t *testing.T, dir string, o Options, sizeArg string, args ...string) {
	t.Helper()
	tooltest.Need(t, refMke2fs)
	src := filepath.Join(t.TempDir(), "tree")
	if err := os.MkdirAll(filepath.Join(src, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "d", "f"), []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	ref := mke2fsAt(t, filepath.Join(dir, "ref.img"), refMke2fs, src, sizeArg, append([]string{"-t", "ext4"}, args...)...)
	got := filepath.Join(dir, "got.img")
	o.Type, o.UUID, o.HashSeed = "ext4", testUUID, testHashSeed
	o.Timestamp, o.ClampTimes = time.Unix(testEpoch, 0), true
	if err := WriteFile(got, fstree.Dir(src), &o); err != nil {
		t.Fatal(err)
	}
	if off, err := tooltest.FirstDiff(got, ref); err != nil || off >= 0 {
		t.Errorf("differs from mke2fs 1.47.4 at byte %d (%v)", off, err)
	}
}

// TestWriteNoSpace checks that a tree too large for its blocks or its
// inodes is ErrNoSpace, named by the node that did not fit.
func TestWriteNoSpace(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"big": {Data: bytes.Repeat([]byte{1}, 3<<20)}}
	for i := range 40 {
		fsys[fmt.Sprintf("f%02d", i)] = &fstest.MapFile{Data: []byte("x")}
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Size: 2 << 20}, "ext: big: no space: out of blocks"},
		{Options{Size: 8 << 20, InodeCount: 16}, "no space: out of inodes"},
	} {
		_, err := Build(fstree.FS(fsys), &c.o)
		if !errors.Is(err, ErrNoSpace) || !strings.Contains(err.Error(), c.want) || strings.Count(err.Error(), "ext:") != 1 {
			t.Errorf("%+v: %v, want ErrNoSpace saying %q", c.o, err, c.want)
		}
	}
}

// TestWriteDeepExtentTreesExact compares, byte for byte with
// s_kbytes_written, ext4 images of files of 3, 5, 90 and 400 one-block
// islands 128 KiB apart (so that mke2fs writes each once): extent trees
// of depth 0, 1 and 2, whose splits, gotos and leaf updates the writer's
// model of mke2fs's I/O follows.
func TestWriteDeepExtentTreesExact(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := filepath.Join(t.TempDir(), "deep")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{3, 5, 90, 400} {
		f, err := os.Create(filepath.Join(src, fmt.Sprintf("islands-%03d", n)))
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if _, err := f.WriteAt(bytes.Repeat([]byte{byte(i%250 + 1)}, 100), int64(i)<<17); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for i, bs := range []int{1024, 4096} {
		if !tooltest.ShortSample(i, 2) {
			continue // -short: 1 KiB blocks, the deeper trees
		}
		t.Run(fmt.Sprint(bs), func(t *testing.T) {
			t.Parallel()
			f := sameAsReference(t, src, "64M", Options{Type: "ext4", BlockSize: bs, Size: 64 << 20}, "-t", "ext4", "-b", fmt.Sprint(bs))
			checkAgainstTree(t, f, src, true, false)
		})
	}
}

// TestUpdateFile writes file systems into existing files: the bytes
// outside Offset..Offset+Size are the file's (a disk's first MiB, a
// longer file's tail), the range is Build's image, a shorter file grows;
// a tree that does not fit leaves the file as it was with nothing beside
// it, and a folder is refused.
func TestUpdateFile(t *testing.T) {
	t.Parallel()
	src := fstest.MapFS{"a.txt": {Data: []byte("hello\n"), Mode: 0o644}, "d/b": {Data: bytes.Repeat([]byte("b"), 5000), Mode: 0o600}}
	for _, c := range []struct {
		have, off int64
	}{{16 << 20, 0}, {16 << 20, 1 << 20}, {1 << 20, 4096}, {0, 0}} {
		t.Run(fmt.Sprint(c.have, c.off), func(t *testing.T) {
			t.Parallel()
			o := &Options{Type: "ext4", Size: 4 << 20, Offset: c.off, Timestamp: time.Unix(1, 0)}
			path := filepath.Join(t.TempDir(), "disk.img")
			before := make([]byte, c.have)
			for i := range before {
				before[i] = byte(i%251 + 1)
			}
			if err := os.WriteFile(path, before, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := UpdateFile(path, fstree.FS(src), o); err != nil {
				t.Fatal(err)
			}
			inner := *o
			inner.Offset = 0
			want, err := Build(fstree.FS(src), &inner)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			end := c.off + o.Size
			if int64(len(got)) != max(end, c.have) {
				t.Fatalf("%d bytes, want %d", len(got), max(end, c.have))
			}
			if !bytes.Equal(got[c.off:end], want) {
				t.Errorf("the file system's range is not Build's image")
			}
			if c.off <= c.have && !bytes.Equal(got[:c.off], before[:c.off]) {
				t.Errorf("the bytes before the offset changed")
			}
			if end < c.have && !bytes.Equal(got[end:], before[end:]) {
				t.Errorf("the bytes past the file system changed")
			}
		})
	}
	t.Run("errors", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "disk.img")
		before := bytes.Repeat([]byte{0xa5}, 2<<20)
		if err := os.WriteFile(path, before, 0o644); err != nil {
			t.Fatal(err)
		}
		big := fstest.MapFS{"big": {Data: bytes.Repeat([]byte{1}, 3<<20)}}
		// the whole file, then a part of it (the copy made first)
		for _, o := range []*Options{{Size: 2 << 20}, {Size: 1 << 20, Offset: 64 << 10}} {
			if err := UpdateFile(path, fstree.FS(big), o); !errors.Is(err, ErrNoSpace) {
				t.Fatalf("a tree too big at %d: %v, want ErrNoSpace", o.Offset, err)
			}
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, before) {
				t.Errorf("the file changed after a failed update at %d (%v)", o.Offset, err)
			}
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("left beside the file: %v", ents)
		}
		if err := UpdateFile(dir, fstree.FS(big), &Options{Size: 8 << 20}); err == nil || !errors.Is(err, imgfmt.ErrNotRegular) {
			t.Errorf("a folder: %v, want not a regular file", err)
		}
	})
}

// TestUpdateFileKeepsPerm checks that an updated file keeps its
// permissions, whether bytes outside the file system are kept or not.
func TestUpdateFileKeepsPerm(t *testing.T) {
	t.Parallel()
	for _, off := range []int64{0, 4096} {
		path := filepath.Join(t.TempDir(), "disk.img")
		if err := os.WriteFile(path, make([]byte, 1<<20), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o640); err != nil {
			t.Fatal(err)
		}
		if err := UpdateFile(path, fstree.FS(fstest.MapFS{}), &Options{Size: 2 << 20, Offset: off}); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("offset %d: %v after the update (%v), want -rw-r-----", off, fi.Mode(), err)
		}
	}
}

// TestWriteSteadyRunsExact compares with the reference, s_kbytes_written
// included, ext4 images of files whose blocks follow each other on disk
// (the runs the I/O model replays in one step, ioModel.skipSteady):
// files of 1 to 2,000 blocks, one whose blocks of zeros break its runs,
// one crossing a block group, with 1 KiB and 4 KiB blocks.
func TestWriteSteadyRunsExact(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := filepath.Join(t.TempDir(), "steady")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	put := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(src, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pattern := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i%253 + 1)
		}
		return b
	}
	for _, kib := range []int{1, 7, 8, 9, 64, 65, 300, 2000} {
		put(fmt.Sprintf("f%04d", kib), pattern(kib<<10))
	}
	holes := pattern(200 << 10)
	for _, at := range []int{3, 40, 41, 100, 150} {
		clear(holes[at<<10 : (at+1)<<10])
	}
	put("holes", holes)
	put("zcross", pattern(9<<20)) // past a 1 KiB-block group's 8 MiB
	for _, bs := range []int{1024, 4096} {
		t.Run(fmt.Sprint(bs), func(t *testing.T) {
			t.Parallel()
			sameAsReference(t, src, "64M", Options{Type: "ext4", BlockSize: bs, Size: 64 << 20}, "-t", "ext4", "-b", fmt.Sprint(bs))
		})
	}
}
