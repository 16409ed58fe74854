package bcache

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/progresshook"
	"github.com/fixturegen/fixturegen/internal/tooltest"
	"golang.org/x/sys/unix"
)

// cloneSource writes a source file of n bytes of a pattern seeded by seed
// into dir and returns its path and bytes.
func cloneSource(t *testing.T, dir string, n int, seed byte) (string, []byte) {
	t.Helper()
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i/4096)*31 + byte(i)*7 + seed
	}
	p := filepath.Join(dir, "src"+string('a'+seed%26))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, data
}

// cloneImage creates an image of size bytes in dir in mode m that clones
// every piece of whole blocks, however small.
func cloneImage(t *testing.T, dir string, size int64, m Mode) *Image {
	t.Helper()
	im, err := Create(filepath.Join(dir, "img"), size, &Options{Mode: m})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { im.Abort() })
	im.clone.least = 1
	return im
}

// TestCloneMmapDirty clones into a range whose pages are dirty in the
// image's shared mapping (a fresh Getblk filled and released), then
// writes through the mapping into the cloned blocks: the mapping shows
// the source's bytes after the clone, the image file has the source's
// bytes with the later change, and the source is unchanged. The copy
// pieces go head, clone, tail (an offset 100 bytes into a block) and one
// piece is aligned differently from its source, so it is copied.
func TestCloneMmapDirty(t *testing.T) {
	t.Parallel()
	for _, fstype := range []string{"xfs", "btrfs"} {
		t.Run(fstype, func(t *testing.T) {
			t.Parallel()
			mnt := tooltest.LoopMount(t, fstype)
			src, data := cloneSource(t, mnt, 1<<20+5000, 3)
			const size = 4 << 20
			im := cloneImage(t, mnt, size, ModeMmap)
			if im.clone.bsize == 0 {
				t.Fatalf("%s: the image does not clone", fstype)
			}
			want := make([]byte, size)
			b, err := im.Getblk(8192, 64<<10)
			if err != nil {
				t.Fatal(err)
			}
			for i := range b.Data() {
				b.Data()[i] = 0xee
			}
			if err := im.Bwrite(b); err != nil {
				t.Fatal(err)
			}
			files := []FileCopy{
				{Off: 4096 + 100, SrcOff: 100, N: int64(len(data)) - 100, Path: src},
				{Off: 2<<20 + 512, N: int64(len(data)), Path: src},
			}
			if i, err := im.CopyFiles(files); err != nil {
				t.Fatal(i, err)
			}
			copy(want[4096+100:], data[100:])
			copy(want[2<<20+512:], data)
			if !bytes.Equal(im.data, want) {
				t.Fatalf("the mapping differs from the source after the clone")
			}
			if got := im.clone.cloned.Load(); got != 1<<20 {
				t.Errorf("cloned %d bytes, want %d", got, 1<<20)
			}
			b, err = im.Bread(3*4096, 4096)
			if err != nil {
				t.Fatal(err)
			}
			copy(b.Data()[10:], "written after the clone")
			copy(want[3*4096+10:], "written after the clone")
			if err := im.Bwrite(b); err != nil {
				t.Fatal(err)
			}
			checkCommitted(t, im, want)
			if got, err := os.ReadFile(src); err != nil || !bytes.Equal(got, data) {
				t.Errorf("the source changed: %v", err)
			}
		})
	}
}

// checkCommitted commits im and compares its file with want.
func checkCommitted(t *testing.T, im *Image, want []byte) {
	t.Helper()
	if err := im.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(im.Name())
	if err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("image differs from the expected bytes at byte %#x", i)
	}
}

