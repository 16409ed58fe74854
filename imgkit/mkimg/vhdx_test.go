package mkimg

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestVHDXChunkedBAT checks a VHDX of more than one chunk (257 payload
// blocks of 16 MiB with 512-byte sectors): the BAT has a sector bitmap
// entry after the 256th block, as freebsd-mkimg's, and the first 4 MiB
// (header section, log, metadata and BAT) and the size are
// freebsd-mkimg's. The disk is sparse; only those 4 MiB are compared.
func TestVHDXChunkedBAT(t *testing.T) {
	t.Parallel()
	ref := tooltest.Need(t, "freebsd-mkimg")
	dir := t.TempDir()
	inputs(t, dir)
	line := "-y -f vhdx -s gpt -c 4112m -p efi:=a"
	want := filepath.Join(dir, "want.vhdx")
	cmd := exec.Command(ref, append(strings.Fields(line), "-o", want)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("freebsd-mkimg %s: %v\n%s", line, err, out)
	}
	got := filepath.Join(dir, "got.vhdx")
	if err := WriteFile(got, parseIn(t, dir, strings.Fields(line))); err != nil {
		t.Fatal(err)
	}
	head := func(name string) ([]byte, int64) {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 4<<20)
		if _, err := io.ReadFull(f, b); err != nil {
			t.Fatal(err)
		}
		return b, fi.Size()
	}
	g, gsize := head(got)
	w, wsize := head(want)
	if gsize != wsize {
		t.Fatalf("VHDX is %d bytes, freebsd-mkimg's %d", gsize, wsize)
	}
	compareDisks(t, g, w)
	bat := g[vhdxBATOffset:]
	if e := binary.LittleEndian.Uint64(bat[256*8:]); e != 0 {
		t.Errorf("BAT entry 256 = %#x, want the chunk's sector bitmap entry 0", e)
	}
	if e := binary.LittleEndian.Uint64(bat[257*8:]); e&7 != vhdxPayloadFullyPresent {
		t.Errorf("BAT entry 257 = %#x, want block 256 fully present", e)
	}
}

// FuzzOpenVHDX checks that vhdxOpen never panics and that the disk it
// opens reads (or fails) within its size, however the file is broken.
func FuzzOpenVHDX(f *testing.F) {
	f.Add(tinyVHDX())
	f.Fuzz(func(t *testing.T, b []byte) {
		r, size, err := vhdxOpen(bytes.NewReader(b), int64(len(b)))
		checkContainerError(t, err, int64(len(b)))
		if err == nil {
			readSome(t, r, size)
			checkLayout(t, r, size, int64(len(b)))
		}
	})
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
	vhdxMetadataRegion.encode(rt.entry(0).guid())
	le.PutUint64(rt.entry(0).fileOffset(), 5*vhdx64K)
	le.PutUint32(rt.entry(0).length(), 1024)
	vhdxBATRegion.encode(rt.entry(1).guid())
	le.PutUint64(rt.entry(1).fileOffset(), 5*vhdx64K+1024)
	le.PutUint32(rt.entry(1).length(), 1024)
	le.PutUint32(rt.checksum(), crc32.Checksum(rt[:], castagnoli))
	copy(b[vhdxRegionTableOffset:], rt[:])
	m := b[5*vhdx64K:]
	copy(m, vhdxMetadataSignature)
	le.PutUint16(m[10:], 3)
	for i, it := range []struct {
		g GUID
		v []byte
	}{
		{vhdxFileParameters, le.AppendUint32(le.AppendUint32(nil, vhdxMiB), 0)},
		{vhdxVirtualDiskSize, le.AppendUint64(nil, vhdxMiB)},
		{vhdxLogicalSectorSize, le.AppendUint32(nil, 512)},
	} {
		e := (*vhdxMetadataEntry)(m[32+32*i:])
		it.g.encode(e.itemId())
		le.PutUint32(e.offset(), uint32(512+16*i))
		le.PutUint32(e.length(), uint32(len(it.v)))
		copy(m[512+16*i:], it.v)
	}
	le.PutUint64(b[5*vhdx64K+1024:], vhdxPayloadZero)
	return b
}

// TestVHDXLargeBAT checks a 2 TiB VHDX, whose BAT is more than 1 MiB: the
// region table lists the BAT's whole length (mkimg's 1 MiB would leave
// its end outside the region, and qemu-img refuses such a file), and
// qemu-img check passes.
func TestVHDXLargeBAT(t *testing.T) {
	t.Parallel()
	qemu := tooltest.Need(t, "qemu-img")
	name := filepath.Join(t.TempDir(), "big.vhdx")
	o, err := Parse(strings.Fields("-f vhdx -s gpt -c 2t -p efi::1m"))
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(name, o); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rt vhdxRegionTable
	if _, err := f.ReadAt(rt[:], vhdxRegionTableOffset); err != nil {
		t.Fatal(err)
	}
	if n := binary.LittleEndian.Uint32(rt.entry(1).length()); n != 2*vhdxMiB {
		t.Errorf("BAT region length %d, want 2 MiB", n)
	}
	qemuImg(t, qemu, "check", "-f", "vhdx", name)
}
