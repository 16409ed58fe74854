package mkimg

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// explicitLine is the GPT the explicit-GUID tests build: a file, an
// unused slot, an empty partition of a size and another file.
const explicitLine = "-s gpt -p efi:=a -p - -p freebsd-ufs::64k -p freebsd-swap:=b"

// The explicit GUIDs of explicitLine's disk and of its slots 1, 3 and 4.
const (
	explicitDisk = "01234567-89ab-cdef-0123-456789abcdef"
	explicitP1   = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
	explicitP3   = "C12A7328-F81F-11D2-BA4B-00A0C93EC93B"
	explicitP4   = "00000000-0000-0000-0000-000000000001"
)

// TestParseGUID checks that ParseGUID reads RFC 4122 text in either case
// and String writes it back in lower case, and that malformed text is
// refused.
func TestParseGUID(t *testing.T) {
	t.Parallel()
	g, err := ParseGUID(explicitP3)
	if err != nil {
		t.Fatal(err)
	}
	if want := (GUID{0xc1, 0x2a, 0x73, 0x28, 0xf8, 0x1f, 0x11, 0xd2, 0xba, 0x4b, 0x00, 0xa0, 0xc9, 0x3e, 0xc9, 0x3b}); g != want {
		t.Errorf("ParseGUID(%q) = %x, want %x", explicitP3, g, want)
	}
	if s := g.String(); s != strings.ToLower(explicitP3) {
		t.Errorf("String() = %q, want %q", s, strings.ToLower(explicitP3))
	}
	if g != gptTypes["efi"] {
		t.Error("the efi type GUID parsed differs from the type table's")
	}
	for _, bad := range []string{"", "c12a7328f81f11d2ba4b00a0c93ec93b", "{c12a7328-f81f-11d2-ba4b-00a0c93ec93b}",
		"c12a7328-f81f-11d2-ba4b_00a0c93ec93b", "g12a7328-f81f-11d2-ba4b-00a0c93ec93b", "c12a7328-f81f-11d2-ba4b-00a0c93ec93"} {
		if _, err := ParseGUID(bad); err == nil {
			t.Errorf("ParseGUID(%q) succeeds", bad)
		}
	}
}

// explicitOptions returns explicitLine's options with the extension's
// options args, parsed, its files in dir.
func explicitOptions(t *testing.T, dir string, args ...string) *Options {
	t.Helper()
	return parseIn(t, dir, append(strings.Fields(explicitLine), args...))
}

// TestExplicitGUIDsChangeOnlyGUIDs checks that a disk with explicit GUIDs
// is the derived disk with only the GUID fields and the CRCs over them
// changed, that the GUIDs given are the ones stored, and that a GUID not
// given keeps its derived value.
func TestExplicitGUIDsChangeOnlyGUIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	derived := mustBuild(t, explicitOptions(t, dir))
	all := mustBuild(t, explicitOptions(t, dir, "--disk-guid", explicitDisk,
		"--partition-guid", "1="+explicitP1, "--partition-guid=3="+explicitP3, "--partition-guid", "4="+explicitP4))
	if len(all) != len(derived) {
		t.Fatalf("explicit GUIDs change the disk's size from %d to %d", len(derived), len(all))
	}
	sectors := uint64(len(all)) / 512
	table := sectors - gptTableSectors(512, 4) - 1
	// The fields allowed to differ: both headers' DiskGUID, HeaderCRC32 and
	// PartitionEntryArrayCRC32, and slots 1, 3 and 4's UniquePartitionGUID
	// in both entry arrays.
	allowed := map[int]bool{}
	mark := func(off, n uint64) {
		for i := range n {
			allowed[int(off+i)] = true
		}
	}
	for _, lba := range []uint64{1, sectors - 1} {
		mark(lba*512+16, 4) // HeaderCRC32
		mark(lba*512+56, 16)
		mark(lba*512+88, 4) // PartitionEntryArrayCRC32
	}
	for _, arr := range []uint64{2, table} {
		for _, slot := range []uint64{0, 2, 3} {
			mark(arr*512+slot*gptEntrySize+16, 16)
		}
	}
	changed := 0
	for i := range all {
		if all[i] != derived[i] {
			changed++
			if !allowed[i] {
				t.Fatalf("byte %#x (sector %d) differs, outside the GUID and CRC fields", i, i/512)
			}
		}
	}
	if changed == 0 {
		t.Fatal("explicit GUIDs give the derived disk")
	}
	want := [][16]byte{}
	for _, s := range []string{explicitDisk, explicitP1, "", explicitP3, explicitP4} {
		var raw [16]byte
		if s != "" {
			mustGUID(s).encode(raw[:])
		}
		want = append(want, raw)
	}
	got := gptGUIDs(t, all, 4)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("GUID %d on disk is %x, want %x", i, got[i], want[i])
		}
	}
	partial := gptGUIDs(t, mustBuild(t, explicitOptions(t, dir, "--partition-guid", "3="+explicitP3)), 4)
	base := gptGUIDs(t, derived, 4)
	if partial[0] != base[0] || partial[1] != base[1] || partial[4] != base[4] || partial[3] != want[3] {
		t.Errorf("with only slot 3's GUID given the GUIDs are %x, want the derived %x but for slot 3's %x", partial, base, want[3])
	}
}

