package bcache

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCopyFilesPreallocate checks that CopyFiles preallocates the span of
// a dense batch and leaves the gaps of a sparse one as holes.
func TestCopyFilesPreallocate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	needFallocate(t, dir)
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

// needFallocate skips the test where the file system of dir has no
// fallocate(2): preallocation is an optimisation that CopyFiles and
// CopyFrom drop silently there, so there is nothing to check.
func needFallocate(t *testing.T, dir string) {
	t.Helper()
	f, err := os.CreateTemp(dir, "fallocate-probe")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := unix.Fallocate(int(f.Fd()), 0, 0, 4096); errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		t.Skipf("the file system of %s has no fallocate: %v", dir, err)
	}
}

// probeReader yields n bytes of 0x5a and calls first before its first read.
type probeReader struct {
	n     int
	first func()
}

func (p *probeReader) Read(b []byte) (int, error) {
	if p.first != nil {
		p.first()
		p.first = nil
	}
	if p.n == 0 {
		return 0, io.EOF
	}
	m := min(len(b), p.n)
	for i := range b[:m] {
		b[i] = 0x5a
	}
	p.n -= m
	return m, nil
}

// TestCopyFromPreallocates checks that CopyFrom of at least
// preallocCopyMin bytes allocates the range before it writes a byte of it
// (ext4 writes into allocated blocks faster than into a hole), and that a
// smaller copy does not.
func TestCopyFromPreallocates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	needFallocate(t, dir)
	for _, m := range modes {
		for _, n := range []int{preallocCopyMin * 8, preallocCopyMin / 2} {
			im, err := Create(filepath.Join(dir, fmt.Sprintf("img-%v-%d", m, n)), 64<<20, &Options{Mode: m})
			if err != nil {
				t.Fatal(err)
			}
			var before int64 = -1
			r := &probeReader{n: n, first: func() {
				if fi, err := im.f.Stat(); err == nil {
					before = fi.Sys().(*syscall.Stat_t).Blocks * 512
				}
			}}
			if err := im.CopyFrom(1<<20, r, int64(n)); err != nil {
				t.Fatal(err)
			}
			im.Abort()
			switch {
			case n >= preallocCopyMin && before < int64(n):
				t.Errorf("%v: %d bytes allocated before a copy of %d, want all of them", m, before, n)
			case n < preallocCopyMin && before != 0:
				t.Errorf("%v: %d bytes allocated before a copy of %d, want none", m, before, n)
			}
		}
	}
}
