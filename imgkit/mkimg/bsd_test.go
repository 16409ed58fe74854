package mkimg

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe/fieldlist"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// repeatPart returns n -p arguments of spec.
func repeatPart(spec string, n int) string {
	return strings.Repeat(" -p "+spec, n)
}

// bsdMatrix is the -s bsd command lines compared with freebsd-mkimg -y:
// 1 to 19 partitions, unused slots (before and after the raw 'c' slot),
// every type, odd and empty sizes, -P, -H/-T and boot code of 300 and
// 8192 bytes (with 8 or more entries, where the label reaches boot code
// mkimg does not clear). The scheme takes only 512-byte sectors.
var bsdMatrix = []string{
	"-s bsd -p freebsd-ufs:=a",
	"-s bsd -p freebsd-ufs:=a -p freebsd-swap::128k",
	"-s bsd -p freebsd-ufs:=a -p freebsd-swap:=b -p freebsd-zfs:=c",
	"-s bsd -p - -p freebsd-swap:=b -p - -p freebsd-vinum:=d -p freebsd-nandfs::777",
	"-s bsd -p freebsd-ufs:=b -p - -p - -p - -p - -p - -p - -p freebsd-zfs:=d",
	"-s bsd -P 4096 -p freebsd-ufs:=b -p freebsd-nandfs:=d",
	"-s bsd -P 65536 -p freebsd-ufs:=d -p freebsd-swap::1",
	"-s bsd -H 16 -T 63 -p freebsd-ufs:=a -p freebsd-swap::3k",
	"-s bsd -H 255 -T 63 -P 4096 -b bsdboot -p freebsd-ufs:=a",
	"-s bsd -H 2 -T 3 -p freebsd-ufs:=b",
	"-s bsd -b bsdboot -p freebsd-ufs:=b",
	"-s bsd -b boot -p freebsd-ufs:=b -p freebsd-swap:=d",
	"-s bsd -b bsdboot" + repeatPart("freebsd-ufs:=d", 7),
	"-s bsd -b bsdboot" + repeatPart("freebsd-ufs:=d", 8),
	"-s bsd -b bsdboot -p freebsd-ufs:=d" + repeatPart("-", 17) + " -p freebsd-swap:=b",
	"-s bsd" + repeatPart("freebsd-zfs:=d", 19),
	"-s bsd -b bsdboot -H 4 -T 5" + repeatPart("freebsd-ufs:=b", 19),
	"-s BSD -p FREEBSD-UFS:=d",
}

// TestBSDFreeBSDIdentity checks that WriteFile, Write and Build give
// freebsd-mkimg -y's bytes for every -s bsd command line of the matrix.
func TestBSDFreeBSDIdentity(t *testing.T) {
	t.Parallel()
	checkFreeBSDMatrix(t, bsdMatrix)
}

