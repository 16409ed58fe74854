package vmdk

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt/imgfmttest"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
)

// descriptorText returns a descriptor file of createType kind whose
// extent lines are extents, as qemu-img writes one.
func descriptorText(kind string, extents ...string) string {
	return fmt.Sprintf("# Disk DescriptorFile\nversion=1\nCID=12345678\nparentCID=ffffffff\ncreateType=%q\n\n# Extent description\n%s\n\n# The Disk Data Base\n#DDB\n\nddb.virtualHWVersion = \"4\"\nddb.adapterType = \"ide\"\n",
		kind, strings.Join(extents, "\n"))
}

// sparseExtent returns a hosted sparse extent the writer makes, as
// mkimg -y -f vmdk writes it, and the 1 MiB disk it holds, whose first
// KiB is data.
func sparseExtent(t testing.TB) (extent, disk []byte) {
	disk = make([]byte, 1<<20)
	for i := range 1024 {
		disk[i] = byte(i*7 + 1)
	}
	p := &vdisk.Params{SectorSize: 512, BlockSize: 512, Heads: 1, SectorsPerTrack: 1, Sectors: 1 << 11, FreeBSDTestMode: true}
	n, write, err := Format{}.Write(p, vdisk.NewDisk(bytes.NewReader(disk), int64(len(disk))))
	if err != nil {
		t.Fatal(err)
	}
	im, err := imgfmt.WriteImage(imgfmt.ToMemory(), n, nil, write)
	if err != nil {
		t.Fatal(err)
	}
	return im.Bytes(), disk
}

// TestVMDKDescriptorExtents checks the disk of several extents of each
// type, one after the other: FLAT from a sector offset, ZERO, and a
// SPARSE extent file (a hosted sparse extent the writer makes), read
// across their boundaries.
func TestVMDKDescriptorExtents(t *testing.T) {
	t.Parallel()
	flat := bytes.Repeat([]byte("0123456789abcdef"), 64) // 1 KiB
	sparse, sparseDisk := sparseExtent(t)
	files := map[string][]byte{"a-flat.vmdk": flat, "b-s001.vmdk": sparse}
	open := func(name string) (io.ReaderAt, int64, io.Closer, error) {
		b, ok := files[name]
		if !ok {
			return nil, 0, nil, os.ErrNotExist
		}
		return bytes.NewReader(b), int64(len(b)), io.NopCloser(nil), nil
	}
	desc := descriptorText("custom", `RW 1 FLAT "a-flat.vmdk" 1`, `RW 3 ZERO`, `RDONLY 2 SPARSE "b-s001.vmdk"`, `RW 1 FLAT "a-flat.vmdk"`)
	r, size, err := readVMDKDescriptor(strings.NewReader(desc), int64(len(desc)), open)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append(append(append([]byte{}, flat[512:]...), make([]byte, 3*512)...), sparseDisk[:1024]...), flat[:512]...)
	if size != int64(len(want)) {
		t.Fatalf("size %d, want %d", size, len(want))
	}
	for _, step := range []int{1, 100, 512, 777, len(want)} {
		got := make([]byte, 0, len(want))
		for off := 0; off < len(want); off += step {
			buf := make([]byte, min(step, len(want)-off))
			if n, err := r.ReadAt(buf, int64(off)); n != len(buf) || err != nil {
				t.Fatalf("ReadAt %d bytes at %d: %d, %v", len(buf), off, n, err)
			}
			got = append(got, buf...)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("read %d bytes at a time: not the extents' bytes", step)
		}
	}
	if n, err := r.ReadAt(make([]byte, 10), size-5); n != 5 || err != io.EOF {
		t.Errorf("ReadAt past the end: %d, %v", n, err)
	}
	fields := r.(*vmdkExtents).Fields()
	names := map[string]bool{}
	for _, f := range fields {
		if names[f.Name] {
			t.Errorf("field %s twice", f.Name)
		}
		names[f.Name] = true
	}
	if !names["extent 4"] || !names["createType"] || !names["ddb.adapterType"] {
		t.Errorf("fields %v", fields)
	}
}

// FuzzReadVMDKDescriptor checks that the descriptor reader never panics,
// whatever the descriptor says, and that a disk it opens reads at its
// start, middle and end without panicking. Every extent file it names is
// the same 64 KiB of a hosted sparse extent.
func FuzzReadVMDKDescriptor(f *testing.F) {
	sparse, _ := sparseExtent(f)
	for _, d := range []string{
		descriptorText("monolithicFlat", `RW 4096 FLAT "x-flat.vmdk" 0`),
		descriptorText("twoGbMaxExtentFlat", `RW 8 FLAT "x-f001.vmdk" 0`, `RW 8 FLAT "x-f002.vmdk" 2`),
		descriptorText("twoGbMaxExtentSparse", `RW 4 SPARSE "x-s001.vmdk"`, `RW 4 ZERO`),
		descriptorText("monolithicFlat", `RW 4096 FLAT "../x-flat.vmdk" 0`),
		"# Disk DescriptorFile\r\nRW 1 FLAT \"a b.vmdk\"\r\n\x00\x00\x00",
	} {
		f.Add([]byte(d))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		open := func(name string) (io.ReaderAt, int64, io.Closer, error) {
			return bytes.NewReader(sparse), int64(len(sparse)), io.NopCloser(nil), nil
		}
		r, size, err := readVMDKDescriptor(bytes.NewReader(b), int64(len(b)), open)
		if err != nil {
			checkContainerError(t, err, int64(len(b)))
			return
		}
		buf := make([]byte, 4096)
		for _, off := range []int64{0, size / 2, max(size-int64(len(buf)), 0)} {
			r.ReadAt(buf, off)
		}
	})
}

// checkContainerError fails t unless err, an error of a container's
// Open, which the disk reader wraps in its ErrFormat, is an
// *imgfmt.FormatError with a byte of the file of size bytes or -1 as
// its Off.
func checkContainerError(t *testing.T, err error, size int64) {
	t.Helper()
	errFormat := errors.New("malformed partition table")
	imgfmttest.CheckFormatError(t, fmt.Errorf("%w: %w", errFormat, err), size, "", errFormat)
}
