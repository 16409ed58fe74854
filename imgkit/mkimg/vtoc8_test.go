package mkimg

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// vtoc8Matrix is the -s vtoc8 command lines compared with freebsd-mkimg
// -y: -H/-T geometries (partitions and the disk are whole cylinders), -P
// (which a VTOC8 ignores), unused slots, 1 to 7 partitions (the slots
// around the whole-disk slot 2), odd sizes, file and size partitions,
// every type alias, and more than 65535 cylinders, whose count pcyl and
// ncyl keep only the low 16 bits of.
var vtoc8Matrix = []string{
	"-s vtoc8 -p freebsd-ufs:=a",
	"-s vtoc8 -p freebsd-ufs:=a -p freebsd-swap::1m",
	"-s vtoc8 -p freebsd-ufs:=b -p freebsd-swap:=d -p freebsd-zfs:=c",
	"-s vtoc8 -p freebsd-ufs:=a -p freebsd-swap:=b -p freebsd-zfs:=c -p freebsd-vinum:=d -p freebsd-nandfs::3k -p - -p freebsd-ufs::777",
	"-s vtoc8 -H 16 -T 63 -p freebsd-ufs:=a -p freebsd-swap::3k",
	"-s vtoc8 -H 255 -T 63 -p freebsd-ufs:=d",
	"-s vtoc8 -H 2 -T 7 -p - -p freebsd-ufs:=b -p - -p freebsd-swap:=a",
	"-s VTOC8 -P 4096 -p FreeBSD-UFS:=a -p -",
	"-s vtoc8 -S 512 -H 3 -T 5 -p freebsd-vinum::12345 -p freebsd-nandfs:=b",
	"-s vtoc8 -p freebsd-ufs::40m",
}

// TestVTOC8FreeBSDIdentity checks that WriteFile, Write and Build give
// freebsd-mkimg -y's bytes for every command line of vtoc8Matrix.
func TestVTOC8FreeBSDIdentity(t *testing.T) {
	t.Parallel()
	checkFreeBSDMatrix(t, vtoc8Matrix)
}

// TestVTOC8Read checks that the VTOC8 reader gives back each used slot's
// type, start and size for every command line of vtoc8Matrix; a
// freebsd-zfs partition reads back as freebsd-nandfs, whose tag mkimg
// gives it.
func TestVTOC8Read(t *testing.T) {
	t.Parallel()
	checkReadBack(t, vtoc8Matrix, func(alias string) string {
		if alias == "freebsd-zfs" {
			return "freebsd-nandfs"
		}
		return alias
	}, func(l *layout) map[[2]string]string {
		ncyl := uint16(l.sectors / (l.heads * l.track))
		return map[[2]string]string{
			{"disk label", "vtoc_sanity"}: "1611521774 (0x600ddeee)",
			{"disk label", "ncyl"}:        fmt.Sprintf("%d (%#x)", ncyl, ncyl),
			{"disk label", "pcyl"}:        fmt.Sprintf("%d (%#x)", ncyl, ncyl),
			{"disk label", "nhead"}:       fmt.Sprintf("%d (%#x)", l.heads, l.heads),
			{"disk label", "nsect"}:       fmt.Sprintf("%d (%#x)", l.track, l.track),
			{"disk label", "magic"}:       "55998 (0xdabe)",
			{"disk label", "asciilabel"}:  fmt.Sprintf("%q", fmt.Sprintf("FreeBSD%dM", l.sectors*512>>20)),
			{"partition 2", "nblk"}:       fmt.Sprintf("%d (%#x)", l.sectors, l.sectors),
		}
	})
}

// TestVTOC8ReadNoTable checks that disks without a label, or with one
// whose magic or cksum is wrong, give ErrNoTable.
func TestVTOC8ReadNoTable(t *testing.T) {
	t.Parallel()
	checkReadRefuses(t, readVTOC8, inputsDir(t), "-s vtoc8 -p freebsd-ufs:=b", map[string]readCase{
		"zeros":     {zeroed, true},
		"short":     {truncated(511), true},
		"bad magic": {setting(func(b []byte) { b[508] = 0 }), true},
		"bad cksum": {setting(func(b []byte) { b[300] ^= 1 }), true},
	})
}

// vtoc8Slot returns the Sun map slot mkimg puts -p slot index (0-based)
// in: the same, or one more from the whole-disk slot 2 on.
func vtoc8Slot(index int) int {
	if index >= vtocRawPart {
		return index + 1
	}
	return index
}

