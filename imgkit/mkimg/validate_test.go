package mkimg

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// validateGPT and validateMBR are the command lines whose disks the
// independent tools check, each with -y and without: 512- and
// 4096-byte sectors, block sizes, labels (up to 36 bytes), unused slots,
// boot code, -a, and 129 partitions. The files are inputs' (a: 100000
// bytes, b: 777, c: 4096, d: 1, boot: 300).
var (
	validateGPT = []string{
		"-s gpt -p efi/ESP:=a -p - -p freebsd-ufs::1m -p freebsd-swap/swap0:=b",
		"-s gpt -S 4096 -p efi/EFI-system:=a -p freebsd-ufs:=b -p - -p freebsd-zfs::100000",
		"-s gpt -P 4096 -b boot -p freebsd-boot:=d -p freebsd-ufs/rootfs:=a",
		"-s gpt -S 4096 -P 65536 -p ms-basic-data/abcdefghijklmnopqrstuvwxyz0123456789:=a -p - -p -",
		"-s gpt -H 16 -T 63 -p - -p freebsd-boot::777 -p efi:=c -p freebsd-vinum/v:=d",
		"-s gpt" + strings.Repeat(" -p freebsd-ufs::1k", 128) + " -p efi/last:=b",
	}
	validateMBR = []string{
		"-s mbr -p freebsd:=a -p - -p efi:=b -p fat32::1m",
		"-s mbr -H 16 -T 63 -b boot -p freebsd:=a -p fat16b::100000",
		"-s mbr -S 4096 -a 2 -p ntfs:=a -p freebsd::1m -p prepboot:=d",
		"-s mbr -S 4096 -H 255 -T 63 -p - -p efi:=a -p - -p fat32:=c",
		"-s mbr -P 4096 -a 4 -p prepboot:=d -p fat16b:=b -p ntfs::3k -p freebsd:=c",
	}
)

// wantGPTTypes and wantMBRTypes are the types the tools must report for
// the aliases of validateGPT and validateMBR, written out from UEFI 2.10
// appendix and FreeBSD's sys/disk/gpt.h and mbr.h apart from the
// package's tables.
var (
	wantGPTTypes = map[string]string{
		"efi":           "C12A7328-F81F-11D2-BA4B-00A0C93EC93B",
		"freebsd-boot":  "83BD6B9D-7F41-11DC-BE0B-001560B84F0F",
		"freebsd-swap":  "516E7CB5-6ECF-11D6-8FF8-00022D09712B",
		"freebsd-ufs":   "516E7CB6-6ECF-11D6-8FF8-00022D09712B",
		"freebsd-vinum": "516E7CB8-6ECF-11D6-8FF8-00022D09712B",
		"freebsd-zfs":   "516E7CBA-6ECF-11D6-8FF8-00022D09712B",
		"ms-basic-data": "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7",
	}
	wantMBRTypes = map[string]int{
		"efi": 0xef, "fat16b": 0x06, "fat32": 0x0b, "freebsd": 0xa5, "ntfs": 0x07, "prepboot": 0x41,
	}
)

// wantPart is one used slot as the tools must list it: computed from the
// command line by the layout rule of DETAILS.md, written
// out again here so that a mistake in layout.go cannot hide.
type wantPart struct {
	slot           int    // 1-based
	start, sectors uint64 // as the table records them (MBR: whole tracks)
	contentSectors uint64 // the contents' sectors, before track rounding
	typ, label     string
	file           string // the partition's file, or ""
}

// wantDisk is a disk's expected geometry and partitions.
type wantDisk struct {
	secsz, blksz, heads, track uint64
	slots                      int
	parts                      []wantPart
	sectors                    uint64 // the disk's size
}

