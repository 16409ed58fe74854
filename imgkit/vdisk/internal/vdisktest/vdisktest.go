// Package vdisktest holds the checks the container packages' tests and
// fuzzers share.
package vdisktest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt/imgfmttest"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
)

// errDisk stands for mkimg's ErrFormat, which wraps a container's
// errors.
var errDisk = errors.New("malformed disk")

// CheckOpenError fails t unless err, an error of a container's Open,
// which mkimg's disk reader wraps in its ErrFormat, is an
// *imgfmt.FormatError with a byte of the file of size bytes or -1 as
// its Off.
func CheckOpenError(t testing.TB, err error, size int64) {
	t.Helper()
	if err != nil {
		imgfmttest.CheckFormatError(t, fmt.Errorf("%w: %w", errDisk, err), size, "", errDisk)
	}
}

// ReadSome reads up to 4 MiB of a disk of size bytes in 64 KiB pieces
// and fails t when a read returns more than asked.
func ReadSome(t testing.TB, r io.ReaderAt, size int64) {
	t.Helper()
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

// CheckLayout fails t when the container's fields, or the file spans of
// the disk's first 4 MiB, lie outside the file of fileSize bytes.
func CheckLayout(t testing.TB, c vdisk.Reader, fileSize int64) {
	t.Helper()
	for _, f := range c.Fields() {
		if f.Offset < 0 || f.Offset+f.Size > fileSize {
			t.Fatalf("%s %s at %d+%d past the file's %d bytes", f.Path, f.Name, f.Offset, f.Size, fileSize)
		}
	}
	s, ok := c.(vdisk.Spanner)
	if !ok {
		return
	}
	for _, s := range s.FileSpans(0, min(c.Size(), 4<<20)) {
		if s[0] < 0 || s[1] < s[0] || s[1] > fileSize {
			t.Fatalf("file span %v", s)
		}
	}
}

// Qemu runs qemu-img (qemu) with args, failing t with its output when it
// fails.
func Qemu(t testing.TB, qemu string, args ...string) {
	t.Helper()
	if out, err := exec.Command(qemu, args...).CombinedOutput(); err != nil {
		t.Fatalf("qemu-img %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// QemuConvertRaw returns the raw disk qemu-img convert -O raw makes of
// the image name, read as format.
func QemuConvertRaw(t testing.TB, qemu, format, name string) []byte {
	t.Helper()
	conv := filepath.Join(t.TempDir(), "conv.raw")
	Qemu(t, qemu, "convert", "-f", format, "-O", "raw", name, conv)
	b, err := os.ReadFile(conv)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ReadCorpus returns the []byte of a one-value fuzz corpus file.
func ReadCorpus(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	lit, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "go test fuzz v1\n[]byte(")
	if v, err := strconv.Unquote(strings.TrimSuffix(lit, ")")); ok && err == nil {
		return []byte(v)
	}
	t.Fatalf("%s: not a fuzz corpus file of one []byte", name)
	return nil
}
