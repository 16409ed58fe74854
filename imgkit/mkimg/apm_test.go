package mkimg

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// apmMatrix is the -s apm command lines compared with freebsd-mkimg -y:
// 512- and 4096-byte sectors, -P, -H/-T (which an APM ignores), labels up
// to 31 bytes, unused slots, 1 to 4096 partitions, odd sizes, file and
// size partitions, and every type alias.
var apmMatrix = []string{
	"-s apm -p freebsd-ufs:=a",
	"-s apm -p freebsd/FreeBSD:=a -p freebsd-swap::1m",
	"-s apm -p freebsd-boot:=d -p - -p freebsd-zfs/zroot:=b -p freebsd-vinum::12345 -p freebsd-nandfs:=c",
	"-s apm -p freebsd-ufs:=b -p -",
	"-s apm -S 4096 -p freebsd-ufs:=a -p freebsd-swap:=b",
	"-s apm -S 4096 -P 65536 -p freebsd-ufs/abcdefghijklmnopqrstuvwxyz01234:=b -p - -p freebsd:=d",
	"-s apm -P 4096 -p freebsd-ufs:=a -p freebsd-swap::3k",
	"-s APM -H 16 -T 63 -p FreeBSD-UFS/Root:=b",
	"-s apm" + strings.Repeat(" -p freebsd-swap::1k", apmMaxPartitions-1) + " -p freebsd-ufs/last:=b",
}

// TestAPMFreeBSDIdentity checks that WriteFile, Write and Build give
// freebsd-mkimg -y's bytes for every command line of apmMatrix.
func TestAPMFreeBSDIdentity(t *testing.T) {
	t.Parallel()
	checkFreeBSDMatrix(t, apmMatrix)
}

// TestAPMRead checks that the APM reader gives back, for every command
// line of apmMatrix, each used slot's type, label, start and size as
// planned, and nothing for unused slots.
func TestAPMRead(t *testing.T) {
	t.Parallel()
	checkReadBack(t, apmMatrix, sameType, func(l *layout) map[[2]string]string {
		return map[[2]string]string{
			{"driver descriptor record", "sbSig"}:      "17746 (0x4552)",
			{"driver descriptor record", "sbBlkSize"}:  fmt.Sprintf("%d (%#x)", l.secsz, l.secsz),
			{"driver descriptor record", "sbBlkCount"}: fmt.Sprintf("%d (%#x)", l.sectors, l.sectors),
			{"partition map entry 1", "pmSig"}:         "20557 (0x504d)",
			{"partition map entry 1", "pmMapBlkCnt"}:   fmt.Sprintf("%d (%#x)", l.slots+1, l.slots+1),
			{"partition map entry 1", "pmPyPartStart"}: "1 (0x1)",
			{"partition map entry 1", "pmPartBlkCnt"}:  fmt.Sprintf("%d (%#x)", l.slots+1, l.slots+1),
			{"partition map entry 1", "pmPartName"}:    `"Apple"`,
			{"partition map entry 1", "pmParType"}:     `"Apple_partition_map"`,
		}
	})
}

// checkReadBack builds each command line, reads the disk back with the
// scheme's read hook and compares its partitions with the plan; readType
// gives the alias the reader reports for one written, and header the
// values some of the table's Fields must have. Every field must lie in
// the disk, each (Path, Name) once.
func checkReadBack(t *testing.T, lines []string, readType func(string) string, header func(*layout) map[[2]string]string) {
	t.Helper()
	dir := t.TempDir()
	inputs(t, dir)
	for _, line := range lines {
		o := parseIn(t, dir, strings.Fields(line))
		l, err := plan(o)
		if err != nil {
			t.Fatalf("%s: %v", shortName(line), err)
		}
		disk := mustBuild(t, o)
		tab, err := l.s.read(bytes.NewReader(disk), int64(len(disk)))
		if err != nil {
			t.Fatalf("%s: %v", shortName(line), err)
		}
		checkTableReadBack(t, shortName(line)+": ", tab, l, readType, placedSectors)
		all := tab.Fields
		for _, p := range tab.Partitions {
			all = append(all, p.Fields...)
		}
		fields := tooltest.IndexFields(t, all, int64(len(disk)))
		for k, want := range header(l) {
			if got := fields[k].Value; got != want {
				t.Errorf("%s: %s %s = %q, want %q", shortName(line), k[0], k[1], got, want)
			}
		}
	}
}

