package mkimg

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// ebrMatrix is the -s ebr command lines compared with freebsd-mkimg -y:
// 512- and 4096-byte sectors, 1 to 40 partitions and the scheme's
// maximum of 4096, unused slots (which the chain skips), every type the
// reference takes, odd and empty sizes, -P (which ebr ignores) and -H/-T
// geometries, with and without CHS addresses.
var ebrMatrix = []string{
	"-s ebr -p freebsd:=a",
	"-s ebr -p freebsd:=a -p fat32:=b",
	"-s ebr -p fat16b:=b -p - -p freebsd::3k -p fat32:=d",
	"-s ebr -p - -p freebsd:=c",
	"-s ebr -S 4096 -p freebsd:=a",
	"-s ebr -S 4096 -p freebsd:=a -p fat16b:=b -p fat32::12345",
	"-s ebr -P 4096 -p freebsd:=b -p fat32:=d",
	"-s ebr -H 16 -T 63 -p freebsd:=a -p fat32::1m -p fat16b:=d",
	"-s ebr -H 255 -T 63 -S 4096 -p freebsd:=b -p freebsd:=c",
	"-s ebr -H 2 -T 5 -p freebsd:=b -p - -p fat16b:=a",
	"-s ebr -H 2 -T 3 -p freebsd::4m -p fat32:=d", // past cylinder 1023
	"-s ebr" + repeatPart("freebsd:=d", 40),
	"-s EBR -p FREEBSD:=b -p FAT32:=d",
}

// ebrMaxLine is a chain of the scheme's 4096 partitions.
var ebrMaxLine = "-s ebr" + repeatPart("fat32:=d", ebrMaxPartitions)

// TestEBRFreeBSDIdentity checks that WriteFile, Write and Build give
// freebsd-mkimg -y's bytes for every -s ebr command line of the matrix
// and for a chain of 4096 partitions.
func TestEBRFreeBSDIdentity(t *testing.T) {
	t.Parallel()
	checkFreeBSDMatrix(t, append(ebrMatrix, ebrMaxLine))
}

// TestEBRReadBack checks that readEBR gives back the chain each matrix
// line wrote: the used slots in order, their types, starts and sizes in
// whole tracks, and the sector size.
func TestEBRReadBack(t *testing.T) {
	t.Parallel()
	eachLine(t, append(ebrMatrix, ebrMaxLine), func(t *testing.T, dir, line string) {
		o := parseIn(t, dir, strings.Fields(line))
		l := mustPlan(t, o)
		disk := mustBuild(t, o)
		tab, err := readEBR(bytes.NewReader(disk), int64(len(disk)))
		if err != nil {
			t.Fatal(err)
		}
		checkTableReadBack(t, "", tab, l, sameType, func(p placed) int64 { return int64(l.roundTrack(p.sectors)) })
	})
}

// TestEBRFat32LBA checks the alias current FreeBSD adds for ebr and the
// reference lacks: fat32lba is OSType 0x0c.
func TestEBRFat32LBA(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	disk := mustBuild(t, parseIn(t, dir, strings.Fields("-s ebr -p fat32lba:=b")))
	if got := disk[mbrPartitionOffset+4]; got != 0x0c {
		t.Errorf("OSType %#x, want 0x0c", got)
	}
	tab, err := readEBR(bytes.NewReader(disk), int64(len(disk)))
	if err != nil || tab.Partitions[0].Type != "fat32lba" {
		t.Errorf("read back %+v, %v; want type fat32lba", tab, err)
	}
}

// TestEBRErrors checks the command lines -s ebr refuses, as mkimg does
// (freebsd-mkimg refuses them too): boot code, labels, sectors over 4096
// bytes, 4097 slots, and types it has no OSType for; and a chain whose
// partitions end past sector 2^32, refused before anything is written
// rather than truncated as mkimg truncates it.
func TestEBRErrors(t *testing.T) {
	t.Parallel()
	checkSchemeErrors(t, inputsDir(t), []schemeErrorCase{
		{"-s ebr -b boot -p freebsd:=a", ErrBootcode, false},
		{"-s ebr -p freebsd/root:=a", ErrPartition, false},
		{"-s ebr -S 8192 -p freebsd:=a", ErrOption, false},
		{"-s ebr" + repeatPart("-", ebrMaxPartitions+1), ErrPartition, false},
		{"-s ebr -p efi:=a", ErrPartition, false},
		{"-s ebr -p ebr:=a", ErrPartition, false},
		{"-s ebr -p freebsd-ufs:=a", ErrPartition, false},
		{"-s ebr -p freebsd::2t -p freebsd::1", ErrTooLarge, true},
	})
}

