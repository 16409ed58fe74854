// Package vdisktest holds the checks the container packages' tests and
// fuzzers share.
package vdisktest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
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

// Write returns the container f writes of raw (grown as f's Resize
// grows it), as mkimg -y writes it.
func Write(t testing.TB, f vdisk.Format, raw []byte) []byte {
	t.Helper()
	p := &vdisk.Params{SectorSize: 512, BlockSize: 512, Heads: 1, SectorsPerTrack: 1,
		FreeBSDTestMode: true, ID: func(string) [16]byte { return [16]byte{1} }}
	sectors, err := f.Resize(p, uint64(len(raw))/512)
	if err != nil {
		t.Fatal(err)
	}
	p.Sectors = sectors
	raw = append(raw[:len(raw):len(raw)], make([]byte, int(sectors*512)-len(raw))...)
	size, write, err := f.Write(p, vdisk.NewDisk(bytes.NewReader(raw), int64(len(raw))))
	if err != nil {
		t.Fatal(err)
	}
	im, err := imgfmt.WriteImage(imgfmt.ToMemory(), size, nil, write)
	if err != nil {
		t.Fatal(err)
	}
	return im.Bytes()
}

// CheckPlace fails t unless err wraps sentinel (when not nil) and is an
// *imgfmt.FormatError of format at byte off, field field.
func CheckPlace(t testing.TB, err, sentinel error, format string, off int64, field string) {
	t.Helper()
	var fe *imgfmt.FormatError
	if !errors.As(err, &fe) || sentinel != nil && !errors.Is(err, sentinel) {
		t.Fatalf("%v: want an *imgfmt.FormatError wrapping %v", err, sentinel)
	}
	if fe.Format != format || fe.Off != off || fe.Field != field {
		t.Errorf("Format %q Off %#x Field %q, want %q %#x %q (%v)", fe.Format, fe.Off, fe.Field, format, off, field, err)
	}
}

// CheckField fails t unless the container's Fields have the field name
// of the record path at offset off, size bytes long, showing value.
func CheckField(t testing.TB, c vdisk.Reader, path, name string, off, size int64, value string) {
	t.Helper()
	for _, f := range c.Fields() {
		if f.Path == path && f.Name == name {
			if f.Offset != off || f.Size != size || f.Value != value {
				t.Errorf("%s %s: offset %d size %d value %q; want %d, %d, %q", path, name, f.Offset, f.Size, f.Value, off, size, value)
			}
			return
		}
	}
	t.Errorf("no field %s %s", path, name)
}
