package bcache

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func create(t *testing.T, path string, size int64, m Mode) *Image {
	t.Helper()
	im, err := Create(path, size, &Options{Mode: m})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { im.Abort() })
	return im
}

// listDir returns the names in dir, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestRangeErrors(t *testing.T) {
	t.Parallel()
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			const size = 64 << 10
			im := mustOpen(t, tg, size, nil)
			for _, c := range []struct {
				off  int64
				size int
			}{
				{-1, 512}, {size - 511, 512}, {size, 1}, {0, 0}, {0, -1}, {0, size + 1},
				{math.MaxInt64 - 10, 512}, {math.MinInt64, 512}, {size - 512, math.MaxInt},
			} {
				if _, err := im.Getblk(c.off, c.size); !errors.Is(err, ErrRange) {
					t.Errorf("Getblk(%d, %d) = %v, want ErrRange", c.off, c.size, err)
				}
				if _, err := im.Bread(c.off, c.size); !errors.Is(err, ErrRange) {
					t.Errorf("Bread(%d, %d) = %v, want ErrRange", c.off, c.size, err)
				}
			}
			if _, err := im.WriteAt(make([]byte, 10), size-5); !errors.Is(err, ErrRange) {
				t.Errorf("WriteAt past the end = %v, want ErrRange", err)
			}
			if _, err := im.WriteAt(nil, -1); !errors.Is(err, ErrRange) {
				t.Errorf("WriteAt(-1) = %v, want ErrRange", err)
			}
			if err := im.CopyFrom(size-5, bytes.NewReader(make([]byte, 10)), 10); !errors.Is(err, ErrRange) {
				t.Errorf("CopyFrom past the end = %v, want ErrRange", err)
			}
			if err := im.CopyFrom(0, bytes.NewReader(nil), -1); !errors.Is(err, ErrRange) {
				t.Errorf("CopyFrom(n=-1) = %v, want ErrRange", err)
			}
			b, err := im.Getblk(size-1024, 512)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Grow(1025); !errors.Is(err, ErrRange) {
				t.Errorf("Grow past the end = %v, want ErrRange", err)
			}
			if err := b.Grow(511); !errors.Is(err, ErrShrink) {
				t.Errorf("Grow(511) = %v, want ErrShrink", err)
			}
			if err := b.Grow(1024); err != nil {
				t.Errorf("Grow to the end: %v", err)
			}
			if _, err := tg.open(t, -1, nil); !errors.Is(err, ErrRange) {
				t.Errorf("Create(size -1) = %v, want ErrRange", err)
			}
		})
	}
}

func TestHeldBuffers(t *testing.T) {
	t.Parallel()
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			im := mustOpen(t, tg, 1<<20, nil)
			b, err := im.Getblk(4096, 512)
			if err != nil {
				t.Fatal(err)
			}
			copy(b.Data(), "keep")
			// A held buffer is returned as is: not wiped, not re-read.
			b2, err := im.Getblk(4096, 512)
			if err != nil || b2 != b || string(b.Data()[:4]) != "keep" {
				t.Fatalf("Getblk of a held block: %v, same %v, data %q", err, b2 == b, b.Data()[:4])
			}
			b3, err := im.Bread(4096, 1024)
			if err != nil || b3 != b || len(b.Data()) != 1024 || string(b.Data()[:4]) != "keep" {
				t.Fatalf("Bread growing a held block: %v, same %v, len %d", err, b3 == b, len(b.Data()))
			}
			if !bytes.Equal(b.Data()[512:], make([]byte, 512)) {
				t.Error("grown bytes are not zero")
			}
			for _, off := range []int64{4096 - 511, 4096 + 1023, 4096 - 1} {
				if _, err := im.Getblk(off, 512); !errors.Is(err, ErrOverlap) {
					t.Errorf("Getblk(%d) overlapping = %v, want ErrOverlap", off, err)
				}
			}
			n, err := im.Getblk(4096+1024, 512)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Grow(1025); !errors.Is(err, ErrOverlap) {
				t.Errorf("Grow into a neighbour = %v, want ErrOverlap", err)
			}
			// WriteAt shows through held buffers in both modes.
			if _, err := im.WriteAt([]byte("XY"), 4096+1023); err != nil {
				t.Fatal(err)
			}
			if b.Data()[1023] != 'X' || n.Data()[0] != 'Y' {
				t.Errorf("WriteAt not seen by held buffers: %q %q", b.Data()[1023], n.Data()[0])
			}
			if err := im.Commit(); !errors.Is(err, ErrHeld) {
				t.Errorf("Commit with held buffers = %v, want ErrHeld", err)
			}
			if err := im.Bwrite(b); err != nil {
				t.Fatal(err)
			}
			if err := im.Bwrite(b); !errors.Is(err, ErrNotHeld) {
				t.Errorf("second Bwrite = %v, want ErrNotHeld", err)
			}
			if err := b.Grow(2048); !errors.Is(err, ErrNotHeld) {
				t.Errorf("Grow after Bwrite = %v, want ErrNotHeld", err)
			}
			other := mustOpen(t, tg, 4096, nil)
			if err := other.Bwrite(n); !errors.Is(err, ErrNotHeld) {
				t.Errorf("Bwrite to another image = %v, want ErrNotHeld", err)
			}
			if err := im.Bwrite(n); err != nil {
				t.Fatal(err)
			}
			im.Brelse(n) // no-op
			if err := im.Commit(); err != nil {
				t.Fatal(err)
			}
			got := im.result(t)
			if string(got[4096:4100]) != "keep" || string(got[4096+1023:4096+1025]) != "XY" {
				t.Errorf("image holds %q ... %q", got[4096:4100], got[4096+1023:4096+1025])
			}
		})
	}
}