// TestBSDReadBack checks that readBSD gives back the partitions, geometry
// and raw partition each matrix line wrote.
func TestBSDReadBack(t *testing.T) {
	t.Parallel()
	eachLine(t, bsdMatrix, func(t *testing.T, dir, line string) {
		o := parseIn(t, dir, strings.Fields(line))
		disk := mustBuild(t, o)
		l, err := plan(o)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := readBSD(bytes.NewReader(disk), int64(len(disk)))
		if bsdBootInEntries(l) {
			// The entries holding boot code name sectors past the
			// disk's end, which ReadTable lists with a problem each,
			// as FreeBSD and blkid list them.
			tab, err := ReadTable(bytes.NewReader(disk), int64(len(disk)))
			if err != nil || !strings.Contains(strings.Join(tab.Problems, "; "), "past the image's end") {
				t.Fatalf("ReadTable of a label with boot code in its entries: %v, %v", tab, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkTableReadBack(t, "", tab, l, sameType, placedSectors)
		fields := fieldMap(tab)
		for name, want := range map[string]uint64{
			"d_secsize": 512, "d_nsectors": l.track, "d_ntracks": l.heads, "d_secperunit": l.sectors,
			"d_ncylinders": l.sectors / (l.track * l.heads), "d_npartitions": uint64(max(l.slots+1, bsdPartsMin)),
			"d_bbsize": bsdBootblockSize, "d_rpm": bsdRPM,
		} {
			if got := fields["disklabel "+name]; got != strconv.FormatUint(want, 10) {
				t.Errorf("%s = %q, want %d", name, got, want)
			}
		}
		if got := fields["d_partitions[2] p_size"]; got != strconv.FormatUint(l.sectors, 10) {
			t.Errorf("raw partition p_size = %q, want %d", got, l.sectors)
		}
	})
}

// bsdBootInEntries reports whether l's label has entries that mkimg
// leaves holding boot code: an unused slot past the eighth entry, with
// boot code of more than one sector.
func bsdBootInEntries(l *layout) bool {
	if l.bootcode == nil {
		return false
	}
	past := l.bootcode[l.secsz+bsdLabelStructSize : l.secsz+uint64(len(bsdLabel{}))]
	if bytes.Equal(past, make([]byte, len(past))) {
		return false
	}
	used := map[int]bool{bsdPartRaw: true}
	for _, p := range l.parts {
		used[bsdSlot(p.index)] = true
	}
	for e := bsdPartsMin; e < max(l.slots+1, bsdPartsMin); e++ {
		if !used[e] {
			return true
		}
	}
	return false
}

// TestBSDBootInEntries checks mkimg's layout of a label over 8192 bytes
// of boot code: the label's first sizeof(struct disklabel) bytes are
// cleared, the entries past the eighth that no partition fills keep the
// boot code, and d_checksum covers them.
func TestBSDBootInEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	o := parseIn(t, dir, strings.Fields("-s bsd -b bsdboot -p freebsd-ufs:=d"+repeatPart("-", 17)+" -p freebsd-swap:=b"))
	disk := mustBuild(t, o)
	boot, err := os.ReadFile(filepath.Join(dir, "bsdboot"))
	if err != nil {
		t.Fatal(err)
	}
	label := disk[512:][:len(bsdLabel{})]
	if !bytes.Equal(disk[:512], boot[:512]) || !bytes.Equal(disk[512+len(label):bsdBootblockSize], boot[512+len(label):]) {
		t.Error("the boot area outside the label is not the boot code")
	}
	if !bytes.Equal(label[bsdLabelStructSize:bsdHeaderSize+19*bsdPartitionSize], boot[512+bsdLabelStructSize:512+bsdHeaderSize+19*bsdPartitionSize]) {
		t.Error("entries 8 to 18 do not hold the boot code")
	}
	if sum := bsdChecksum(label[:bsdHeaderSize+20*bsdPartitionSize]); sum != uint16(fieldlist.LEUint(label[136:138])) {
		t.Errorf("d_checksum %#x, want %#x over 20 entries", label[136:138], sum)
	}
	if !bsdBootInEntries(mustPlan(t, o)) {
		t.Error("bsdBootInEntries misses the case")
	}
}

// mustPlan plans o or fails the test.
func mustPlan(t *testing.T, o *Options) *layout {
	t.Helper()
	l, err := plan(o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// fieldMap returns a table's Fields by "Path Name".
func fieldMap(tab *Table) map[string]string {
	m := map[string]string{}
	for _, f := range tab.Fields {
		m[f.Path+" "+f.Name] = f.Value
	}
	return m
}

// TestBSDReadErrors checks that a disk without a label gives ErrNoTable
// and that a corrupt label (bad checksum, too many entries, a partition
// past the disk) is refused with an error that is not ErrNoTable.
func TestBSDReadErrors(t *testing.T) {
	t.Parallel()
	checkReadRefuses(t, readBSD, inputsDir(t), "-s bsd -p freebsd-ufs:=a -p freebsd-swap:=b", map[string]readCase{
		"zero disk":   {func([]byte) []byte { return make([]byte, 16384) }, true},
		"short disk":  {truncated(700), true},
		"checksum":    {setting(func(d []byte) { d[512+136] ^= 1 }), false},
		"npartitions": {setting(func(d []byte) { d[512+138] = 21 }), false},
		"past end":    {setting(func(d []byte) { d[512+148+3] = 0x7f }), false},
	})
}

// TestBSDErrors checks the command lines -s bsd refuses, as mkimg does:
// 4096-byte sectors, labels, 20 slots, types it has no p_fstype for, and
// boot code over 8192 bytes, each of which freebsd-mkimg refuses too;
// and disks of 2^32 sectors or more, which mkimg would truncate to the
// label's 32-bit fields.
func TestBSDErrors(t *testing.T) {
	t.Parallel()
	dir := inputsDir(t)
	if err := os.WriteFile(filepath.Join(dir, "big"), make([]byte, bsdBootblockSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	checkSchemeErrors(t, dir, []schemeErrorCase{
		{"-s bsd -S 4096 -p freebsd-ufs:=a", ErrOption, false},
		{"-s bsd -p freebsd-ufs/root:=a", ErrPartition, false},
		{"-s bsd" + repeatPart("freebsd-ufs:=d", 20), ErrPartition, false},
		{"-s bsd -p efi:=a", ErrPartition, false},
		{"-s bsd -p freebsd:=a", ErrPartition, false},
		{"-s bsd -b big -p freebsd-ufs:=a", ErrBootcode, false},
		{"-s bsd -p freebsd-ufs::2t", ErrTooLarge, true},
	})
}

// TestBSDMmls checks that sleuthkit's mmls -t bsd lists each matrix
// disk's partitions where they were written, in 512-byte sectors.
func TestBSDMmls(t *testing.T) {
	t.Parallel()
	mmls := tooltest.Need(t, "mmls")
	eachLine(t, bsdMatrix, func(t *testing.T, dir, line string) {
		img, l := lineDisk(t, dir, line)
		rows := mmlsList(t, mmls, "bsd", img, 512)
		listed := map[string]bool{}
		for _, r := range rows {
			listed[fmt.Sprintf("%d+%d", r.start, r.sectors)] = true
		}
		for _, p := range l.parts {
			if key := fmt.Sprintf("%d+%d", p.start, p.sectors); !listed[key] {
				t.Errorf("mmls does not list partition %d (start %d, %d sectors): %+v", p.index+1, p.start, p.sectors, rows)
			}
		}
	})
}

// fdiskBSDMax is the most disklabel entries util-linux reads; it warns of
// a label with more (mkimg writes up to 20) and lists the first 16.
const fdiskBSDMax = 16

// TestBSDFdisk checks that util-linux's fdisk -l and sfdisk -d find a BSD
// disklabel on each matrix disk and list every partition in its slice
// ('a', 'b', 'd', ...) with its start and size, sfdisk with its p_fstype
// (in hex), and the raw
// partition 'c' over the whole disk.
func TestBSDFdisk(t *testing.T) {
	t.Parallel()
	fdisk := tooltest.Need(t, "fdisk")
	sfdisk := tooltest.Need(t, "sfdisk")
	eachLine(t, bsdMatrix, func(t *testing.T, dir, line string) {
		img, l := lineDisk(t, dir, line)
		out, err := exec.Command(fdisk, "-l", img).CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("Disklabel type: bsd")) {
			t.Fatalf("fdisk -l: %v\n%s", err, out)
		}
		slices := map[string]string{}
		for _, p := range fdiskParts(t, string(out), img) {
			slices[string(rune('a'+p.slot-1))] = fmt.Sprintf("%d+%d", p.start, p.sectors)
		}
		d, err := exec.Command(sfdisk, "-d", img).CombinedOutput()
		if err != nil || !bytes.Contains(d, []byte("label: bsd")) {
			t.Fatalf("sfdisk -d: %v\n%s", err, d)
		}
		dumped := map[string]string{}
		for _, p := range sfdiskParts(string(d)) {
			dumped[strconv.Itoa(p.slot)] = fmt.Sprintf("%d+%d type %s", p.start, p.sectors, strings.ToLower(p.typ))
		}
		want := map[int]string{bsdPartRaw: fmt.Sprintf("0+%d type 0", l.sectors)}
		for _, p := range l.parts {
			want[bsdSlot(p.index)] = fmt.Sprintf("%d+%d type %x", p.start, p.sectors, bsdTypes[lower7(p.Type)])
		}
		entries := max(l.slots+1, bsdPartsMin)
		if entries > fdiskBSDMax && !bytes.Contains(out, []byte(fmt.Sprintf("Too many partitions (%d, maximum is %d)", entries, fdiskBSDMax))) {
			t.Errorf("fdisk does not warn of %d entries:\n%s", entries, out)
		}
		for e, w := range want {
			if e >= fdiskBSDMax {
				continue
			}
			if got := slices[string(rune('a'+e))]; !strings.HasPrefix(w, got+" ") {
				t.Errorf("fdisk lists slice %c as %q, want %q:\n%s", 'a'+e, got, w, out)
			}
			if got := dumped[strconv.Itoa(e+1)]; got != w {
				t.Errorf("sfdisk dumps partition %d as %q, want %q:\n%s", e+1, got, w, d)
			}
		}
	})
}

// FuzzReadBSD checks that readBSD never panics and that any table it
// returns has partitions a reader can hold. Besides testdata/fuzz, it is
// seeded with a label whose offsets count from the raw partition's
// p_offset (an MBR slice's label with absolute offsets, as in
// util-linux's bsd.img) and with a label cut short.
func FuzzReadBSD(f *testing.F) {
	disk, err := Build(&Options{Scheme: "bsd", Partitions: []Partition{{Type: "freebsd-ufs", Size: 4096}, {Type: "freebsd-swap", Size: 4096}}})
	if err != nil {
		f.Fatal(err)
	}
	abs := bytes.Clone(disk)
	d := (*bsdLabel)(abs[512:][:len(bsdLabel{})])
	for _, i := range []int{0, 1, bsdPartRaw} {
		e := d.partition(i)
		binary.LittleEndian.PutUint32(e.pOffset(), binary.LittleEndian.Uint32(e.pOffset())+7680)
	}
	binary.LittleEndian.PutUint16(d.dChecksum(), bsdChecksum(d[:bsdHeaderSize+bsdPartsMin*bsdPartitionSize]))
	f.Add(abs)
	f.Add(disk[:len(disk)-2048])
	f.Fuzz(func(t *testing.T, disk []byte) {
		checkFuzzTable(t, readBSD, disk)
	})
}
