package bcache

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestWriteAtDoesNotReadAround checks the reason WriteAt is a pwrite: a
// store into the mapping of a new sparse image faults, and the fault reads
// around the page, putting up to read_ahead_kb of zeroed pages of holes into
// the page cache. After WriteAt and CopyFrom (default path) at scattered
// offsets of a 64 MiB image, only the pages written may be resident.
func TestWriteAtDoesNotReadAround(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.WriteFile(src, bytes.Repeat([]byte{0x5a}, 6000), 0o644); err != nil {
		t.Fatal(err)
	}
	const size = 64 << 20
	im := create(t, filepath.Join(dir, "img"), size, ModeMmap)
	page := int64(os.Getpagesize())
	written := map[int64]bool{}
	for i := int64(0); i < 16; i++ {
		off := i*(size/16) + 1000
		if _, err := im.WriteAt(make([]byte, 3000), off); err != nil {
			t.Fatal(err)
		}
		written[off/page] = true
		f, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		off += size / 32
		if err := im.CopyFrom(off, f, 6000); err != nil {
			t.Fatal(err)
		}
		f.Close()
		for p := off / page; p <= (off+5999)/page; p++ {
			written[p] = true
		}
	}
	vec := make([]byte, size/page)
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(im.data))), uintptr(len(im.data)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		t.Skipf("mincore: %v", errno)
	}
	resident := 0
	for p, v := range vec {
		if v&1 != 0 {
			resident++
			if !written[int64(p)] {
				t.Errorf("page %d (offset %#x) is resident but was never written", p, int64(p)*page)
				break
			}
		}
	}
	if resident == 0 {
		t.Error("no page resident: mincore does not see the writes")
	}
	t.Logf("%d pages resident, %d written", resident, len(written))
}
