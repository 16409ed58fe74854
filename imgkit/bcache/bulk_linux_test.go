package bcache

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// TestCopyFileRangeHalves checks the copies copyFileRange splits in two
// (parallelCopyMin or more): the bytes land where one copy would put
// them, the source's offset moves past what was copied, so that the next
// CopyFrom of the same file goes on from there, and a source that ends
// inside either half is ErrShortSrc with nothing claimed past its end.
func TestCopyFileRangeHalves(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	size := parallelCopyMin + 3<<20 + 12345
	src := make([]byte, size)
	for i := range src {
		src[i] = byte(i*7 + i>>13)
	}
	path := filepath.Join(dir, "src")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	first := int64(parallelCopyMin + 1<<20) // split in two, then the rest in one
	for _, m := range modes {
		img := int64(2*size + 1<<20)
		var meter progress.Meter
		im, err := Create(filepath.Join(dir, "img"), img, &Options{Mode: m, Bulk: BulkCopyFileRange, Progress: &meter})
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Seek(100, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if err := im.CopyFrom(4096, f, first); err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		if got := meter.Count(); got != first {
			t.Errorf("%v: Progress counted %d bytes of the copy in halves, want %d", m, got, first)
		}
		rest := int64(size) - 100 - first
		if err := im.CopyFrom(4096+first, f, rest); err != nil {
			t.Fatalf("%v: the rest: %v", m, err)
		}
		// A copy past the end of the source: the second half finds it.
		if _, err := f.Seek(int64(size)-parallelCopyMin+1000, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if err := im.CopyFrom(int64(size)+1<<19, f, parallelCopyMin); !errors.Is(err, ErrShortSrc) {
			t.Errorf("%v: a copy past the source's end: %v, want ErrShortSrc", m, err)
		}
		f.Close()
		got := make([]byte, size)
		if _, err := im.f.ReadAt(got[:size-100], 4096); err != nil {
			t.Fatal(err)
		}
		im.Abort()
		if !bytes.Equal(got[:size-100], src[100:]) {
			t.Errorf("%v: the image differs from the source at byte %d", m, firstDiff(got[:size-100], src[100:]))
		}
	}
}

// TestCopyFileRangeCounts checks that copyFileRange reports what the
// kernel has copied as it goes, a piece of at most copyChunk at a time,
// rather than once at the end: a copy of two chunks and a bit (split in
// halves copied at once), to an offset off the alignment, is reported in
// at least three pieces that sum to the copy.
func TestCopyFileRangeCounts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	size := 2*copyChunk + 777
	src := make([]byte, size)
	for i := range src {
		src[i] = byte(i*5 + i>>12)
	}
	path := filepath.Join(dir, "src")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dst, err := os.Create(filepath.Join(dir, "dst"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	var mu sync.Mutex
	var pieces []int64
	n, err := copyFileRange(dst, 4096, f, int64(size), func(m int64) {
		mu.Lock()
		pieces = append(pieces, m)
		mu.Unlock()
	})
	if err != nil || n != int64(size) {
		t.Fatalf("copyFileRange = %d, %v; want %d", n, err, size)
	}
	var sum int64
	for _, p := range pieces {
		if p <= 0 || p > copyChunk {
			t.Errorf("a piece of %d bytes, want 1 to %d", p, copyChunk)
		}
		sum += p
	}
	if len(pieces) < 3 || sum != int64(size) {
		t.Errorf("pieces %v (sum %d), want at least 3 summing to %d", pieces, sum, size)
	}
	got := make([]byte, size)
	if _, err := dst.ReadAt(got, 4096); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, src) {
		t.Errorf("the copy differs from the source at byte %d", firstDiff(got, src))
	}
}