// expectLayout lays o out as DETAILS.md says: a GPT keeps
// LBA 0, 1 and an entry array of max(16 KiB, 128 bytes a slot) before the
// partitions and rounds each start and end up to the physical block; an
// MBR keeps LBA 0 and rounds starts and sizes up to whole tracks.
func expectLayout(t *testing.T, o *Options) wantDisk {
	t.Helper()
	d := wantDisk{secsz: 512, heads: 1, track: 1, slots: len(o.Partitions)}
	if o.SectorSize != 0 {
		d.secsz = uint64(o.SectorSize)
	}
	d.blksz = d.secsz
	if o.BlockSize != 0 {
		d.blksz = uint64(o.BlockSize)
	}
	if o.Heads != 0 {
		d.heads = uint64(o.Heads)
	}
	if o.SectorsPerTrack != 0 {
		d.track = uint64(o.SectorsPerTrack)
	}
	up := func(n, m uint64) uint64 { return (n + m - 1) / m * m }
	align := func(n uint64) uint64 { return up(n, d.blksz/d.secsz) }
	if o.Scheme == "mbr" {
		align = func(n uint64) uint64 { return up(n, d.track) }
	}
	var next, table uint64
	if o.Scheme == "gpt" {
		table = max(16384/d.secsz, up(uint64(d.slots)*128, d.secsz)/d.secsz)
		next = align(2 + table)
	} else {
		next = align(1)
	}
	for i, p := range o.Partitions {
		if p.Unused {
			continue
		}
		n := p.Size
		if p.File != "" {
			fi, err := os.Stat(p.File)
			if err != nil {
				t.Fatal(err)
			}
			n = uint64(fi.Size())
		}
		w := wantPart{slot: i + 1, start: align(next), contentSectors: up(n, d.secsz) / d.secsz, typ: p.Type, label: p.Label, file: p.File}
		w.sectors = w.contentSectors
		if o.Scheme == "mbr" {
			w.sectors = up(w.sectors, d.track)
		}
		next = align(w.start + w.contentSectors)
		d.parts = append(d.parts, w)
	}
	d.sectors = next
	if o.Scheme == "gpt" {
		d.sectors = align(next + table + 1) // the backup array and header
	}
	return d
}

// validateDisk writes the disk of line (with -y when testMode) in a
// temporary directory and returns its path, its options and the layout
// it must have.
func validateDisk(t *testing.T, dir, line string, testMode bool) (string, *Options, wantDisk) {
	t.Helper()
	args := strings.Fields(line)
	if testMode {
		args = append(args, "-y")
	}
	o := parseIn(t, dir, args)
	img := filepath.Join(t.TempDir(), "disk.img")
	if err := WriteFile(img, o); err != nil {
		t.Fatal(err)
	}
	return img, o, expectLayout(t, o)
}

// runTool runs a tool and returns its standard output, failing the test with
// its output when it exits non-zero.
func runTool(t *testing.T, name string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.String()
}

// blockDevice returns a device of the disk's sector size for the tools
// that take a sector size only from the device they read (sgdisk and
// util-linux 2.38's sfdisk, which read a file as 512-byte sectors): the
// file itself for 512-byte sectors, else a read-only loop device with
// that logical block size (losetup -b), detached when the test ends.
func blockDevice(t *testing.T, img string, secsz uint64) string {
	t.Helper()
	if secsz == 512 {
		return img
	}
	losetup := tooltest.Need(t, "losetup")
	if os.Geteuid() != 0 {
		tooltest.Missing(t, "a loop device of 4096-byte sectors needs root")
	}
	dev := strings.TrimSpace(runTool(t, losetup, "-r", "-b", strconv.FormatUint(secsz, 10), "-f", "--show", img))
	t.Cleanup(func() {
		if out, err := exec.Command(losetup, "-d", dev).CombinedOutput(); err != nil {
			t.Errorf("losetup -d %s: %v: %s", dev, err, out)
		}
	})
	return dev
}

// comparePartitions checks that a tool listed exactly the used slots of
// want, each at its start with its sector count, and, through check, the
// fields the tool shows.
func comparePartitions(t *testing.T, tool string, got []toolPart, want wantDisk, check func(g toolPart, w wantPart)) {
	t.Helper()
	if len(got) != len(want.parts) {
		t.Errorf("%s lists %d partitions, want %d: %+v", tool, len(got), len(want.parts), got)
		return
	}
	for i, w := range want.parts {
		g := got[i]
		if g.slot != w.slot || g.start != w.start || g.sectors != w.sectors {
			t.Errorf("%s: partition %d is slot %d, sectors %d+%d; want slot %d, sectors %d+%d", tool, i+1, g.slot, g.start, g.sectors, w.slot, w.start, w.sectors)
		}
		if check != nil {
			check(g, w)
		}
	}
}

