package cd9660

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// libarchiveZisofsFile is the contents of "file" in libarchive's zisofs
// image: "hello\n" and 12,345,678 zero bytes.
func libarchiveZisofsFile() []byte {
	return append([]byte("hello\n"), make([]byte, 12345678)...)
}

// TestZisofsLibarchive reads libarchive's zisofs image (mkzftree and
// mkhybrid -z): Stat gives the uncompressed size and the file and its
// hard link read uncompressed, as a whole and from the middle of a block
// across the next.
func TestZisofsLibarchive(t *testing.T) {
	t.Parallel()
	f := openBytes(t, libarchiveImage(t, "test_read_format_iso_zisofs"))
	want := libarchiveZisofsFile()
	for _, name := range []string{"file", "hardlink"} {
		fi, err := f.Stat(name)
		if err != nil || fi.Size() != int64(len(want)) {
			t.Fatalf("Stat(%q): size %v, %v; want %d", name, fi.Size(), err, len(want))
		}
		e := fi.Sys().(*Entry)
		if !e.RockRidge.HasZF || e.RockRidge.ZFLog2 != 15 || e.Size >= fi.Size() {
			t.Errorf("%s: ZF %v 2^%d, Data Length %d", name, e.RockRidge.HasZF, e.RockRidge.ZFLog2, e.Size)
		}
		got, err := f.ReadFile(name)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("ReadFile(%q): %d bytes, %v; want %d bytes", name, len(got), err, len(want))
		}
	}
	fl, err := f.Open("file")
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	buf := make([]byte, 70000)
	n, err := fl.(io.ReaderAt).ReadAt(buf, 32768-3)
	if err != nil || n != len(buf) || !bytes.Equal(buf, want[32768-3:][:len(buf)]) {
		t.Errorf("ReadAt across blocks: %d, %v", n, err)
	}
	n, err = fl.(io.ReaderAt).ReadAt(buf, int64(len(want))-10)
	if n != 10 || err != io.EOF {
		t.Errorf("ReadAt at the end: %d, %v; want 10, EOF", n, err)
	}
	n, err = fl.(io.ReaderAt).ReadAt(buf[:6], 0)
	if n != 6 || err != nil || string(buf[:6]) != "hello\n" {
		t.Errorf("ReadAt(0) = %q, %v", buf[:n], err)
	}
}

// TestZisofsBadBlockSize checks libarchive's crafted image whose ZF entry
// gives a block size of 2^2 and 0xFFFFFFF9 bytes: Stat gives the Data
// Length, as bsdtar does, and Open refuses the file naming the record.
func TestZisofsBadBlockSize(t *testing.T) {
	t.Parallel()
	f := openBytes(t, libarchiveImage(t, "test_read_format_iso_zisofs_overflow"))
	fi, err := f.Stat("OVERFLOW.BIN")
	if err != nil || fi.Size() != 2064 {
		t.Fatalf("Stat: %v, %v; want 2064 bytes", fi, err)
	}
	_, err = f.Open("OVERFLOW.BIN")
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "block size 2^2") || !strings.Contains(err.Error(), "at byte 0x") {
		t.Errorf("Open: %v; want a format error about the block size", err)
	}
}

// zisofsImage returns libarchive's zisofs image, the byte offset of the
// recorded data of its "file", and that data's length.
func zisofsImage(t *testing.T) ([]byte, int64, int64) {
	t.Helper()
	b := libarchiveImage(t, "test_read_format_iso_zisofs")
	e := mustEntry(t, openBytes(t, b), "file")
	return b, int64(e.Extent) * SectorSize, e.Size
}