// TestCloneFromHeld clones through CopyFrom in copy mode while a buffer
// over the range is held: the held buffer sees the cloned bytes, as it
// would see copied ones, and the source is left at the end of the copy.
func TestCloneFromHeld(t *testing.T) {
	t.Parallel()
	mnt := tooltest.LoopMount(t, "xfs")
	src, data := cloneSource(t, mnt, 600<<10+77, 9)
	im := cloneImage(t, mnt, 1<<20, ModeCopy)
	b, err := im.Bread(64<<10, 4096)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(4096, 0); err != nil {
		t.Fatal(err)
	}
	if err := im.CopyFrom(8192, f, int64(len(data))-4096); err != nil {
		t.Fatal(err)
	}
	if pos, _ := f.Seek(0, 1); pos != int64(len(data)) {
		t.Errorf("source at %d after CopyFrom, want %d", pos, len(data))
	}
	if im.clone.cloned.Load() == 0 {
		t.Errorf("CopyFrom cloned nothing")
	}
	if !bytes.Equal(b.Data(), data[64<<10-8192+4096:][:4096]) {
		t.Errorf("the held buffer does not show the cloned bytes")
	}
	im.Brelse(b)
	want := make([]byte, 1<<20)
	copy(want[8192:], data[4096:])
	checkCommitted(t, im, want)
}

