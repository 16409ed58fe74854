package mkimg

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// linuxWant is what the independent tools must show for each of
// fixturegen's Linux type aliases, written out apart from the package's
// tables: the GUID of the UAPI Group's Discoverable Partitions
// Specification (LVM and RAID: util-linux's and gdisk's lists), the names
// util-linux 2.38's sfdisk -l and gdisk 1.0.9's sgdisk -i give it, and the
// MBR type byte with sfdisk's name for it (0 where an MBR has none).
var linuxWant = []struct {
	alias, guid, sfdiskName, sgdiskName string
	mbr                                 byte
	sfdiskMBRName                       string
}{
	{"linux-data", "0FC63DAF-8483-4772-8E79-3D69D8477DE4", "Linux filesystem", "Linux filesystem", 0x83, "Linux"},
	{"linux-swap", "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F", "Linux swap", "Linux swap", 0x82, "Linux swap / Solaris"},
	{"linux-lvm", "E6D6D379-F507-44C2-A23C-238F2A3DF928", "Linux LVM", "Linux LVM", 0x8e, "Linux LVM"},
	{"linux-raid", "A19D880F-05FC-4D3B-A006-743F0F84911E", "Linux RAID", "Linux RAID", 0xfd, "Linux raid autodetect"},
	{"linux-root-x86-64", "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709", "Linux root (x86-64)", "Linux x86-64 root (/)", 0, ""},
	{"linux-root-arm64", "B921B045-1DF0-41C3-AF44-4C6F280D3FAE", "Linux root (ARM-64)", "Linux ARM64 root (/)", 0, ""},
	{"linux-usr-x86-64", "8484680C-9521-48C6-9C11-B0720656F69E", "Linux /usr (x86-64)", "Linux x86-64 /usr", 0, ""},
	{"linux-usr-arm64", "B0E01050-EE5F-4390-949A-9101B17104E9", "Linux /usr (ARM-64)", "Linux ARM64 /usr", 0, ""},
	{"xbootldr", "BC13C2FF-59E6-4262-A352-B275FD6F7172", "Linux extended boot", "XBOOTLDR partition", 0xea, "Linux extended boot"},
}

// writeLine writes the disk of the mkimg command line line (without -o)
// to dir/name and returns its path.
func writeLine(t *testing.T, dir, name, line string) string {
	t.Helper()
	o, err := Parse(strings.Fields(line))
	if err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, name)
	if err := WriteFile(img, o); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return img
}

// sfdiskNames returns the Type column of sfdisk -l's partition lines,
// by partition number.
func sfdiskNames(t *testing.T, sfdisk, img string) map[int]string {
	t.Helper()
	names := map[int]string{}
	out := runTool(t, sfdisk, "-l", img)
	cols := -1
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "Device ") {
			cols = strings.Index(line, "Type")
			continue
		}
		if cols < 0 || !strings.HasPrefix(line, img) || len(line) <= cols {
			continue
		}
		var n int
		if _, err := fmt.Sscanf(line[len(img):], "%d", &n); err == nil {
			names[n] = strings.TrimSpace(line[cols:])
		}
	}
	return names
}

// TestLinuxTypesGPT writes a GPT with every Linux alias and checks that
// sgdisk -v finds no problem, that sfdisk -d gives each the
// specification's type GUID, that sfdisk -l and sgdisk -i name it, and
// that the reader gives the alias back.
func TestLinuxTypesGPT(t *testing.T) {
	t.Parallel()
	sgdisk := tooltest.Need(t, "sgdisk")
	sfdisk := tooltest.Need(t, "sfdisk")
	line := "-s gpt"
	for _, w := range linuxWant {
		line += " -p " + w.alias + "/" + w.alias + "::1k"
	}
	img := writeLine(t, t.TempDir(), "linux.img", line)
	if out := runTool(t, sgdisk, "-v", img); !strings.Contains(out, "No problems found") {
		t.Errorf("sgdisk -v:\n%s", out)
	}
	parts := sfdiskDump(t, sfdisk, img)
	names := sfdiskNames(t, sfdisk, img)
	if len(parts) != len(linuxWant) {
		t.Fatalf("sfdisk -d lists %d partitions, want %d: %+v", len(parts), len(linuxWant), parts)
	}
	for i, w := range linuxWant {
		if parts[i].typ != w.guid {
			t.Errorf("%s: sfdisk -d gives type %s, want %s", w.alias, parts[i].typ, w.guid)
		}
		if names[i+1] != w.sfdiskName {
			t.Errorf("%s: sfdisk -l names it %q, want %q", w.alias, names[i+1], w.sfdiskName)
		}
		if out := runTool(t, sgdisk, "-i", fmt.Sprint(i+1), img); !strings.Contains(out, "Partition GUID code: "+w.guid+" ("+w.sgdiskName+")\n") {
			t.Errorf("%s: sgdisk -i %d does not give %s (%s):\n%s", w.alias, i+1, w.guid, w.sgdiskName, out)
		}
	}
	d, err := OpenReader(img)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for i, e := range d.Table().Partitions {
		if w := linuxWant[i]; e.Type != w.alias || e.Label != w.alias {
			t.Errorf("read back partition %d as type %q, label %q; want %q", i+1, e.Type, e.Label, w.alias)
		}
	}
}

