package hugemem

import (
	"runtime"
	"testing"
	"unsafe"
)

func TestAlloc(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 4096, 1 << 20, 2<<20 + 1} {
		b := Alloc(n)
		if len(b.Bytes) != n || cap(b.Bytes) != n {
			t.Fatalf("Alloc(%d): len %d cap %d", n, len(b.Bytes), cap(b.Bytes))
		}
		for i, c := range b.Bytes {
			if c != 0 {
				t.Fatalf("Alloc(%d): byte %d is %#x, not zero", n, i, c)
			}
		}
		if runtime.GOOS == "linux" {
			if p := uintptr(unsafe.Pointer(&b.Bytes[0])); p%hugePageOf() != 0 {
				t.Errorf("Alloc(%d) at %#x: not on a huge page's boundary", n, p)
			}
		}
		for i := range b.Bytes {
			b.Bytes[i] = byte(i)
		}
		b.Free()
		if b.Bytes != nil {
			t.Errorf("Alloc(%d): Bytes kept after Free", n)
		}
		b.Free() // a second Free does nothing
	}
	if b := Alloc(0); b.Bytes != nil {
		t.Errorf("Alloc(0) = %d bytes", len(b.Bytes))
	}
	var zero Buffer
	zero.Free()
}