func TestShortSource(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "src")
	if err := os.WriteFile(src, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		for _, bulk := range []Bulk{BulkRead, BulkCopyFileRange, BulkPwrite, BulkMapSource} {
			im := mustOpen(t, tg, 4096, &Options{Bulk: bulk})
			if err := im.CopyFrom(0, strings.NewReader("abc"), 10); !errors.Is(err, ErrShortSrc) {
				t.Errorf("%s/%d: CopyFrom(reader) short = %v, want ErrShortSrc", tg.name, bulk, err)
			}
			f, err := os.Open(src)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := im.CopyFrom(0, f, 10); !errors.Is(err, ErrShortSrc) {
				t.Errorf("%s/%d: CopyFrom(file) short = %v, want ErrShortSrc", tg.name, bulk, err)
			}
			f.Seek(0, io.SeekStart)
			if err := im.CopyFrom(100, f, 3); err != nil {
				t.Errorf("%s/%d: CopyFrom(file): %v", tg.name, bulk, err)
			}
			if err := im.Commit(); err != nil {
				t.Fatal(err)
			}
			got := im.result(t)
			if string(got[100:103]) != "abc" {
				t.Errorf("%s/%d: CopyFrom wrote %q", tg.name, bulk, got[100:103])
			}
		}
	}
}