// TestCloneFallback copies where cloning cannot serve, with the same
// bytes: an image on the test's temporary directory (not a file system
// with shared extents: no clone is tried), a source on another file
// system than the image (EXDEV: that file is copied and cloning stays on
// for the others), and an image whose cloning Options.NoClone or
// FIXTUREGEN_CACHE=noclone turns off.
func TestCloneFallback(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	mnt := tooltest.LoopMount(t, "xfs")
	far, farData := cloneSource(t, tmp, 300<<10, 1)
	near, nearData := cloneSource(t, mnt, 300<<10, 2)
	want := make([]byte, 1<<20)
	copy(want, farData)
	copy(want[512<<10:], nearData)
	files := []FileCopy{{Off: 0, N: 300 << 10, Path: far}, {Off: 512 << 10, N: 300 << 10, Path: near}}
	for _, c := range []struct {
		name, dir string
		opts      Options
		cloned    int64
	}{
		{"tempdir", tmp, Options{Mode: ModeMmap}, 0},
		{"mount", mnt, Options{Mode: ModeMmap}, 300 << 10},
		{"noclone", mnt, Options{Mode: ModeCopy, NoClone: true}, 0},
	} {
		im, err := Create(filepath.Join(c.dir, "img-"+c.name), 1<<20, &c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if im.clone.bsize != 0 {
			im.clone.least = 1
		}
		if i, err := im.CopyFiles(files); err != nil {
			t.Fatal(c.name, i, err)
		}
		if got := im.clone.cloned.Load(); got != c.cloned {
			t.Errorf("%s: cloned %d bytes, want %d", c.name, got, c.cloned)
		}
		checkCommitted(t, im, want)
	}
}

// TestCloneEnvOff turns cloning off with FIXTUREGEN_CACHE=mmap,noclone on
// an XFS mount, where it is on otherwise.
func TestCloneEnvOff(t *testing.T) {
	// not parallel: t.Setenv (EnvMode).
	mnt := tooltest.LoopMount(t, "xfs")
	for _, c := range []struct {
		env   string
		clone bool
	}{{"", true}, {"mmap,noclone", false}, {"noclone", false}, {"copy,clone", true}} {
		t.Setenv(EnvMode, c.env)
		im, err := Create(filepath.Join(mnt, "img"), 1<<20, nil)
		if err != nil {
			t.Fatal(err)
		}
		if (im.clone.bsize != 0) != c.clone {
			t.Errorf("%s=%q: clones %v, want %v", EnvMode, c.env, im.clone.bsize != 0, c.clone)
		}
		im.Abort()
	}
}

// TestCloneShortSource asks for more bytes than the source has: whether
// the clone is refused (its range passes the end of the source) or done
// (the missing bytes are in the copied tail), the copy fails with
// ErrShortSrc, as it does without cloning.
func TestCloneShortSource(t *testing.T) {
	t.Parallel()
	mnt := tooltest.LoopMount(t, "xfs")
	src, data := cloneSource(t, mnt, 600<<10+50, 4)
	for _, n := range []int64{int64(len(data)) + 100, 700 << 10} {
		im := cloneImage(t, mnt, 1<<20, ModeMmap)
		if _, err := im.CopyFiles([]FileCopy{{N: n, Path: src}}); !errors.Is(err, ErrShortSrc) {
			t.Errorf("copy of %d bytes from a source of %d: %v, want ErrShortSrc", n, len(data), err)
		}
		if cloned := im.clone.cloned.Load(); (cloned > 0) != (n < 700<<10) {
			t.Errorf("copy of %d bytes from a source of %d: cloned %d", n, len(data), cloned)
		}
		im.Abort()
	}
}

// TestCloneKeepsHoles clones a source with a hole of 4 MiB between two
// MiB of data: the image has the source's bytes and the hole stays a hole
// (SEEK_DATA from its start lands on the data after it).
func TestCloneKeepsHoles(t *testing.T) {
	t.Parallel()
	for _, fstype := range []string{"xfs", "btrfs"} {
		t.Run(fstype, func(t *testing.T) {
			t.Parallel()
			mnt := tooltest.LoopMount(t, fstype)
			p, data := cloneSource(t, mnt, 1<<20, 5)
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt(data, 5<<20); err != nil {
				t.Fatal(err)
			}
			f.Close()
			want := make([]byte, 8<<20)
			copy(want, data)
			copy(want[5<<20:], data)
			im := cloneImage(t, mnt, 8<<20, ModeMmap)
			if _, err := im.CopyFiles([]FileCopy{{N: 6 << 20, Path: p}}); err != nil {
				t.Fatal(err)
			}
			checkCommitted(t, im, want)
			img, err := os.Open(im.Name())
			if err != nil {
				t.Fatal(err)
			}
			defer img.Close()
			if next, err := unix.Seek(int(img.Fd()), 1<<20, unix.SEEK_DATA); err != nil || next != 5<<20 {
				t.Errorf("SEEK_DATA from 1 MiB: %d, %v; want %d (a hole until the second MiB of data)", next, err, 5<<20)
			}
		})
	}
}

// TestCloneCounts checks that a clone longer than copyChunk is counted in
// Options.Progress a piece at a time as the pieces are shared, not once
// at the end: a CopyFrom of two chunks and a bit on XFS adds at least
// three pieces, each of at most copyChunk, that sum to the copy. It sets
// the hook every meter of the process sees, so it does not run in
// parallel.
func TestCloneCounts(t *testing.T) {
	// not parallel: it sets the progress hook every meter sees.
	mnt := tooltest.LoopMount(t, "xfs")
	n := 2*copyChunk + 64<<10
	src, data := cloneSource(t, mnt, n, 3)
	var meter progress.Meter
	im, err := Create(filepath.Join(mnt, "img"), int64(n), &Options{Progress: &meter})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { im.Abort() })
	var pieces []int64
	last := int64(0)
	restore := progresshook.Set(func(name string, done, total int64) {
		pieces = append(pieces, done-last)
		last = done
	})
	defer restore()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := im.CopyFrom(0, f, int64(n)); err != nil {
		t.Fatal(err)
	}
	restore()
	if im.clone.cloned.Load() != int64(n) {
		t.Fatalf("cloned %d bytes of %d", im.clone.cloned.Load(), n)
	}
	for _, p := range pieces {
		if p <= 0 || p > copyChunk {
			t.Errorf("a piece of %d bytes, want 1 to %d", p, copyChunk)
		}
	}
	if len(pieces) < 3 || last != int64(n) || meter.Count() != int64(n) {
		t.Errorf("pieces %v (ending at %d, Count %d), want at least 3 summing to %d", pieces, last, meter.Count(), n)
	}
	checkCommitted(t, im, data)
}
