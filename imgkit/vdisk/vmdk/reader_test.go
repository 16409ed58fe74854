package vmdk

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/vdisktest"
)

// writeVMDK returns the extent f (Format or StreamOptimized) writes of
// raw, as mkimg -y writes it.
func writeVMDK(t testing.TB, f vdisk.Format, raw []byte) []byte {
	t.Helper()
	p := &vdisk.Params{SectorSize: 512, BlockSize: 512, Heads: 1, SectorsPerTrack: 1,
		FreeBSDTestMode: true, ID: func(string) [16]byte { return [16]byte{1} }}
	sectors, err := f.Resize(p, uint64(len(raw))/512)
	if err != nil {
		t.Fatal(err)
	}
	p.Sectors = sectors
	raw = append(raw, make([]byte, int(sectors*512)-len(raw))...)
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
	img := writeVMDK(t, StreamOptimized{}, seedDisk())
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
		f.Add(writeVMDK(f, format, seedDisk()))
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
		b := writeVMDK(t, format, seedDisk())
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
