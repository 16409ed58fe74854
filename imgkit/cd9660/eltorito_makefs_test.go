package cd9660

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// These tests compare the El Torito parts of FreeBSD makefs's images
// (freebsd-makefs -t cd9660, FreeBSD's code) with what this package's
// planner and encoders make for the same options: the System Area with
// its partition tables, the Boot Record in sector 17, the catalogue and
// the boot images from sector 19, the gap makefs leaves after them, and
// the path table's sector, which is the first after the boot area. No
// byte is masked.

// bootFile is a file of a comparison: size bytes of pseudo-random data
// seeded by its name, or, when mbr is set, a hard disk image whose first
// sector is an MBR with one partition.
type bootFile struct {
	size int
	mbr  bool
}

// bootCase is one comparison: the files in the working directory and the
// -o options that name them.
type bootCase struct {
	name  string
	files map[string]bootFile
	opts  string
}

// Sizes of the emulated floppies.
const (
	floppy12  = 1200 * 1024
	floppy144 = 1440 * 1024
	floppy288 = 2880 * 1024
)

// bootCases are the configurations compared with freebsd-makefs.
var bootCases = []bootCase{
	{"floppy1200", map[string]bootFile{"f.img": {size: floppy12}}, "bootimage=i386;f.img"},
	{"floppy1440", map[string]bootFile{"f.img": {size: floppy144}}, "bootimage=i386;f.img"},
	{"floppy2880", map[string]bootFile{"f.img": {size: floppy288}}, "bootimage=i386;f.img"},
	{"floppy-no-emul", map[string]bootFile{"f.img": {size: floppy144}}, "bootimage=i386;f.img,no-emul-boot"},
	{"no-emul", map[string]bootFile{"boot.img": {size: 3000}}, "bootimage=i386;boot.img,no-emul-boot"},
	{"load-segment", map[string]bootFile{"boot.img": {size: 4096}}, "bootimage=i386;boot.img,no-emul-boot,boot-load-segment=7c0"},
	{"load-segment-0x", map[string]bootFile{"boot.img": {size: 1}}, "bootimage=i386;boot.img,boot-load-segment=0x1000"},
	{"hard-disk", map[string]bootFile{"hd.img": {size: 1 << 20, mbr: true}}, "bootimage=i386;hd.img,hard-disk-boot"},
	{"no-boot", map[string]bootFile{"boot.img": {size: 3000}}, "bootimage=i386;boot.img,no-emul-boot,no-boot"},
	{"empty-image", map[string]bootFile{"zero.img": {}}, "bootimage=i386;zero.img"},
	{"efi", map[string]bootFile{"efi.img": {size: 20000}}, "bootimage=efi;efi.img,no-emul-boot"},
	{"multi", map[string]bootFile{"a.img": {size: 2048}, "b.img": {size: 5000}, "c.img": {size: 7}, "d.img": {size: 10000}},
		"bootimage=i386;a.img,no-emul-boot,bootimage=efi;b.img,no-emul-boot,bootimage=i386;c.img,boot-load-segment=1000,bootimage=efi;d.img,no-boot"},
	{"platformid", map[string]bootFile{"a.img": {size: 3000}, "e.img": {size: 9000}, "c.img": {size: 100}},
		"bootimage=i386;a.img,no-emul-boot,bootimage=i386;e.img,no-emul-boot,platformid=efi,bootimage=i386;c.img"},
	{"platforms", map[string]bootFile{"a.img": {size: 3000}, "p.img": {size: 4000}, "m.img": {size: 5000}, "e.img": {size: 6000}, "k.img": {size: 700}},
		"bootimage=efi;e.img,bootimage=i386;a.img,bootimage=powerpc;p.img,bootimage=macppc;m.img,bootimage=mac68k;k.img,bootimage=i386;a.img"},
	{"powerpc", map[string]bootFile{"p.img": {size: 30000}}, "bootimage=powerpc;p.img"},
	{"chrp", map[string]bootFile{"a.img": {size: 3000}}, "bootimage=i386;a.img,no-emul-boot,chrp-boot"},
	{"chrp-powerpc", map[string]bootFile{"p.img": {size: 3000}, "q.img": {size: 9000}}, "chrp-boot,bootimage=powerpc;p.img,bootimage=powerpc;q.img"},
	{"macppc", map[string]bootFile{"m.img": {size: 3000}, "n.img": {size: 9000}}, "bootimage=macppc;m.img,bootimage=mac68k;n.img"},
	{"generic", map[string]bootFile{"gen.img": {size: 32768}, "a.img": {size: 3000}}, "generic-bootimage=gen.img,bootimage=i386;a.img,no-emul-boot"},
	{"generic-partitions", map[string]bootFile{"gen.img": {size: 20000}, "m.img": {size: 3000}, "p.img": {size: 5000}},
		"generic-bootimage=gen.img,bootimage=macppc;m.img,bootimage=powerpc;p.img,chrp-boot"},
	{"generic-only", map[string]bootFile{"gen.img": {size: 1000}}, "generic-bootimage=gen.img,chrp-boot"},
	{"letters", map[string]bootFile{"gen.img": {size: 512}, "a.img": {size: 3000}}, "G=gen.img,B=i386;a.img,C"},
	{"bootimagedir", map[string]bootFile{"a.img": {size: 3000}}, "bootimagedir=Boot_1,bootimage=i386;a.img,no-emul-boot"},
	{"systems", map[string]bootFile{"a.img": {size: 3000}, "m.img": {size: 5000}, "p.img": {size: 4000}, "f.img": {size: floppy144}, "k.img": {size: 700}},
		"bootimage=i386;a.img,bootimage=macppc;m.img,bootimage=powerpc;p.img,bootimage=i386;f.img,bootimage=mac68k;k.img,bootimage=i386;a.img,no-emul-boot,boot-load-segment=7c0"},
	{"catalog-overflow", manyBootFiles(63), manyBootOptions(63, "i386", "i386", "efi")},
	{"catalog-overflow-ppc", manyBootFiles(63), manyBootOptions(63, "i386", "powerpc")},
	{"catalog-two-sectors", manyBootFiles(70), manyBootOptions(70, "i386", "i386", "efi")},
}