// TestExplicitGUIDsSgdisk checks that sgdisk shows the GUIDs given: the
// disk identifier and each partition's unique GUID, and that the disk
// still has no problems.
func TestExplicitGUIDsSgdisk(t *testing.T) {
	t.Parallel()
	sgdisk := tooltest.Need(t, "sgdisk")
	dir := t.TempDir()
	inputs(t, dir)
	img := filepath.Join(t.TempDir(), "disk.img")
	o := explicitOptions(t, dir, "--disk-guid", explicitDisk, "--partition-guid", "1="+explicitP1, "--partition-guid", "3="+explicitP3)
	if err := WriteFile(img, o); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sgdisk, "-v", img).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("No problems found")) {
		t.Fatalf("sgdisk -v: %v\n%s", err, out)
	}
	out, err = exec.Command(sgdisk, "-p", img).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("Disk identifier (GUID): "+strings.ToUpper(explicitDisk))) {
		t.Errorf("sgdisk -p shows no disk identifier %s: %v\n%s", explicitDisk, err, out)
	}
	for slot, g := range map[string]string{"1": explicitP1, "3": explicitP3} {
		out, err := exec.Command(sgdisk, "-i", slot, img).CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("Partition unique GUID: "+strings.ToUpper(g))) {
			t.Errorf("sgdisk -i %s shows no unique GUID %s: %v\n%s", slot, g, err, out)
		}
	}
}

// TestExplicitGUIDErrors checks that the extension's bad uses are refused
// with ErrOption: on the command line a malformed or nil GUID, a missing
// or unused slot, the same slot twice, -y; in Options a GUID for a scheme
// without GUIDs or an unused slot, one GUID twice, and FreeBSDTestMode.
func TestExplicitGUIDErrors(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		"--disk-guid 0123456789abcdef0123456789abcdef",
		"--disk-guid 00000000-0000-0000-0000-000000000000",
		"--disk-guid " + explicitDisk + " --disk-guid " + explicitP1,
		"--partition-guid 5=" + explicitP1,
		"--partition-guid 0=" + explicitP1,
		"--partition-guid x=" + explicitP1,
		"--partition-guid " + explicitP1,
		"--partition-guid 2=" + explicitP1,
		"--partition-guid 1=" + explicitP1 + " --partition-guid 1=" + explicitP3,
		"--partition-guid 1=" + explicitP1 + " -y",
		"-y --disk-guid " + explicitDisk,
	} {
		_, err := Parse(append(strings.Fields(explicitLine), strings.Fields(line)...))
		if !errors.Is(err, ErrOption) {
			t.Errorf("%s: Parse error %v, want ErrOption", line, err)
		}
	}
	g1, g2 := mustGUID(explicitP1), mustGUID(explicitP3)
	for name, o := range map[string]*Options{
		"mbr disk GUID":        {Scheme: "mbr", DiskGUID: g1, Partitions: []Partition{{Type: "efi", Size: 512}}},
		"bsd partition GUID":   {Scheme: "bsd", Partitions: []Partition{{Type: "freebsd-ufs", Size: 512, GUID: g1}}},
		"unused slot":          {Scheme: "gpt", Partitions: []Partition{{Unused: true, GUID: g1}, {Type: "efi", Size: 512}}},
		"twice":                {Scheme: "gpt", Partitions: []Partition{{Type: "efi", Size: 512, GUID: g2}, {Type: "efi", Size: 512, GUID: g2}}},
		"disk and partition":   {Scheme: "gpt", DiskGUID: g1, Partitions: []Partition{{Type: "efi", Size: 512, GUID: g1}}},
		"test mode":            {Scheme: "gpt", FreeBSDTestMode: true, DiskGUID: g1, Partitions: []Partition{{Type: "efi", Size: 512}}},
		"no scheme, disk GUID": {DiskGUID: g1, MinCapacity: 4096},
	} {
		if _, err := Build(o); !errors.Is(err, ErrOption) {
			t.Errorf("%s: Build error %v, want ErrOption", name, err)
		}
	}
}

// TestExplicitGUIDsHashNothing checks when the partitions' contents are
// hashed: only for a GPT without -y that derives one of its GUIDs. Every
// GUID given, any other scheme and -y hash nothing.
func TestExplicitGUIDsHashNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	every := []string{"--disk-guid", explicitDisk, "--partition-guid", "1=" + explicitP1, "--partition-guid", "3=" + explicitP3, "--partition-guid", "4=" + explicitP4}
	for _, c := range []struct {
		args   string
		extra  []string
		hashes bool
	}{
		{explicitLine, nil, true},
		{explicitLine, every, false},
		{explicitLine, every[:6], true}, // slot 4's derived
		{explicitLine, every[2:], true}, // the disk's derived
		{explicitLine + " -y", nil, false},
		{"-s mbr -p efi:=a -p freebsd:=b", nil, false},
		{"-s ebr -p freebsd:=a", nil, false},
		{"-s bsd -p freebsd-ufs:=a", nil, false},
		{"-s apm -p freebsd:=a", nil, false},
		{"-s vtoc8 -p freebsd-ufs:=a", nil, false},
	} {
		o := parseIn(t, dir, append(strings.Fields(c.args), c.extra...))
		l, err := plan(o)
		if err != nil {
			t.Fatalf("%s %s: %v", c.args, c.extra, err)
		}
		if got := l.derives(); got != c.hashes {
			t.Errorf("%s %s: hashes the contents %v, want %v", c.args, c.extra, got, c.hashes)
		}
		l.close()
	}
}