// TestZisofsDamaged damages the zisofs file of libarchive's image in each
// part the reader checks and expects a format error saying where, never
// compressed bytes or a short file without an error.
func TestZisofsDamaged(t *testing.T) {
	t.Parallel()
	_, at, raw := zisofsImage(t)
	le32 := func(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }
	for _, c := range []struct {
		name string
		off  int64 // in the file's recorded data
		b    []byte
		want string
	}{
		{"magic", 0, []byte{0}, "no zisofs magic number"},
		{"size", 8, le32(12345685), "header says 12345685 bytes uncompressed"},
		{"log2", 13, []byte{16}, "blocks of 2^16 bytes"},
		{"pointer past the end", 16 + 4, le32(uint32(raw) + 1), "block pointer 1 at byte 20"},
		{"pointer before the table", 16, le32(8), "block pointer 0 at byte 16"},
		{"zlib stream", -1, []byte{0xff, 0xff}, "block 0, bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b, _, _ := zisofsImage(t)
			off := c.off
			if off < 0 {
				// The first block's zlib stream: its header.
				off = int64(b[at+16]) | int64(b[at+17])<<8 | int64(b[at+18])<<16 | int64(b[at+19])<<24
			}
			copy(b[at+off:], c.b)
			f := openBytes(t, b)
			got, err := f.ReadFile("file")
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "zisofs file at byte 0x") {
				t.Errorf("ReadFile: %d bytes, %v; want a format error with %q", len(got), err, c.want)
			}
		})
	}
}

// TestZisofsTruncatedBlock shortens the first block of libarchive's
// zisofs file by moving the pointer of the second block back: the block
// no longer decodes to its 32 KiB.
func TestZisofsTruncatedBlock(t *testing.T) {
	t.Parallel()
	b, at, _ := zisofsImage(t)
	p := at + 16
	start := int64(b[p]) | int64(b[p+1])<<8 | int64(b[p+2])<<16 | int64(b[p+3])<<24
	end := int64(b[p+4]) | int64(b[p+5])<<8 | int64(b[p+6])<<16 | int64(b[p+7])<<24
	if end-start < 4 {
		t.Fatalf("first block of %d bytes", end-start)
	}
	// Every later block of zeros is one zlib stream as long as the first
	// block's; give the second block the first one's tail and drop the
	// pointer of the first by that much.
	mid := start + (end-start)/2
	b[p+4], b[p+5], b[p+6], b[p+7] = byte(mid), byte(mid>>8), byte(mid>>16), byte(mid>>24)
	_, err := openBytes(t, b).ReadFile("file")
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "block 0, bytes") {
		t.Errorf("ReadFile: %v; want a format error about block 0", err)
	}
}

// TestZisofsXorriso reads the files of an image that xorriso compressed
// with zisofs in blocks of 32, 64 and 128 KiB and with zisofs2 in blocks
// of 32 KiB and 1 MiB (Z2 entries), against their sources:
// text, random bytes (left uncompressed), zeros, a file of exactly two
// blocks and a file of one byte.
func TestZisofsXorriso(t *testing.T) {
	t.Parallel()
	xorriso := tooltest.Need(t, "xorriso")
	src := filepath.Join(t.TempDir(), "src")
	must(t, os.Mkdir(src, 0o755))
	var text bytes.Buffer
	for i := range 40000 {
		text.WriteString(strings.Repeat("z", i%50) + " line\n")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 40000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	files := map[string][]byte{
		"text": text.Bytes(), "random": random, "zeros": make([]byte, 300000),
		"exact": bytes.Repeat([]byte("x"), 65536), "one": []byte("1"),
	}
	for name, data := range files {
		must(t, os.WriteFile(filepath.Join(src, name), data, 0o644))
	}
	for _, bs := range []string{"block_size=32k", "block_size=64k", "block_size=128k",
		"version_2=on:block_size_v2=32k", "version_2=on:block_size_v2=1024k:susp_z2=on"} {
		img := filepath.Join(t.TempDir(), "z.iso")
		out, err := exec.Command(xorriso, "-outdev", img, "-map", src, "/", "-zisofs", bs,
			"-set_filter_r", "--zisofs", "/", "--", "-commit").CombinedOutput()
		if err != nil {
			t.Fatalf("xorriso: %v\n%s", err, out)
		}
		f := openBytesFile(t, img)
		compressed := 0
		for name, want := range files {
			fi, err := f.Stat(name)
			if err != nil || fi.Size() != int64(len(want)) {
				t.Errorf("%s: Stat(%q): %v, %v; want %d bytes", bs, name, fi, err, len(want))
				continue
			}
			if fi.Sys().(*Entry).RockRidge.HasZF {
				compressed++
			}
			got, err := fs.ReadFile(f, name)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: %s: %d bytes, %v; want the %d bytes of the source", bs, name, len(got), err, len(want))
			}
		}
		if compressed < 3 {
			t.Errorf("%s: %d files with ZF entries, want text, zeros and exact at least", bs, compressed)
		}
	}
}

