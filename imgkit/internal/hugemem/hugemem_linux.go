package hugemem

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size and alignment of a transparent huge page on the
// architectures Go runs Linux on with 4 KiB pages (x86-64, arm64).
const hugePage = 2 << 20

// Alloc returns n bytes of zeros, on huge pages where the kernel gives
// them (see the package doc).
func Alloc(n int) Buffer {
	if n <= 0 {
		return Buffer{}
	}
	span := (n + hugePage - 1) / hugePage * hugePage
	m, err := unix.Mmap(-1, 0, span+hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return Buffer{Bytes: make([]byte, n)}
	}
	skip := int((hugePage - uintptr(unsafe.Pointer(&m[0]))%hugePage) % hugePage)
	b := m[skip : skip+span]
	// Both are hints: without them the pages fault in as make's do.
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	_ = unix.Madvise(b[:n], unix.MADV_POPULATE_WRITE)
	return Buffer{Bytes: b[:n:n], unmap: func() { _ = unix.Munmap(m) }}
}