// TestEBRReadErrors checks that readEBR finds no table where LBA 0 is no
// EBR, and refuses chains that loop or hold a bad record, without
// panicking. A chain that leaves the disk reads as a cut image's does
// (TestReadCutImages).
func TestEBRReadErrors(t *testing.T) {
	t.Parallel()
	checkReadRefuses(t, readEBR, inputsDir(t), "-s ebr -p freebsd:=d -p fat32:=d -p fat16b:=d", map[string]readCase{
		"zeros":        {zeroed, true},
		"no signature": {setting(func(d []byte) { d[510] = 0 }), true},
		"record 2":     {setting(func(d []byte) { d[mbrPartitionOffset+32+4] = 0x83 }), true},
		"short":        {truncated(100), true},
		"loop":         {setting(func(d []byte) { d[4*512+mbrPartitionOffset+16+4] = ebrLinkType; d[4*512+mbrPartitionOffset+16+8] = 2 }), false},
		"back to 0":    {setting(func(d []byte) { d[4*512+mbrPartitionOffset+16+4] = ebrLinkType }), false},
		"link type":    {setting(func(d []byte) { d[2*512+mbrPartitionOffset+16+4] = 0x83 }), false},
	})
}

// TestEBRInMBR nests each matrix chain in an MBR as FreeBSD does
// (-s mbr -p ebr:=chain) and checks that util-linux's fdisk -l and
// sfdisk -d and sleuthkit's mmls list every logical partition at the
// extended partition's start plus its own, with its size in whole tracks.
func TestEBRInMBR(t *testing.T) {
	t.Parallel()
	fdisk := tooltest.Need(t, "fdisk")
	sfdisk := tooltest.Need(t, "sfdisk")
	mmls := tooltest.Need(t, "mmls")
	eachLine(t, ebrMatrix, func(t *testing.T, dir, line string) {
		chain, l := lineDisk(t, dir, line)
		img, _ := lineDisk(t, dir, fmt.Sprintf("-s mbr -S %d -H %d -T %d -p ebr:=%s", l.secsz, l.heads, l.track, chain))
		base := l.track // the extended partition's start, mbrMetadata's first track
		var want, wantNoType []string
		for _, p := range l.parts {
			want = append(want, fmt.Sprintf("%d+%d %x", base+p.start, l.roundTrack(p.sectors), ebrTypes[lower7(p.Type)]))
			wantNoType = append(wantNoType, fmt.Sprintf("%d+%d", base+p.start, l.roundTrack(p.sectors)))
		}
		// logical lists a tool's logical partitions (slots 5 on) with
		// their types.
		logical := func(parts []toolPart) []string {
			var got []string
			for _, p := range parts {
				if p.slot >= 5 {
					got = append(got, fmt.Sprintf("%d+%d %s", p.start, p.sectors, strings.ToLower(p.typ)))
				}
			}
			return got
		}
		compareLists(t, "fdisk -l", logical(fdiskList(t, fdisk, img, l.secsz)), want)
		if l.secsz == 512 { // sfdisk reads an image file as 512-byte sectors
			compareLists(t, "sfdisk -d", logical(sfdiskDump(t, sfdisk, img)), want)
		}
		var got []string
		for _, p := range mmlsList(t, mmls, "dos", img, l.secsz) {
			got = append(got, fmt.Sprintf("%d+%d", p.start, p.sectors))
		}
		compareLists(t, "mmls", got, wantNoType)
	})
}

// compareLists fails the test when a tool's list of partitions differs
// from the one written.
func compareLists(t *testing.T, tool string, got, want []string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s lists logical partitions %q, want %q", tool, got, want)
	}
}

// FuzzReadEBR checks that readEBR never panics, however the chain's
// links and records are set, and that any table it returns keeps its
// partitions inside the disk.
func FuzzReadEBR(f *testing.F) {
	f.Fuzz(func(t *testing.T, disk []byte) {
		checkFuzzTable(t, readEBR, disk)
	})
}
