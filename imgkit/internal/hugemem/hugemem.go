// Package hugemem allocates the large byte buffers a build reuses for
// its whole run (the ext data writer's chunks) where their first touch is
// cheap.
//
// A buffer from make is faulted in one 4 KiB page at a time on its first
// touch; on a virtual machine each fault costs about 12 µs (BENCHMARKS.md,
// 2026-12-07), a quarter of a small tree's ext build as a whole process.
// On Linux, Alloc maps the buffer on a 2 MiB boundary, asks for a
// transparent huge page there (madvise(2) MADV_HUGEPAGE, which the
// kernel's default "madvise" mode of THP honours) and populates it in one
// call (MADV_POPULATE_WRITE, Linux 5.14): one fault, or none, where there
// were hundreds. Elsewhere, and where the mapping fails, it is make.
package hugemem

// Buffer is memory from Alloc: Bytes, until Free returns it.
type Buffer struct {
	Bytes []byte
	unmap func()
}

// Free returns b's memory; b.Bytes must not be used after it. Free of a
// Buffer freed already, or of a zero Buffer, does nothing.
func (b *Buffer) Free() {
	if b.unmap != nil {
		b.unmap()
		b.unmap = nil
	}
	b.Bytes = nil
}
