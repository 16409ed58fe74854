package mkimg

import (
	"bytes"
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// inputs writes the partition and boot code files the command lines of
// the tests name, in dir: a (100000 bytes), b (777 bytes, odd), c (4096
// bytes), d (1 byte) and boot (300 bytes), each of distinct bytes; and
// bsdboot, 8192 bytes of boot code filling a BSD label's whole boot area,
// so that the label's place in it and the entries mkimg leaves holding
// boot code show.
func inputs(t *testing.T, dir string) {
	t.Helper()
	for name, n := range map[string]int{"a": 100000, "b": 777, "c": 4096, "d": 1, "boot": 300} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + len(name) + int(name[0]))
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := make([]byte, bsdBootblockSize)
	for i := range b {
		b[i] = byte(i*13 + 5)
	}
	if err := os.WriteFile(filepath.Join(dir, "bsdboot"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// matrix is the command lines compared with freebsd-mkimg -y: both
// schemes, 512- and 4096-byte sectors, 1, 2 and 4 partitions, odd sizes,
// labels, -P, -H/-T, -a, unused slots and boot code.
var matrix = []string{
	"-s gpt -p efi:=a",
	"-s gpt -p efi/ESP:=a -p freebsd-ufs:=b",
	"-s gpt -p efi/EFI-system:=a -p freebsd-ufs::1m -p - -p freebsd-swap:=b",
	"-s gpt -p freebsd-boot:=d -p freebsd-zfs::12345 -p ms-basic-data:=c -p prepboot:=b",
	"-s gpt -S 4096 -p efi:=a",
	"-s gpt -S 4096 -p efi:=b -p freebsd-ufs:=d",
	"-s gpt -S 4096 -p efi:=a -p freebsd:=b -p freebsd-vinum::7k -p ntfs:=d",
	"-s gpt -P 4096 -p efi:=a -p freebsd-ufs:=b",
	"-s gpt -S 4096 -P 65536 -p efi:=b -p mbr:=d",
	"-s gpt -b boot -p freebsd-boot:=c -p freebsd-ufs:=b",
	"-s GPT -p EFI/abcdefghijklmnopqrstuvwxyz0123456789:=b",
	"-s mbr -p freebsd:=a",
	"-s mbr -p freebsd:=a -p efi::1m",
	"-s mbr -p fat32:=b -p - -p ntfs:=c -p prepboot:=d",
	"-s mbr -p fat16b:=b -p ebr::3k -p efi:=d -p freebsd:=c",
	"-s mbr -S 4096 -p freebsd:=a",
	"-s mbr -S 4096 -p freebsd:=b -p efi:=d",
	"-s mbr -S 4096 -a 2 -b boot -p freebsd:=a -p efi:=b -p - -p fat32:=d",
	"-s mbr -b boot -p freebsd:=a -p - -p efi:=b",
	"-s mbr -H 16 -T 63 -p freebsd:=a -p efi::3k",
	"-s mbr -P 4096 -p freebsd:=b -p efi:=d",
	"-s mbr -a 3 -p freebsd:=b -p efi:=d -p fat32:=c",
}

// TestFreeBSDIdentity checks that WriteFile, Write and Build give
// freebsd-mkimg -y's bytes for every command line of the matrix.
func TestFreeBSDIdentity(t *testing.T) {
	t.Parallel()
	checkFreeBSDMatrix(t, matrix)
}

// parseIn parses args with the partition and boot code files made
// relative to dir.
func parseIn(t *testing.T, dir string, args []string) *Options {
	t.Helper()
	o, err := Parse(args)
	if err != nil {
		t.Fatal(err)
	}
	return matrixInDir(dir, o)
}

// compareDisks fails the test at the first sector where got and want
// differ, or when their sizes differ.
func compareDisks(t *testing.T, got, want []byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("disk is %d bytes, freebsd-mkimg's %d", len(got), len(want))
	}
	for off := 0; off < len(got); off += 512 {
		if !bytes.Equal(got[off:off+512], want[off:off+512]) {
			t.Fatalf("disks differ in the 512 bytes at %#x:\ngot  %x\nwant %x", off, got[off:off+512], want[off:off+512])
		}
	}
}

// TestSgdiskVerify checks that sgdisk -v finds no problems in GPTs made
// without -y, whose GUIDs are derived.
func TestSgdiskVerify(t *testing.T) {
	t.Parallel()
	sgdisk := tooltest.Need(t, "sgdisk")
	dir := t.TempDir()
	inputs(t, dir)
	for _, line := range matrix {
		if !strings.HasPrefix(strings.ToLower(line), "-s gpt") || strings.Contains(line, "-S 4096") {
			continue // sgdisk reads a disk image file as 512-byte sectors
		}
		t.Run(line, func(t *testing.T) {
			t.Parallel()
			img := filepath.Join(t.TempDir(), "disk.img")
			if err := WriteFile(img, parseIn(t, dir, strings.Fields(line))); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(sgdisk, "-v", img).CombinedOutput()
			if err != nil || !bytes.Contains(out, []byte("No problems found")) {
				t.Fatalf("sgdisk -v: %v\n%s", err, out)
			}
		})
	}
}

// TestDerivedGUIDs checks the derivation rule: the same inputs give the
// same disk, the GUIDs are RFC 4122 version 4, all distinct, and a
// partition's content changes them.
func TestDerivedGUIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	args := strings.Fields("-s gpt -p efi:=a -p freebsd-ufs:=b -p freebsd-swap::64k")
	first, err := Build(parseIn(t, dir, args))
	if err != nil {
		t.Fatal(err)
	}
	second, err := Build(parseIn(t, dir, args))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Fatal("two builds of the same inputs differ")
	}
	ids := gptGUIDs(t, first, 3)
	seen := map[[16]byte]bool{}
	for _, g := range ids {
		if g[7]>>4 != 4 || g[8]>>6 != 2 {
			t.Errorf("GUID %x is not RFC 4122 version 4", g)
		}
		if seen[g] {
			t.Errorf("GUID %x appears twice", g)
		}
		seen[g] = true
	}
	b := filepath.Join(dir, "b")
	if err := os.WriteFile(b, []byte("other content of b"), 0o644); err != nil {
		t.Fatal(err)
	}
	changed := gptGUIDs(t, mustBuild(t, parseIn(t, dir, args)), 3)
	for i := range ids {
		if ids[i] == changed[i] {
			t.Errorf("GUID %d unchanged when partition 2's content changed", i)
		}
	}
	sum := sha256.Sum256(nil)
	if seed := (&layout{}).seed(nil); seed == sum {
		t.Error("the seed of an empty layout is the hash of nothing: the domain string is not hashed")
	}
}

