package vhd

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/vdisktest"
)

// TestVHDRoundCHS checks the resize hook's rounding: up to whole
// cylinders of -H by -T, of the specification's geometry otherwise, and
// no rounding past the CHS maximum (where mkimg's loop never ends).
func TestVHDRoundCHS(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ size, heads, track, want uint64 }{
		{4359680, 1, 1, 4386816},             // 126 x 4 x 17
		{4386816, 1, 1, 4386816},             // already whole cylinders
		{1 << 20, 16, 63, 3 * 16 * 63 * 512}, // -H 16 -T 63
		{130 << 30, 1, 1, 130 << 30},         // past 65535 x 16 x 255
		{65535 * 16 * 255 * 512, 1, 1, 65535 * 16 * 255 * 512},
		{3 << 30, 1, 1, 3221471232}, // 6241 x 16 x 63
		{3 << 30, 2, 2, 3221471232}, // over 65535 cylinders of 2 x 2: the specification's geometry
	} {
		if got := vhdRoundCHS(c.size, c.heads, c.track); got != c.want {
			t.Errorf("vhdRoundCHS(%d, %d, %d) = %d, want %d", c.size, c.heads, c.track, got, c.want)
		}
	}
}

// FuzzOpenVHD checks that vhdOpen never panics and that the disk it
// opens reads (or fails) within its size, however the file is broken.
func FuzzOpenVHD(f *testing.F) {
	f.Add(tinyVHD())
	f.Fuzz(func(t *testing.T, b []byte) {
		r, size, err := vhdOpen(bytes.NewReader(b), int64(len(b)))
		vdisktest.CheckOpenError(t, err, int64(len(b)))
		if err == nil {
			vdisktest.ReadSome(t, r, size)
			vdisktest.CheckLayout(t, r.(vdisk.Reader), int64(len(b)))
		}
	})
}

// tinyVHD is a small dynamic VHD for the fuzz corpus: a 4 KiB disk in
// 512-byte blocks, block 1 holding bytes and the rest absent.
func tinyVHD() []byte {
	be := binary.BigEndian
	var ft vhdFooter
	copy(ft.cookie(), vhdFooterCookie)
	be.PutUint64(ft.dataOffset(), 512)
	be.PutUint64(ft.currentSize(), 4096)
	be.PutUint32(ft.diskType(), vhdDiskTypeDynamic)
	be.PutUint32(ft.checksum(), vhdChecksum(ft[:]))
	var h vhdDynamicHeader
	copy(h.cookie(), vhdHeaderCookie)
	be.PutUint64(h.tableOffset(), 1536)
	be.PutUint32(h.maxTableEntries(), 8)
	be.PutUint32(h.blockSize(), 512)
	be.PutUint32(h.checksum(), vhdChecksum(h[:]))
	bat := bytes.Repeat([]byte{0xff}, 512)
	be.PutUint32(bat[4:], 4) // block 1 at sector 4: bitmap, then data
	b := append(append(append(ft[:], h[:]...), bat...), make([]byte, 512)...)
	b = append(b, bytes.Repeat([]byte("data"), 128)...)
	return append(b, ft[:]...)
}

// TestVHDFuzzSeed checks that the fuzz target's hand-made seed opens
// and reads as it is meant to, so that fuzzing starts from a container
// the reader accepts: block 1 holds its bytes and the rest is zeros.
func TestVHDFuzzSeed(t *testing.T) {
	t.Parallel()
	r, size, err := vhdOpen(bytes.NewReader(tinyVHD()), int64(len(tinyVHD())))
	if err != nil || size != 4096 {
		t.Fatalf("tinyVHD: %d bytes, %v", size, err)
	}
	got := make([]byte, size)
	if _, err := r.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, size)
	copy(want[512:], bytes.Repeat([]byte("data"), 128))
	if !bytes.Equal(got, want) {
		t.Error("tinyVHD's disk is not block 1's bytes and zeros")
	}
}

// TestPlace checks that a dynamic VHD whose footer copy's Checksum is
// wrong is an *imgfmt.FormatError wrapping ErrFormat at that field.
func TestPlace(t *testing.T) {
	t.Parallel()
	b := vdisktest.Write(t, Format{}, make([]byte, 1<<20))
	b[64] ^= 1
	_, err := Format{}.Open(bytes.NewReader(b), int64(len(b)))
	vdisktest.CheckPlace(t, err, ErrFormat, "vhd", 64, "Checksum")
}
