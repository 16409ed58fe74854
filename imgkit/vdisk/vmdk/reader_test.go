package vmdk

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/vdisktest"
)

// seedDisk is a raw disk with data in its first sectors and its 3000th
// KiB, as an MBR disk of a 3000 KiB FAT32 partition has.
func seedDisk() []byte {
	raw := make([]byte, 3<<20)
	copy(raw, "a disk's first bytes")
	raw[510], raw[511] = 0x55, 0xaa
	copy(raw[3000<<10:], "the last partition's bytes")
	return raw
}

// TestVMDKInflateBound checks that a grain inflating past its grain, or
// whose marker names another grain, is an error, not a larger grain.
func TestVMDKInflateBound(t *testing.T) {
	t.Parallel()
	img := vdisktest.Write(t, StreamOptimized{}, seedDisk())
	h := (*vmdkHeader)(img[:vmdkSectorSize])
	at := binary.LittleEndian.Uint64(h.overHead()) * vmdkSectorSize // the first grain's marker
	if m := (*vmdkGrainMarker)(img[at : at+vmdkGrainMarkerSize]); binary.LittleEndian.Uint64(m.lba()) != 0 || binary.LittleEndian.Uint32(m.size()) == 0 {
		t.Fatalf("no marker of grain 0 at the overHead's sector %d", at/vmdkSectorSize)
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(make([]byte, 2*vmdkStreamGrainSize))
	zw.Close()
	big := slices.Clone(img)
	binary.LittleEndian.PutUint32(big[at+8:], uint32(z.Len()))
	copy(big[at+vmdkGrainMarkerSize:], z.Bytes())
	moved := slices.Clone(img)
	binary.LittleEndian.PutUint64(moved[at:], 128)
	for name, b := range map[string][]byte{"too large": big, "wrong lba": moved} {
		r, _, err := openVMDK(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.ReadAt(make([]byte, 512), 0); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// FuzzOpenVMDK checks that openVMDK never panics and that a disk it opens
// reads (its first MiB and a few grains) without panicking.
func FuzzOpenVMDK(f *testing.F) {
	for _, format := range []vdisk.Format{Format{}, StreamOptimized{}} {
		f.Add(vdisktest.Write(f, format, seedDisk()))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, size, err := openVMDK(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			vdisktest.CheckOpenError(t, err, int64(len(b)))
			return
		}
		buf := make([]byte, 1<<16)
		for _, off := range []int64{0, 1 << 16, 1 << 20, size / 2, size - 1} {
			if off >= 0 {
				r.ReadAt(buf, off)
			}
		}
	})
}

// TestVMDKFuzzSeeds checks that the fuzzer's seeds open and read as the
// raw disk they hold, so that fuzzing starts from extents the reader
// accepts.
func TestVMDKFuzzSeeds(t *testing.T) {
	t.Parallel()
	raw := seedDisk()
	for _, format := range []vdisk.Format{Format{}, StreamOptimized{}} {
		b := vdisktest.Write(t, format, seedDisk())
		r, size, err := openVMDK(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", format.Name(), err)
		}
		got := make([]byte, size)
		if _, err := r.ReadAt(got, 0); err != nil || size < int64(len(raw)) || !bytes.Equal(got[:len(raw)], raw) {
			t.Errorf("%s: %d bytes, %v, or not the raw disk", format.Name(), size, err)
		}
	}
}

// TestVMDKDescriptorBytes checks that a descriptor given as bytes, which
// has no folder to read its extents from, is refused with a line saying
// so.
func TestVMDKDescriptorBytes(t *testing.T) {
	t.Parallel()
	b := []byte("# Disk DescriptorFile\nparentCID=abcdef01\nRW 2048 FLAT \"ok-flat.vmdk\" 0\n")
	if _, _, err := openVMDKDescriptor(bytes.NewReader(b), int64(len(b))); err == nil || !strings.Contains(err.Error(), "read only when the descriptor is opened as a file") {
		t.Errorf("a descriptor of bytes: %v", err)
	}
}

// TestFieldsAndPlace checks that the SparseExtentHeader's fields are
// named as Virtual Disk Format 1.1 names them, at their offsets, with
// the values the header holds, and that a header refused is an
// *imgfmt.FormatError at the field's byte.
func TestFieldsAndPlace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		f         vdisk.Format
		name      string
		off, size int64
		value     string
	}{
		{Format{}, "numGTEsPerGT", 44, 4, "512"},
		{StreamOptimized{}, "compressAlgorithm", 77, 2, "1"},
	} {
		b := vdisktest.Write(t, c.f, seedDisk())
		r, err := c.f.Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		vdisktest.CheckField(t, r, "VMDK SparseExtentHeader", c.name, c.off, c.size, c.value)
	}
	b := vdisktest.Write(t, Format{}, seedDisk())
	b[4] = 9
	_, err := Format{}.Open(bytes.NewReader(b), int64(len(b)))
	vdisktest.CheckPlace(t, err, nil, "vmdk", 4, "version")
}