// mustBuild builds o or fails the test.
func mustBuild(t *testing.T, o *Options) []byte {
	t.Helper()
	b, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gptGUIDs returns a 512-byte-sector GPT's DiskGUID and the
// UniquePartitionGUIDs of its first n entries, as stored on disk.
func gptGUIDs(t *testing.T, disk []byte, n int) [][16]byte {
	t.Helper()
	h := (*gptHeader)(disk[512:][:gptHeaderSize])
	if !bytes.Equal(h.signature(), gptSignature[:]) {
		t.Fatal("no GPT header at LBA 1")
	}
	ids := [][16]byte{[16]byte(h.diskGUID())}
	for i := range n {
		e := (*gptEntry)(disk[1024+i*gptEntrySize:][:gptEntrySize])
		ids = append(ids, [16]byte(e.uniquePartitionGUID()))
	}
	return ids
}

// TestErrors checks that each bad command line or input is refused with
// one line wrapping the sentinel a caller tells it by, leaves no output
// file behind, and is refused by freebsd-mkimg too (but for -f vhd).
func TestErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	big := filepath.Join(dir, "bigboot")
	if err := os.WriteFile(big, make([]byte, 513), 0o644); err != nil {
		t.Fatal(err)
	}
	checkSchemeErrors(t, dir, []schemeErrorCase{
		{"-s gpt", ErrOption, false},
		{"-s sun -p efi:=a", ErrOption, false},
		{"-p efi:=a", ErrOption, false},
		{"-s gpt -p efi:=a -S 8192", ErrOption, false},
		{"-s gpt -p efi:=a -S 1000", ErrOption, false},
		{"-s gpt -p efi:=a -P 1000", ErrOption, false},
		{"-s gpt -p efi:=a -S 4096 -P 512", ErrOption, false},
		{"-s mbr -p freebsd:=a -H 256", ErrOption, false},
		{"-s mbr -p freebsd:=a -T 64", ErrOption, false},
		{"-s mbr -p freebsd:=a -a 101", ErrOption, false},
		{"-s gpt -p efi:=a -f bogus", ErrOption, false},
		{"-s gpt -p efi", ErrOption, false},
		{"-s gpt -p /x:=a", ErrOption, false},
		{"-s gpt -p efi/:=a", ErrOption, false},
		{"-s gpt -p efi::12q", ErrOption, false},
		{"-s gpt -p efi:=a -s mbr", ErrOption, false},
		{"-s gpt -p efi:=a extra", ErrOption, false},
		{"-s mbr -p freebsd:=a -p - -p - -p - -p -", ErrPartition, false},
		{"-s mbr -p freebsd/root:=a", ErrPartition, false},
		{"-s gpt -p efi/abcdefghijklmnopqrstuvwxyz0123456789X:=a", ErrPartition, false},
		{"-s gpt -p freebsd-ufs-typo:=a", ErrPartition, false},
		{"-s mbr -p freebsd-ufs:=a", ErrPartition, false},
		{"-s gpt -p efi:=missing", ErrPartition, false},
		{"-s gpt -p efi:=" + dir, ErrPartition, false},
		{"-s gpt -p efi:=a -b bigboot", ErrBootcode, false},
		{"-s gpt -p efi:=a -b missing", ErrBootcode, false},
	})
}

// TestParseSize checks mkimg's number syntax.
func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]uint64{
		"0": 0, "512": 512, "1k": 1024, "1K": 1024, "3m": 3 << 20, "2g": 2 << 30,
		"1t": 1 << 40, "1p": 1 << 50, "1e": 1 << 60, "7b": 7, "0x10": 16, "010": 8,
	} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "k", "1kk", "-1", "+1", "1_000", "16e", "0b1", "1.5m", " 1"} {
		if n, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, n)
		}
	}
}
