package bcache

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCopyFilesPreallocate checks that CopyFiles preallocates the span of
// a dense batch and leaves the gaps of a sparse one as holes.
func TestCopyFilesPreallocate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.WriteFile(src, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	const size = 256 << 20
	for _, c := range []struct {
		name       string
		offs       []int64
		minK, maxK int64 // st_blocks bounds in KiB
	}{
		// Four files with 256 KiB gaps, 84% of their span: the gaps are
		// allocated too.
		{"dense", []int64{0, 5 << 18, 10 << 18, 15 << 18}, 19 << 8, 19<<8 + 64},
		// Two files 128 MiB apart: only they are allocated.
		{"sparse", []int64{1 << 20, 129 << 20}, 2 << 10, 3 << 10},
	} {
		var batch []FileCopy
		for _, off := range c.offs {
			batch = append(batch, FileCopy{Off: off, N: 1 << 20, Path: src})
		}
		out := filepath.Join(dir, "img-"+c.name)
		for _, m := range modes {
			if _, err := buildFiles(t, out, size, &Options{Mode: m}, batch); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			k := fi.Sys().(*syscall.Stat_t).Blocks / 2
			if k < c.minK || k > c.maxK {
				t.Errorf("%s/%v: %d KiB allocated, want %d..%d", c.name, m, k, c.minK, c.maxK)
			}
		}
	}
}
