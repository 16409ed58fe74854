// Package vdisktest holds the checks the container packages' fuzz tests
// share: a virtual disk reads, or fails, within its size, and a
// container's fields and spans lie within its file.
package vdisktest

import (
	"io"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/vdisk"
)

// ReadSome reads the first 4 MiB of r, a disk of size bytes, and fails t
// when a read returns more than asked or less without an error.
func ReadSome(t *testing.T, r io.ReaderAt, size int64) {
	if size < 0 {
		t.Fatalf("negative disk size %d", size)
	}
	buf := make([]byte, 64<<10)
	for off := int64(0); off < min(size, 4<<20); off += int64(len(buf)) {
		n, err := r.ReadAt(buf, off)
		if n > len(buf) || (err == nil && int64(n) != min(int64(len(buf)), size-off)) {
			t.Fatalf("ReadAt at %d: %d bytes, %v", off, n, err)
		}
		if err != nil {
			return
		}
	}
}

// CheckLayout fails t when a field of the container r, or a span of its
// disk's first 4 MiB (vdisk.Spanner), lies outside its file of fileSize
// bytes.
func CheckLayout(t *testing.T, r vdisk.Reader, fileSize int64) {
	for _, f := range r.Fields() {
		if f.Offset < 0 || f.Offset+f.Size > fileSize {
			t.Fatalf("%s %s at %d+%d past the file's %d bytes", f.Path, f.Name, f.Offset, f.Size, fileSize)
		}
	}
	s, ok := r.(vdisk.Spanner)
	if !ok {
		return
	}
	for _, sp := range s.FileSpans(0, min(r.Size(), 4<<20)) {
		if sp[0] < 0 || sp[1] < sp[0] || sp[1] > fileSize {
			t.Fatalf("file span %v", sp)
		}
	}
}