// TestLinuxTypesMBR writes an MBR holding the Linux aliases that have a
// type byte, three as primary partitions and the others in an EBR chain
// as logical ones, and checks that sfdisk --verify finds no error, that
// sfdisk -d gives each its byte and sfdisk -l its name, and that the
// reader gives the alias back. The root and /usr types are refused by
// mbr and ebr (TestLayoutErrors).
func TestLinuxTypesMBR(t *testing.T) {
	t.Parallel()
	sfdisk := tooltest.Need(t, "sfdisk")
	dir := t.TempDir()
	var withByte []int
	for i, w := range linuxWant {
		if w.mbr != 0 {
			withByte = append(withByte, i)
		}
	}
	chainLine := "-s ebr"
	for _, i := range withByte[3:] {
		chainLine += " -p " + linuxWant[i].alias + "::1k"
	}
	chain := writeLine(t, dir, "chain.img", chainLine)
	line := "-s mbr"
	for _, i := range withByte[:3] {
		line += " -p " + linuxWant[i].alias + "::1k"
	}
	img := writeLine(t, dir, "linux.img", line+" -p ebr:="+chain)
	if out := runTool(t, sfdisk, "--verify", img); !strings.Contains(out, "No errors detected") {
		t.Errorf("sfdisk --verify:\n%s", out)
	}
	// sfdisk numbers the logical partitions from 5, after the extended
	// one in slot 4.
	slots := map[int]int{1: withByte[0], 2: withByte[1], 3: withByte[2]}
	for j, i := range withByte[3:] {
		slots[5+j] = i
	}
	names := sfdiskNames(t, sfdisk, img)
	got := map[int]string{}
	for _, p := range sfdiskDump(t, sfdisk, img) {
		got[p.slot] = p.typ
	}
	for slot, i := range slots {
		w := linuxWant[i]
		if want := fmt.Sprintf("%X", w.mbr); got[slot] != want {
			t.Errorf("%s: sfdisk -d gives partition %d type %q, want %s", w.alias, slot, got[slot], want)
		}
		if names[slot] != w.sfdiskMBRName {
			t.Errorf("%s: sfdisk -l names partition %d %q, want %q", w.alias, slot, names[slot], w.sfdiskMBRName)
		}
	}
	d, err := OpenReader(img)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for j, i := range withByte[:3] {
		if e := d.Table().Partitions[j]; e.Type != linuxWant[i].alias {
			t.Errorf("read back partition %d as %q, want %q", j+1, e.Type, linuxWant[i].alias)
		}
	}
	// The chain alone reads as an MBR (its first EBR is one), so it is
	// read as the EBR chain it is.
	b, err := os.ReadFile(chain)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := readEBR(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for j, i := range withByte[3:] {
		if e := tab.Partitions[j]; e.Type != linuxWant[i].alias {
			t.Errorf("read back logical partition %d as %q, want %q", j+1, e.Type, linuxWant[i].alias)
		}
	}
}

// TestLinuxTypesNotFreeBSD checks that the Linux aliases are fixturegen's
// own: freebsd-mkimg refuses every one for every scheme (so the matrix,
// which compares with it, never draws them), while the package takes them
// where the scheme has the type.
func TestLinuxTypesNotFreeBSD(t *testing.T) {
	t.Parallel()
	ref := tooltest.Need(t, "freebsd-mkimg")
	dir := t.TempDir()
	for _, name := range Schemes() {
		for _, alias := range linuxAliases {
			out := filepath.Join(dir, name+"-"+alias+".img")
			msg, err := exec.Command(ref, "-y", "-s", name, "-p", alias+"::1k", "-o", out).CombinedOutput()
			if err == nil {
				t.Errorf("freebsd-mkimg -s %s -p %s::1k took the type: %s", name, alias, msg)
			}
			os.Remove(out)
		}
	}
	for _, a := range linuxAliases {
		if len(schemesWith(a)) == 0 {
			t.Errorf("no scheme takes %s", a)
		}
	}
}