func TestModeSelection(t *testing.T) {
	// not parallel: t.Setenv (EnvMode).
	dir := t.TempDir()
	for _, c := range []struct {
		env  string
		opt  Mode
		want Mode
	}{
		{"", ModeAuto, ModeMmap},
		{"auto", ModeAuto, ModeMmap},
		{"copy", ModeAuto, ModeCopy},
		{"mmap", ModeAuto, ModeMmap},
		{"copy", ModeMmap, ModeMmap},
		{"mmap", ModeCopy, ModeCopy},
	} {
		t.Setenv(EnvMode, c.env)
		want := c.want
		if !mmapSupported && want == ModeMmap {
			want = ModeCopy
		}
		im, err := Create(filepath.Join(dir, "img"), 4096, &Options{Mode: c.opt})
		if !mmapSupported && c.opt == ModeMmap {
			if !errors.Is(err, ErrNoMmap) {
				t.Errorf("explicit mmap without mmap: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if im.Mode() != want {
			t.Errorf("env %q, option %v: mode %v, want %v", c.env, c.opt, im.Mode(), want)
		}
		im.Abort()
	}
	t.Setenv(EnvMode, "fast")
	if _, err := Create(filepath.Join(dir, "img"), 4096, nil); !errors.Is(err, ErrMode) {
		t.Errorf("bad %s: %v, want ErrMode", EnvMode, err)
	}
	if got := listDir(t, dir); len(got) != 0 {
		t.Errorf("left behind: %q", got)
	}
	for _, s := range []string{"auto", "mmap", "copy"} {
		if m, err := ParseMode(s); err != nil || m.String() != s {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
	}
}

func TestAbortKeepsOldFile(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "img")
			if err := os.WriteFile(path, []byte("old image"), 0o600); err != nil {
				t.Fatal(err)
			}
			check := func(when string) {
				t.Helper()
				got, err := os.ReadFile(path)
				if err != nil || string(got) != "old image" {
					t.Errorf("%s: final path holds %q, %v", when, got, err)
				}
				if names := listDir(t, dir); len(names) != 1 {
					t.Errorf("%s: directory holds %q", when, names)
				}
			}
			im := create(t, path, 8192, m)
			if _, err := im.WriteAt([]byte("new"), 0); err != nil {
				t.Fatal(err)
			}
			if err := im.Abort(); err != nil {
				t.Fatal(err)
			}
			check("after Abort")
			if err := im.Commit(); !errors.Is(err, ErrClosed) {
				t.Errorf("Commit after Abort = %v, want ErrClosed", err)
			}
			check("after Commit after Abort")

			// A Commit that fails (the final path became a non-empty
			// directory) removes the temporary file and leaves the path.
			path2 := filepath.Join(dir, "img2")
			im = create(t, path2, 8192, m)
			if err := os.MkdirAll(filepath.Join(path2, "x"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := im.Commit(); err == nil {
				t.Fatal("Commit over a directory succeeded")
			}
			if fi, err := os.Stat(path2); err != nil || !fi.IsDir() {
				t.Errorf("directory at the final path changed: %v", err)
			}
			os.RemoveAll(path2)
			check("after a failed Commit")
		})
	}
}

func TestCommitReplaces(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			real := filepath.Join(dir, "sub", "real.img")
			os.Mkdir(filepath.Dir(real), 0o755)
			if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, "link.img")
			if err := os.Symlink(real, link); err != nil {
				t.Skip("no symlinks:", err)
			}
			im, err := Create(link, 4, &Options{Mode: m, Sync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer im.Abort()
			if im.Name() != link {
				t.Errorf("Name() = %q, want %q", im.Name(), link)
			}
			im.WriteAt([]byte("new!"), 0)
			if err := im.Commit(); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(real); string(got) != "new!" {
				t.Errorf("symlink target holds %q", got)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("symlink replaced: %v", err)
			}
		})
	}
}

// TestCopyFromAdvancesSource checks that CopyFrom consumes exactly n bytes
// of the source, on every path, and that a long copy from an unaligned
// source offset crosses the source-mapping windows correctly.
func TestCopyFromAdvancesSource(t *testing.T) {
	t.Parallel()
	const long = mapWindow + 3<<20 + 123
	p := make([]byte, long+1000)
	for i := range p {
		p[i] = byte(i*131) ^ byte(i>>12)
	}
	src := filepath.Join(t.TempDir(), "src")
	if err := os.WriteFile(src, p, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		for _, bulk := range []Bulk{BulkAuto, BulkRead, BulkCopyFileRange, BulkPwrite, BulkMapSource} {
			if tg.mode == ModeMemory && bulk != BulkAuto {
				continue // the memory targets ignore Bulk
			}
			im, err := tg.open(t, 2*long, &Options{Bulk: bulk})
			if err != nil {
				t.Fatal(err)
			}
			defer im.Abort()
			f, err := os.Open(src)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := im.CopyFrom(0, f, 3); err != nil {
				t.Fatal(err)
			}
			if err := im.CopyFrom(10, f, 3); err != nil {
				t.Fatal(err)
			}
			f.Seek(777, io.SeekStart)
			if err := im.CopyFrom(long/2+5, f, long); err != nil {
				t.Fatal(err)
			}
			if pos, _ := f.Seek(0, io.SeekCurrent); pos != 777+long {
				t.Errorf("%s/%d: source offset %d after CopyFrom, want %d", tg.name, bulk, pos, 777+long)
			}
			if err := im.Commit(); err != nil {
				t.Fatal(err)
			}
			got := im.result(t)
			if !bytes.Equal(got[0:3], p[0:3]) || !bytes.Equal(got[10:13], p[3:6]) {
				t.Errorf("%s/%d: consecutive CopyFrom wrote %q %q", tg.name, bulk, got[0:3], got[10:13])
			}
			if i := firstDiff(got[long/2+5:long/2+5+long], p[777:777+long]); i >= 0 {
				t.Errorf("%s/%d: long copy differs at byte %#x", tg.name, bulk, i)
			}
		}
	}
}