// TestZisofsField checks that the field description says what a ZF entry
// holds.
func TestZisofsField(t *testing.T) {
	t.Parallel()
	b := libarchiveImage(t, "test_read_format_iso_zisofs")
	fields, err := Fields(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	want := `version 1, algorithm "pz", header 4 words, block size 2^15, uncompressed size 12345684`
	for _, f := range fields {
		if f.Path == "/file" && f.Value == want {
			return
		}
	}
	t.Errorf("no field of /file says %q", want)
}

// TestZisofsSeeds reads the zisofs files of the xorriso fuzz seeds, which
// need no tool: in blocks of 32 KiB (zisofs) and of 64 KiB with Z2 entries
// (zisofs2), each must read as the pattern it was made of.
func TestZisofsSeeds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		seed    string
		version uint8 // the ZF entry's
		log2    uint8
	}{{"xorriso-zisofs", 1, 15}, {"xorriso-zisofs2", 2, 16}} {
		f := openBytes(t, seedImage(t, c.seed))
		for name, size := range map[string]int{"z": 100 << 10, "y": 33 << 10} {
			fi, err := f.Stat(name)
			if err != nil {
				t.Fatalf("%s: %v", c.seed, err)
			}
			rr := fi.Sys().(*Entry).RockRidge
			if !rr.HasZF || rr.ZFVersion != c.version || rr.ZFLog2 != c.log2 || fi.Size() != int64(size) {
				t.Errorf("%s: %s: ZF %v version %d 2^%d, size %d", c.seed, name, rr.HasZF, rr.ZFVersion, rr.ZFLog2, fi.Size())
			}
			got, err := f.ReadFile(name)
			if err != nil || !bytes.Equal(got, pattern(name, size)) {
				t.Errorf("%s: %s: %d bytes, %v; want its %d-byte pattern", c.seed, name, len(got), err, size)
			}
		}
	}
}

// seedImage returns the image of the fuzz seed name.
func seedImage(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzOpen", name))
	if err != nil {
		t.Fatal(err)
	}
	lit, _ := strings.CutPrefix(strings.TrimSpace(string(b)), "go test fuzz v1\n[]byte(")
	packed, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return unpackImage([]byte(packed))
}

// TestZisofsUnsupported gives the zisofs2 files of a seed image another
// algorithm (XZ) and version: Open refuses them with ErrUnsupported, and
// Stat gives their Data Length.
func TestZisofsUnsupported(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ old, new string }{{"Z2\x10\x02PZ", "Z2\x10\x02XZ"}, {"Z2\x10\x02PZ", "Z2\x10\x03PZ"}} {
		b := seedImage(t, "xorriso-zisofs2")
		if n := bytes.Count(b, []byte(c.old)); n < 2 {
			t.Fatalf("%d Z2 entries in the seed", n)
		}
		b = bytes.ReplaceAll(b, []byte(c.old), []byte(c.new))
		f := openBytes(t, b)
		fi, err := f.Stat("z")
		if err != nil || fi.Size() != fi.Sys().(*Entry).Size {
			t.Errorf("%q: Stat: %v, %v; want the Data Length", c.new, fi, err)
		}
		if _, err := f.Open("z"); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%q: Open: %v; want ErrUnsupported", c.new, err)
		}
	}
}
