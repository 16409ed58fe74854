package ext

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// readVariants are the mke2fs command lines the reader tests read back:
// ext2 and ext3 with indirect blocks, ext4 with extents, flex_bg,
// metadata_csum and 64-bit descriptors, blocks of 1024 and 4096 bytes,
// inodes of 128 and 256 bytes, and inline data.
var readVariants = []struct {
	name string
	args []string
}{
	{"ext2-1k", []string{"-t", "ext2", "-b", "1024"}},
	{"ext2-4k-128", []string{"-t", "ext2", "-b", "4096", "-I", "128"}},
	{"ext3-1k", []string{"-t", "ext3", "-b", "1024"}},
	{"ext4-4k", []string{"-t", "ext4", "-b", "4096"}},
	{"ext4-1k-128", []string{"-t", "ext4", "-b", "1024", "-I", "128"}},
	{"ext4-inline", []string{"-t", "ext4", "-O", "inline_data"}},
	{"ext4-no64-gdtcsum", []string{"-t", "ext4", "-O", "^64bit,^metadata_csum,uninit_bg"}},
}

// TestReadReference reads back images the reference mke2fs made of one
// tree with every variant, checking each path against the tree, and that
// the checksums of a clean image verify.
func TestReadReference(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := mkTree(t)
	for _, v := range readVariants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			img := mke2fs(t, refMke2fs, src, "32M", append([]string{"-N", "6000"}, v.args...)...)
			f := openImage(t, img)
			checkAgainstTree(t, &f.FS, src, true, v.name == "ext4-inline")
			if w := f.Warnings(); len(w) != 0 {
				t.Errorf("warnings: %q", w)
			}
		})
	}
}

// TestReadSystemMke2fs reads back an ext4 image of the system's mke2fs
// (Debian's 1.47.0), which writes what 1.47.4 does in other places.
func TestReadSystemMke2fs(t *testing.T) {
	t.Parallel()
	src := mkTree(t)
	img := mke2fs(t, "mke2fs", src, "32M", "-N", "6000", "-t", "ext4")
	f := openImage(t, img)
	checkAgainstTree(t, &f.FS, src, false, false)
	if w := f.Warnings(); len(w) != 0 {
		t.Errorf("warnings: %q", w)
	}
}

// TestReadHtree reads back an image whose large directory e2fsck -fD has
// indexed (mke2fs -d writes linear directories only).
func TestReadHtree(t *testing.T) {
	t.Parallel()
	for _, v := range []struct{ name, typ, bs string }{{"ext4-4k", "ext4", "4096"}, {"ext3-1k", "ext3", "1024"}} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			src := mkTree(t)
			img := mke2fs(t, refMke2fs, src, "32M", "-N", "6000", "-t", v.typ, "-b", v.bs)
			e2fsck := tooltest.Need(t, "e2fsck-1.47.4")
			out, err := exec.Command(e2fsck, "-fyD", img).CombinedOutput()
			if code := exitCode(err); code > 1 {
				t.Fatalf("e2fsck -fyD: %v\n%s", err, out)
			}
			f := openImage(t, img)
			in, err := f.Inode("many")
			if err != nil {
				t.Fatal(err)
			}
			if in.Flags&indexFL == 0 {
				t.Fatalf("e2fsck -D left many/ without EXT4_INDEX_FL (i_flags %#x)", in.Flags)
			}
			checkAgainstTree(t, &f.FS, src, true, false)
			if w := f.Warnings(); len(w) != 0 {
				t.Errorf("warnings: %q", w)
			}
		})
	}
}

// exitCode is the exit status of a command's error, 0 for none.
func exitCode(err error) int {
	if e, ok := err.(*exec.ExitError); ok {
		return e.ExitCode()
	}
	if err != nil {
		return 255
	}
	return 0
}

// TestChecksumWarnings changes bytes under the superblock's, a group
// descriptor's and an inode's checksums and expects one warning for each,
// the image still reading.
func TestChecksumWarnings(t *testing.T) {
	t.Parallel()
	src := mkTree(t)
	img := mke2fs(t, refMke2fs, src, "32M", "-N", "6000", "-t", "ext4", "-b", "4096")
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	f := openImage(t, img)
	in, err := f.Inode("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	b[superblockOff+0x88] ^= 1 // s_last_mounted
	b[4096+0x1c] ^= 1          // bg_itable_unused_lo of group 0
	b[in.off+0x64] ^= 1        // i_generation
	p := img + ".bad"
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	g := openImage(t, p)
	if _, err := g.ReadFile("a.txt"); err != nil {
		t.Fatal(err)
	}
	w := strings.Join(g.Warnings(), "\n")
	for _, want := range []string{"superblock at byte 0x400: s_checksum", "group descriptor 0 at byte 0x1000: bg_checksum", fmt.Sprintf("inode %d at byte %#x: checksum", in.Ino, in.off)} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q lack %q", w, want)
		}
	}
}

// countingReader counts the ReadAt calls made on an io.ReaderAt.
type countingReader struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.n.Add(1)
	return c.r.ReadAt(p, off)
}

// TestIndirectReadsRuns reads a 200 kB file of an ext2 image with 1 KiB
// blocks, mapped by direct and indirect blocks, and expects a read per
// run of adjacent blocks, not one per block: the 200 blocks were 200
// preads (84,000 for "fixturegen diff" of two 64 MiB images), and Fields
// hashes the file the same way.
func TestIndirectReadsRuns(t *testing.T) {
	t.Parallel()
	src := mkTree(t)
	img := mke2fs(t, refMke2fs, src, "32M", "-N", "6000", "-t", "ext2", "-b", "1024")
	fl, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	fi, err := fl.Stat()
	if err != nil {
		t.Fatal(err)
	}
	c := &countingReader{r: fl}
	f, err := NewReader(c, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.Inode("big.bin")
	if err != nil {
		t.Fatal(err)
	}
	before := c.n.Load()
	b, err := f.ReadFile("big.bin")
	if err != nil || len(b) != 200_000 {
		t.Fatalf("ReadFile: %d bytes, %v", len(b), err)
	}
	// The lookup of the path, the indirect block and a few runs.
	if n := c.n.Load() - before; n > 20 {
		t.Errorf("reading big.bin (i_block %v) took %d reads", in.raw.iBlock(), n)
	}
}