// TestValidateGPT checks every disk of validateGPT, with -y and with
// derived GUIDs, with the independent tools: sgdisk -v finds no problems,
// sfdisk --verify none, and sfdisk -d, fdisk -l and mmls list every used
// slot at the start and with the size the layout rule gives, sfdisk with
// its type GUID, label and the GUID -y or the derivation rule gives, and
// mmls with its label; sgdisk -i and -p print the same GUIDs.
func TestValidateGPT(t *testing.T) {
	t.Parallel()
	sgdisk := tooltest.Need(t, "sgdisk")
	sfdisk := tooltest.Need(t, "sfdisk")
	fdisk := tooltest.Need(t, "fdisk")
	mmls := tooltest.Need(t, "mmls")
	dir := t.TempDir()
	inputs(t, dir)
	for _, line := range validateGPT {
		for _, testMode := range []bool{true, false} {
			t.Run(fmt.Sprintf("y=%v/%.60s", testMode, line), func(t *testing.T) {
				t.Parallel()
				img, o, want := validateDisk(t, dir, line, testMode)
				diskGUID, partGUIDs := expectGUIDs(t, o, want)
				dev := blockDevice(t, img, want.secsz)
				if out := runTool(t, sgdisk, "-v", dev); !strings.Contains(out, "No problems found") {
					t.Errorf("sgdisk -v:\n%s", out)
				}
				if out := runTool(t, sfdisk, "--verify", dev); !strings.Contains(out, "No errors detected") {
					t.Errorf("sfdisk --verify:\n%s", out)
				}
				comparePartitions(t, "sfdisk -d", sfdiskDump(t, sfdisk, dev), want, func(g toolPart, w wantPart) {
					if g.typ != wantGPTTypes[w.typ] || g.label != w.label || g.guid != partGUIDs[w.slot] {
						t.Errorf("sfdisk -d: slot %d has type %s, label %q, GUID %s; want %s, %q, %s", w.slot, g.typ, g.label, g.guid, wantGPTTypes[w.typ], w.label, partGUIDs[w.slot])
					}
				})
				comparePartitions(t, "fdisk -l", fdiskList(t, fdisk, img, want.secsz), want, nil)
				comparePartitions(t, "mmls", mmlsList(t, mmls, "", img, want.secsz), want, func(g toolPart, w wantPart) {
					if g.label != w.label {
						t.Errorf("mmls: slot %d is described %q; want its label %q", w.slot, g.label, w.label)
					}
				})
				if out := runTool(t, sgdisk, "-p", dev); !strings.Contains(out, "Disk identifier (GUID): "+diskGUID+"\n") {
					t.Errorf("sgdisk -p does not give the disk GUID %s:\n%s", diskGUID, out)
				}
				for _, w := range want.parts[:min(len(want.parts), 4)] {
					out := runTool(t, sgdisk, "-i", strconv.Itoa(w.slot), dev)
					if !strings.Contains(out, "Partition unique GUID: "+partGUIDs[w.slot]+"\n") ||
						!strings.Contains(out, fmt.Sprintf("First sector: %d ", w.start)) ||
						!strings.Contains(out, fmt.Sprintf("Last sector: %d ", w.start+w.sectors-1)) {
						t.Errorf("sgdisk -i %d: want GUID %s, sectors %d to %d:\n%s", w.slot, partGUIDs[w.slot], w.start, w.start+w.sectors-1, out)
					}
				}
			})
		}
	}
}

// TestValidateMBR checks every disk of validateMBR, with the independent
// tools: sfdisk --verify finds no errors, and sfdisk -d, fdisk -l and
// mmls list every used slot at the start and with the size (whole
// tracks) the layout rule gives, sfdisk and fdisk with its type id and
// boot flag, mmls with its type id.
func TestValidateMBR(t *testing.T) {
	t.Parallel()
	sfdisk := tooltest.Need(t, "sfdisk")
	fdisk := tooltest.Need(t, "fdisk")
	mmls := tooltest.Need(t, "mmls")
	eachLine(t, validateMBR, func(t *testing.T, dir, line string) {
		img, o, want := validateDisk(t, dir, line, false)
		active := func(w wantPart) bool {
			return o.Active == w.slot || (o.Active == 0 && w.slot == 1 && o.Bootcode != "")
		}
		typeID := func(w wantPart) string { return fmt.Sprintf("%X", wantMBRTypes[w.typ]) }
		dev := blockDevice(t, img, want.secsz)
		if out := runTool(t, sfdisk, "--verify", dev); !strings.Contains(out, "No errors detected") {
			t.Errorf("sfdisk --verify:\n%s", out)
		}
		comparePartitions(t, "sfdisk -d", sfdiskDump(t, sfdisk, dev), want, func(g toolPart, w wantPart) {
			if g.typ != typeID(w) || g.boot != active(w) {
				t.Errorf("sfdisk -d: slot %d has type %s, bootable %v; want %s, %v", w.slot, g.typ, g.boot, typeID(w), active(w))
			}
		})
		comparePartitions(t, "fdisk -l", fdiskList(t, fdisk, img, want.secsz), want, func(g toolPart, w wantPart) {
			if g.boot != active(w) || strings.TrimLeft(g.typ, "0") != typeID(w) {
				t.Errorf("fdisk -l: slot %d has Id %s, boot %v; want %s, %v", w.slot, g.typ, g.boot, typeID(w), active(w))
			}
		})
		comparePartitions(t, "mmls", mmlsList(t, mmls, "", img, want.secsz), want, func(g toolPart, w wantPart) {
			if !strings.HasSuffix(g.label, fmt.Sprintf("(0x%02x)", wantMBRTypes[w.typ])) {
				t.Errorf("mmls: slot %d is described %q; want type 0x%02x", w.slot, g.label, wantMBRTypes[w.typ])
			}
		})
	})
}