// largeBootCases are compared by TestBootMatchesFreeBSD only, for the
// size of their images: one of more than 65535 512-byte sectors, whose
// Sector Count makefs writes as its low 16 bits, after another image.
var largeBootCases = []bootCase{
	{"sector-count-16-bits", map[string]bootFile{"big.img": {size: 33<<20 + 1}, "a.img": {size: 3000}},
		"bootimage=i386;a.img,no-emul-boot,bootimage=efi;big.img,no-emul-boot"},
}

// manyBootFiles returns n small image files of different sizes.
func manyBootFiles(n int) map[string]bootFile {
	m := make(map[string]bootFile, n)
	for i := range n {
		m[fmt.Sprintf("i%02d.img", i)] = bootFile{size: 100 + 997*i}
	}
	return m
}

// manyBootOptions returns the options that add manyBootFiles(n), of the
// systems in turn.
func manyBootOptions(n int, systems ...string) string {
	var opts []string
	for i := range n {
		opts = append(opts, fmt.Sprintf("bootimage=%s;i%02d.img", systems[i%len(systems)], i))
	}
	return strings.Join(opts, ",")
}

func TestBootMatchesFreeBSD(t *testing.T) {
	t.Parallel()
	for _, c := range append(slices.Clip(bootCases), largeBootCases...) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := makeBootDir(t, c.files)
			tooltest.RunSorted(t, dir, "freebsd-makefs", "-t", "cd9660", "-T", "1000000000", "-o", c.opts, "out.iso", "tree")
			img, err := os.ReadFile(filepath.Join(dir, "out.iso"))
			if err != nil {
				t.Fatal(err)
			}
			compareBootArea(t, img, parseBootOptions(t, dir, c.opts))
		})
	}
}