// TestAPMReadNoTable checks that disks without a map, or with one whose
// counts do not fit the disk, give ErrNoTable.
func TestAPMReadNoTable(t *testing.T) {
	t.Parallel()
	checkReadRefuses(t, readAPM, inputsDir(t), "-s apm -p freebsd-ufs:=b", map[string]readCase{
		"zeros":          {zeroed, true},
		"short":          {truncated(700), true},
		"no entry sig":   {setting(func(b []byte) { b[512] = 0 }), true},
		"map too long":   {setting(func(b []byte) { b[512+4] = 0x7f }), true},
		"map count zero": {setting(func(b []byte) { clear(b[512+4 : 512+8]) }), true},
	})
}

// TestAPMMmls checks that sleuthkit's mmls -t mac lists each partition of
// the command lines of apmMatrix with its start, length and pmParType, in
// sectors of the line's size, in map order (mmls's slot numbers wrap
// past 127, so the order is what is compared). Lines with unused slots are left out: mkimg
// leaves their map blocks zero inside pmMapBlkCnt, and mmls stops at the
// first block without a pmSig (TestAPMMmlsUnusedSlot).
func TestAPMMmls(t *testing.T) {
	t.Parallel()
	mmls := tooltest.Need(t, "mmls")
	var lines []string
	for _, line := range apmMatrix {
		if !strings.Contains(line, " - ") && !strings.HasSuffix(line, " -") {
			lines = append(lines, line)
		}
	}
	eachLine(t, lines, func(t *testing.T, dir, line string) {
		img, l := lineDisk(t, dir, line)
		rows := mmlsList(t, mmls, "mac", img, l.secsz)
		want := []string{"1 " + strconv.Itoa(l.slots+1) + " " + apmMapType}
		for _, p := range l.parts {
			want = append(want, strconv.FormatUint(p.start, 10)+" "+strconv.FormatUint(p.sectors, 10)+" "+apmTypes[strings.ToLower(p.Type)])
		}
		if len(rows) != len(want) {
			t.Fatalf("mmls lists %d partitions, want %d", len(rows), len(want))
		}
		for i, r := range rows {
			if got := fmt.Sprintf("%d %d %s", r.start, r.sectors, r.label); got != want[i] {
				t.Errorf("mmls partition %d (slot %d) = %q, want %q", i, r.slot-1, got, want[i])
			}
		}
	})
}

// TestAPMMmlsUnusedSlot records that mmls -t mac rejects mkimg's map with
// an unused slot: the slot's block inside pmMapBlkCnt has no pmSig. When
// a sleuthkit accepts it, this test fails, to be turned into a listing
// check.
func TestAPMMmlsUnusedSlot(t *testing.T) {
	t.Parallel()
	mmls := tooltest.Need(t, "mmls")
	dir := t.TempDir()
	inputs(t, dir)
	img := filepath.Join(t.TempDir(), "disk.img")
	if err := WriteFile(img, parseIn(t, dir, strings.Fields("-s apm -p freebsd-ufs:=a -p - -p freebsd-swap:=b"))); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(mmls, "-t", "mac", img).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Invalid magic value") {
		t.Errorf("mmls -t mac read a map with a zero block: %v\n%s", err, out)
	}
}

// TestAPMErrors checks what -s apm refuses, with the sentinel a caller
// tells it by, and that freebsd-mkimg refuses the same command lines.
func TestAPMErrors(t *testing.T) {
	t.Parallel()
	checkSchemeErrors(t, inputsDir(t), []schemeErrorCase{
		{"-s apm -p efi:=a", ErrPartition, false},
		{"-s apm -p freebsd-ufs/abcdefghijklmnopqrstuvwxyz012345:=a", ErrPartition, false},
		{"-s apm -p freebsd-ufs:=a -S 8192", ErrOption, false},
		{"-s apm -p freebsd-ufs:=a -b boot", ErrBootcode, false},
		{"-s apm" + strings.Repeat(" -p -", apmMaxPartitions) + " -p freebsd-ufs:=a", ErrPartition, false},
		{"-s apm -p freebsd-ufs::3t", ErrTooLarge, true},
	})
}

// FuzzReadAPM checks that the APM reader never panics, and that a table
// it returns has header fields and partitions of non-negative places.
// Its seed corpus (testdata/fuzz/FuzzReadAPM) holds mkimg's maps with
// 512- and 4096-byte blocks, trimmed to the map.
func FuzzReadAPM(f *testing.F) {
	f.Fuzz(func(t *testing.T, disk []byte) {
		checkFuzzTable(t, readAPM, disk)
	})
}
