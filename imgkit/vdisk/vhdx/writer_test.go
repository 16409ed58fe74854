package vhdx

import (
	"encoding/binary"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/vdisk"
)

// TestVHDXChunkedBAT checks the BAT of a disk of more than a chunk of
// blocks (4112 MiB of 512-byte sectors, 257 blocks of 16 MiB): the
// chunk's sector bitmap entry after block 255 is zero (not present), and
// block 256 follows it, fully present. mkimg's TestVHDXChunkedBAT checks
// that such a disk's bytes are freebsd-mkimg's.
func TestVHDXChunkedBAT(t *testing.T) {
	t.Parallel()
	bat := vhdxBAT(&vdisk.Params{SectorSize: 512, BlockSize: 512}, 4112<<20/vhdxBlockSize)
	if e := binary.LittleEndian.Uint64(bat[256*8:]); e != 0 {
		t.Errorf("BAT entry 256 = %#x, want the chunk's sector bitmap entry 0", e)
	}
	if e := binary.LittleEndian.Uint64(bat[257*8:]); e&7 != vhdxPayloadFullyPresent {
		t.Errorf("BAT entry 257 = %#x, want block 256 fully present", e)
	}
}

// TestVHDXLargeBAT checks the region table of a 2 TiB disk, whose BAT is
// more than 1 MiB: it lists the BAT's whole length (mkimg's 1 MiB would
// leave its end outside the region, and qemu-img refuses such a file).
// mkimg's TestVHDXLargeBAT checks such a disk with qemu-img.
func TestVHDXLargeBAT(t *testing.T) {
	t.Parallel()
	bat := vhdxBAT(&vdisk.Params{SectorSize: 512, BlockSize: 512}, 2<<40/vhdxBlockSize)
	rt := vhdxRegions(len(bat))
	if n := binary.LittleEndian.Uint32(rt.entry(1).length()); n != 2*vhdxMiB {
		t.Errorf("BAT region length %d, want 2 MiB", n)
	}
}