// makeBootDir makes a directory with the files and a one-file tree.
func makeBootDir(t *testing.T, files map[string]bootFile) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tree"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tree", "README"), []byte("boot test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, f := range files {
		if err := os.WriteFile(filepath.Join(dir, name), bootFileData(name, f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// bootFileData is the content of the file f named name.
func bootFileData(name string, f bootFile) []byte {
	var seed [32]byte
	copy(seed[:], name)
	data := make([]byte, f.size)
	rand.NewChaCha8(seed).Read(data)
	if f.mbr {
		clear(data[:512])
		e := mbrPartitionEntry(data[mbrPartitionTableOffset:][:16])
		e.bootIndicator()[0] = 0x80
		e.partitionType()[0] = 0x0c // FAT32 LBA
		put731(e.startingLBA(), 63)
		put731(e.sizeInLBA(), uint32(f.size/512-63))
		put721(data[mbrSignatureOffset:], 0xaa55)
	}
	return data
}

// parseBootOptions reads makefs -o options into a checked Boot
// (checkedBootOptions).
func parseBootOptions(t *testing.T, dir, opts string) *Boot {
	t.Helper()
	b, err := checkedBootOptions(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compareBootArea compares the boot parts of img, made by makefs, with
// what the writer's boot step writes for b into an image of the same
// size: the System Area, and with boot images the Boot Record, the
// catalogue, the images and the gap after them, and the first path
// table's sector, which must be the first after the boot area.
func compareBootArea(t *testing.T, img []byte, b *Boot) {
	t.Helper()
	a, err := prepareBoot(b, false)
	if err != nil {
		t.Fatal(err)
	}
	// The volume descriptor set is the PVD, the Boot Record and the
	// terminator, so the catalogue goes in sector 19.
	first := uint32(19)
	if len(b.Images) == 0 {
		first = 18
	}
	end, err := a.layout(first)
	if err != nil {
		t.Fatal(err)
	}
	out := make(sliceWriterAt, len(img))
	if err := a.write(out, uint32(len(img)/SectorSize)); err != nil {
		t.Fatal(err)
	}
	if a.plan != nil {
		putBootRecord((*volumeDescriptor)(out[17*SectorSize:][:SectorSize]), a.plan.catalogSector)
	}
	sa := systemAreaSectors * SectorSize
	compareBytes(t, "System Area", img[:sa], out[:sa], 0)
	if a.plan == nil {
		return
	}
	compareBytes(t, "Boot Record (sector 17)", img[17*SectorSize:][:SectorSize], out[17*SectorSize:][:SectorSize], 17*SectorSize)
	area := 19 * SectorSize
	compareBytes(t, "catalogue, boot images and gap (sectors 19 on)", img[area:end*SectorSize], out[area:end*SectorSize], area)
	if got := binary.LittleEndian.Uint32(img[16*SectorSize+140:]); got != end {
		t.Errorf("Type L Path Table at sector %d, boot area ends at %d", got, end)
	}
}

// compareBytes fails the test with the first difference of got (makefs's)
// and want (the encoders'), the image's bytes from offset base.
func compareBytes(t *testing.T, what string, got, want []byte, base int) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	for i := range got {
		if got[i] != want[i] {
			off := base + i
			t.Errorf("%s: differs first at byte %#x (sector %d, byte %#x): makefs %x, encoder %x",
				what, off, off/SectorSize, off%SectorSize, got[i:min(i+32, len(got))], want[i:min(i+32, len(want))])
			return
		}
	}
}

// sliceWriterAt writes into a byte slice.
type sliceWriterAt []byte

func (s sliceWriterAt) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > int64(len(s)) {
		return 0, fmt.Errorf("write of %d bytes at %d outside %d", len(p), off, len(s))
	}
	return copy(s[off:], p), nil
}
