package vhdx

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt/imgfmttest"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/uuid"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/vdisktest"
)

// FuzzOpenVHDX checks that vhdxOpen never panics and that the disk it
// opens reads (or fails) within its size, however the file is broken.
func FuzzOpenVHDX(f *testing.F) {
	imgfmttest.NoMinimize(f) // the seeds are disk images
	f.Add(tinyVHDX())
	f.Fuzz(func(t *testing.T, b []byte) {
		r, size, err := vhdxOpen(bytes.NewReader(b), int64(len(b)))
		vdisktest.CheckOpenError(t, err, int64(len(b)))
		if err == nil {
			vdisktest.ReadSome(t, r, size)
			vdisktest.CheckLayout(t, r.(vdisk.Reader), int64(len(b)))
		}
	})
}

// TestVHDXFuzzSeed checks that the fuzz target's hand-made seed opens
// and reads as it is meant to, so that fuzzing starts from a container
// the reader accepts: its 1 MiB disk is zeros.
func TestVHDXFuzzSeed(t *testing.T) {
	t.Parallel()
	x := tinyVHDX()
	r, size, err := vhdxOpen(bytes.NewReader(x), int64(len(x)))
	if err != nil || size != 1<<20 {
		t.Fatalf("tinyVHDX: %d bytes, %v", size, err)
	}
	got := make([]byte, size)
	if _, err := r.ReadAt(got, 0); err != nil || !diskio.IsZero(got) {
		t.Errorf("tinyVHDX's disk: %v, or not zeros", err)
	}
}

// tinyVHDX is a small VHDX for the fuzz corpus: the header section of
// mkimg's layout with the metadata and the BAT moved into its first MiB
// and a 1 MiB disk whose one block is zero.
func tinyVHDX() []byte {
	le := binary.LittleEndian
	b := make([]byte, 5*vhdx64K+2048)
	copy(b, vhdxSignature)
	h1, h2 := vhdxHeaders()
	copy(b[vhdxHeader1Offset:], h1[:])
	copy(b[vhdxHeader2Offset:], h2[:])
	var rt vhdxRegionTable
	copy(rt.signature(), vhdxRegionSignature)
	le.PutUint32(rt.entryCount(), 2)
	vhdxMetadataRegion.Encode(rt.entry(0).guid())
	le.PutUint64(rt.entry(0).fileOffset(), 5*vhdx64K)
	le.PutUint32(rt.entry(0).length(), 1024)
	vhdxBATRegion.Encode(rt.entry(1).guid())
	le.PutUint64(rt.entry(1).fileOffset(), 5*vhdx64K+1024)
	le.PutUint32(rt.entry(1).length(), 1024)
	le.PutUint32(rt.checksum(), crc32.Checksum(rt[:], castagnoli()))
	copy(b[vhdxRegionTableOffset:], rt[:])
	m := b[5*vhdx64K:]
	copy(m, vhdxMetadataSignature)
	le.PutUint16(m[10:], 3)
	for i, it := range []struct {
		g uuid.UUID
		v []byte
	}{
		{vhdxFileParameters, le.AppendUint32(le.AppendUint32(nil, vhdxMiB), 0)},
		{vhdxVirtualDiskSize, le.AppendUint64(nil, vhdxMiB)},
		{vhdxLogicalSectorSize, le.AppendUint32(nil, 512)},
	} {
		e := (*vhdxMetadataEntry)(m[32+32*i:])
		it.g.Encode(e.itemId())
		le.PutUint32(e.offset(), uint32(512+16*i))
		le.PutUint32(e.length(), uint32(len(it.v)))
		copy(m[512+16*i:], it.v)
	}
	le.PutUint64(b[5*vhdx64K+1024:], vhdxPayloadZero)
	return b
}
