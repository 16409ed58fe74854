package mkimg

import (
	"encoding/binary"
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
	f, _ := fileField(t, got, "VHDX BAT", "BAT")
	bat := g[f.Offset:]
	if e := binary.LittleEndian.Uint64(bat[256*8:]); e != 0 {
		t.Errorf("BAT entry 256 = %#x, want the chunk's sector bitmap entry 0", e)
	}
	if e := binary.LittleEndian.Uint64(bat[257*8:]); e&7 != 6 { // PAYLOAD_BLOCK_FULLY_PRESENT
		t.Errorf("BAT entry 257 = %#x, want block 256 fully present", e)
	}
}

// TestVHDXLargeBAT checks a 2 TiB VHDX, whose BAT is more than 1 MiB:
// qemu-img check passes, which it does not when the region table lists
// the BAT as mkimg's 1 MiB, leaving its end outside the region
// (imgkit/vdisk/vhdx's TestVHDXLargeBAT checks the region's length).
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
	qemuImg(t, qemu, "check", "-f", "vhdx", name)
}
