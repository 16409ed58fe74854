package bcache

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
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
		im, err := Create(filepath.Join(dir, "img"), img, &Options{Mode: m, Bulk: BulkCopyFileRange})
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