// expectGUIDs returns the disk GUID and each used slot's GUID (by
// 1-based slot) as sgdisk prints them: FreeBSD's counters with -y (the
// n'th used slot's GUID is n in every byte, the disk's the next), or
// else the derivation rule of DETAILS.md, computed here
// from its text and not from guid.go.
func expectGUIDs(t *testing.T, o *Options, d wantDisk) (string, map[int]string) {
	t.Helper()
	parts := map[int]string{}
	if o.FreeBSDTestMode {
		for i, p := range d.parts {
			parts[p.slot] = uefiString(bytes.Repeat([]byte{byte(i + 1)}, 16))
		}
		return uefiString(bytes.Repeat([]byte{byte(len(d.parts) + 1)}, 16)), parts
	}
	const domain = "fixturegen/mkimg guid v2\x00"
	le64 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	fileSum := func(name string) []byte {
		var b []byte
		if name != "" {
			var err error
			if b, err = os.ReadFile(name); err != nil {
				t.Fatal(err)
			}
		}
		var digest bytes.Buffer // D: each 64 KiB block as 0, or 1 and its bytes; then le64 length
		for off := 0; off < len(b); off += 65536 {
			block := b[off:min(off+65536, len(b))]
			if bytes.Count(block, []byte{0}) == len(block) {
				digest.WriteByte(0)
			} else {
				digest.WriteByte(1)
				digest.Write(block)
			}
		}
		digest.Write(le64(uint64(len(b))))
		s := sha256.Sum256(digest.Bytes())
		return s[:]
	}
	var seed bytes.Buffer
	seed.WriteString(domain)
	seed.WriteString(o.Scheme + "\x00")
	for _, v := range []uint64{d.secsz, d.blksz, d.heads, d.track, uint64(o.Active), uint64(d.slots), d.sectors} {
		seed.Write(le64(v))
	}
	boot := sha256.Sum256(nil)
	if o.Bootcode != "" {
		b, err := os.ReadFile(o.Bootcode)
		if err != nil {
			t.Fatal(err)
		}
		boot = sha256.Sum256(append(b, make([]byte, schemes[o.Scheme].bootcode-len(b))...))
	}
	seed.Write(boot[:])
	for _, p := range d.parts {
		seed.Write(le64(uint64(p.slot - 1)))
		seed.WriteString(strings.ToLower(p.typ) + "\x00" + p.label + "\x00")
		seed.Write(le64(p.start))
		seed.Write(le64(p.contentSectors))
		seed.Write(fileSum(p.file))
	}
	s := sha256.Sum256(seed.Bytes())
	v4 := func(role string, i uint32) string {
		h := sha256.Sum256(binary.LittleEndian.AppendUint32([]byte(domain+string(s[:])+role+"\x00"), i))
		g := h[:16]
		g[6] = g[6]&0x0f | 0x40
		g[8] = g[8]&0x3f | 0x80
		x := strings.ToUpper(hex.EncodeToString(g))
		return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
	}
	for _, p := range d.parts {
		parts[p.slot] = v4("partition", uint32(p.slot-1))
	}
	return v4("disk", 0), parts
}

// uefiString writes a GUID stored on disk (its first three fields
// little-endian) as tools print it.
func uefiString(b []byte) string {
	x := strings.ToUpper(fmt.Sprintf("%08x-%04x-%04x-%x-%x", binary.LittleEndian.Uint32(b[0:4]), binary.LittleEndian.Uint16(b[4:6]), binary.LittleEndian.Uint16(b[6:8]), b[8:10], b[10:16]))
	return x
}