// TestVTOC8Mmls checks that sleuthkit's mmls -t sun lists, for every
// command line of vtoc8Matrix, the whole disk in slot 2 and each
// partition in its slot with its start, length and tag.
func TestVTOC8Mmls(t *testing.T) {
	t.Parallel()
	mmls := tooltest.Need(t, "mmls")
	eachLine(t, vtoc8Matrix, func(t *testing.T, dir, line string) {
		img, l := lineDisk(t, dir, line)
		rows := map[int]string{}
		for _, r := range mmlsList(t, mmls, "sun", img, vtocSectorSize) {
			rows[r.slot-1] = fmt.Sprintf("%d %d %s", r.start, r.sectors, r.label)
		}
		if len(rows) != len(l.parts)+1 {
			t.Errorf("mmls lists %d partitions, want %d", len(rows), len(l.parts)+1)
		}
		if want := "0 " + strconv.FormatUint(l.sectors, 10) + " Unassigned (0x00)"; rows[vtocRawPart] != want {
			t.Errorf("mmls slot 2 = %q, want %q", rows[vtocRawPart], want)
		}
		for _, p := range l.parts {
			tag := vtocTypes[strings.ToLower(p.Type)]
			want := fmt.Sprintf("%d %d Unknown Type (0x%04x)", p.start, p.sectors, tag)
			if got := rows[vtoc8Slot(p.index)]; got != want {
				t.Errorf("mmls slot %d = %q, want %q", vtoc8Slot(p.index), got, want)
			}
		}
	})
}

// TestVTOC8Fdisk checks that util-linux fdisk -l reads every label of
// vtoc8Matrix as a Sun label and lists each partition, one-based by Sun
// slot, with its start, length and tag.
func TestVTOC8Fdisk(t *testing.T) {
	t.Parallel()
	fdisk := tooltest.Need(t, "fdisk")
	eachLine(t, vtoc8Matrix, func(t *testing.T, dir, line string) {
		img, l := lineDisk(t, dir, line)
		out := runTool(t, fdisk, "-l", img)
		if !strings.Contains(out, "Disklabel type: sun") {
			t.Fatalf("fdisk -l reads no Sun label:\n%s", out)
		}
		rows := map[int]string{}
		for _, p := range fdiskParts(t, out, img) {
			rows[p.slot] = fmt.Sprintf("%d %d %s", p.start, p.sectors, strings.ToLower(p.typ))
		}
		if want := "0 " + strconv.FormatUint(l.sectors, 10) + " 0"; rows[vtocRawPart+1] != want {
			t.Errorf("fdisk partition 3 = %q, want %q", rows[vtocRawPart+1], want)
		}
		for _, p := range l.parts {
			n := vtoc8Slot(p.index) + 1
			want := strconv.FormatUint(p.start, 10) + " " + strconv.FormatUint(p.sectors, 10) + " " + strconv.FormatUint(uint64(vtocTypes[strings.ToLower(p.Type)]), 16)
			if got := rows[n]; got != want {
				t.Errorf("fdisk partition %d = %q, want %q", n, got, want)
			}
		}
		if len(rows) != len(l.parts)+1 {
			t.Errorf("fdisk lists %d partitions, want %d:\n%s", len(rows), len(l.parts)+1, out)
		}
	})
}

// TestVTOC8Errors checks what -s vtoc8 refuses, with the sentinel a
// caller tells it by, and that freebsd-mkimg refuses the same command
// lines.
func TestVTOC8Errors(t *testing.T) {
	t.Parallel()
	checkSchemeErrors(t, inputsDir(t), []schemeErrorCase{
		{"-s vtoc8 -p freebsd:=a", ErrPartition, false},
		{"-s vtoc8 -p freebsd-boot:=a", ErrPartition, false},
		{"-s vtoc8 -p freebsd-ufs/root:=a", ErrPartition, false},
		{"-s vtoc8 -S 4096 -p freebsd-ufs:=a", ErrOption, false},
		{"-s vtoc8 -p freebsd-ufs:=a -b boot", ErrBootcode, false},
		{"-s vtoc8" + strings.Repeat(" -p -", vtocParts-1) + " -p freebsd-ufs:=a", ErrPartition, false},
		{"-s vtoc8 -p freebsd-ufs::3t", ErrTooLarge, true},
	})
}

// FuzzReadVTOC8 checks that the VTOC8 reader never panics, and that a
// table it returns has header fields and partitions of non-negative
// places. Its seed corpus (testdata/fuzz/FuzzReadVTOC8) holds mkimg's
// labels for two geometries.
func FuzzReadVTOC8(f *testing.F) {
	f.Fuzz(func(t *testing.T, disk []byte) {
		checkFuzzTable(t, readVTOC8, disk)
	})
}
