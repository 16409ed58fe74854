package mkimg

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// gptHead is what a message names the GPT's leading metadata by.
const gptHead = "the protective MBR, the GPT header and its entry array (sectors 0 to 33)"

// metaOverlaps are command lines whose partitions share a sector with
// their scheme's metadata, for each scheme whose metadata no partition
// may hold, and each kind of partition (empty of a size, of 0 bytes, a
// file, a command's output, at an absolute offset or moved next to a
// GPT's backup by -c): what the refusal says, and what freebsd-mkimg -y
// does with the line ("writes" a disk, which is invalid, or "fails").
var metaOverlaps = []struct {
	args    []string
	say     string
	freebsd string
}{
	{strings.Fields("-s gpt -p efi::1m:512"), "partition 1 (sectors 1 to 2048) overlaps " + gptHead + "; a partition may start at sector 34 (offset 17408) or after", "writes"},
	{strings.Fields("-s gpt -p efi::0:512"), "partition 1 is empty (0 bytes) at sector 1, inside " + gptHead, "writes"},
	{strings.Fields("-s gpt -p efi::0:0"), "partition 1 is empty (0 bytes) at sector 0, inside " + gptHead, "writes"},
	{strings.Fields("-s gpt -p efi:=c:4096"), "partition 1 (sectors 8 to 15) overlaps " + gptHead, "writes"},
	{strings.Fields("-s gpt -P 4096 -p efi::1k:5000 -p freebsd-ufs:=b:+1"), "partition 1 (sectors 16 to 17) overlaps " + gptHead + "; a partition may start at sector 40 (offset 20480) or after", "writes"},
	{[]string{"-s", "gpt", "-c", "64k", "-p", "efi::1k:47104", "-p", "freebsd-ufs:-cat b", "-p", "efi::1k:17408"}, "partition 2 (sectors 94 to 95) overlaps the backup GPT entry array and header (sectors 95 to 127)", "fails"},
	{strings.Fields("-s gpt -c 64k -p efi::2k:47104 -p efi::1k:17408"), "partition 1 (sectors 92 to 95) overlaps the backup GPT entry array and header (sectors 95 to 127)", "writes"},
	{strings.Fields("-s mbr -p fat32::1m:0"), "partition 1 (sectors 0 to 2047) overlaps the MBR (sector 0); a partition may start at sector 1 (offset 512) or after", "writes"},
	{strings.Fields("-s mbr -p fat32::0:0"), "partition 1 is empty (0 bytes) at sector 0, inside the MBR (sector 0)", "fails"},
	{strings.Fields("-s mbr -T 63 -p freebsd:=a:0"), "partition 1 (sectors 0 to 195) overlaps the MBR (sector 0); a partition may start at sector 63 (offset 32256) or after", "fails"},
	{strings.Fields("-s apm -p freebsd::1m:0"), "partition 1 (sectors 0 to 2047) overlaps the driver descriptor record and the partition map (sectors 0 to 2); a partition may start at sector 3 (offset 1536) or after", "writes"},
	{strings.Fields("-s apm -p freebsd::1m:512"), "partition 1 (sectors 1 to 2048) overlaps the driver descriptor record and the partition map (sectors 0 to 2)", "writes"},
	{strings.Fields("-s apm -p freebsd:=d:1024"), "partition 1 (sector 2) overlaps the driver descriptor record and the partition map (sectors 0 to 2)", "fails"},
	{strings.Fields("-s apm -p freebsd::0:512"), "partition 1 is empty (0 bytes) at sector 1, inside the driver descriptor record and the partition map (sectors 0 to 2)", "fails"},
	{strings.Fields("-s ebr -p fat32::1m:0"), "partition 1 at sector 0 leaves no room for its EBR, which goes one track (-T 1) before it; it may start at sector 1 (offset 512) or after", "fails"},
	{strings.Fields("-s ebr -p fat32:=b:512 -p fat32::1k:1536"), "partition 1 (sectors 1 to 2) overlaps the EBR of partition 2 (sector 2)", "fails"},
	{strings.Fields("-s ebr -T 63 -p fat32::1k:32256 -p freebsd::1k:64512"), "partition 1 (sectors 63 to 64) overlaps the EBR of partition 2 and the rest of its track (sectors 63 to 125)", "writes"},
	{strings.Fields("-s ebr -p fat32::0:512 -p fat32::0:512"), "partitions 1 and 2 both start at sector 1, so their EBRs would be one sector", "writes"},
	{strings.Fields("-s vtoc8 -p freebsd-ufs:=a:0"), "partition 1 has data at sector 0, where the vtoc8 metadata goes", "fails"},
	{strings.Fields("-s bsd -b bsdboot -p freebsd-ufs:=a:0"), "partition 1 has data at sector 0, where the bsd metadata goes", "fails"},
}

// TestMetadataOverlapRefused checks that each line of metaOverlaps is
// refused in one line, with ErrPartition, leaving nothing where the disk
// would go.
func TestMetadataOverlapRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	for _, c := range metaOverlaps {
		o := parseIn(t, dir, c.args)
		o.Dir = dir
		out := filepath.Join(t.TempDir(), "disk.img")
		err := WriteFile(out, o)
		if !errors.Is(err, ErrPartition) || !strings.Contains(err.Error(), c.say) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v, want one line saying %q", c.args, err, c.say)
		}
		if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
			t.Errorf("%q: left %d files behind", c.args, len(entries))
		}
	}
}

// TestMetadataOverlapFreeBSD checks what freebsd-mkimg -y does with each
// line of metaOverlaps, and that each GPT it writes fails sgdisk -v: the
// refusals keep no disk from being made that would be valid.
func TestMetadataOverlapFreeBSD(t *testing.T) {
	t.Parallel()
	ref := tooltest.Need(t, "freebsd-mkimg")
	sgdisk := tooltest.Need(t, "sgdisk")
	dir := t.TempDir()
	inputs(t, dir)
	for _, c := range metaOverlaps {
		want := filepath.Join(t.TempDir(), "want.img")
		cmd := exec.Command(ref, append(append([]string{"-y"}, c.args...), "-o", want)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if got := map[bool]string{true: "writes", false: "fails"}[err == nil]; got != c.freebsd {
			t.Errorf("%q: freebsd-mkimg %s (%v: %s), want it to %s", c.args, got, err, bytes.TrimSpace(out), strings.TrimSuffix(c.freebsd, "s"))
			continue
		}
		if err != nil || c.args[1] != "gpt" {
			continue
		}
		if v, err := exec.Command(sgdisk, "-v", want).CombinedOutput(); err == nil && bytes.Contains(v, []byte("No problems found")) {
			t.Errorf("%q: sgdisk -v finds no problem in freebsd-mkimg's disk:\n%s", c.args, v)
		}
	}
}

// TestMetadataOverlapSources checks the partitions a Go caller fills from
// a Source: over a GPT's metadata any Source is refused, as a file is;
// over a BSD label (bsd, whose partitions may hold the boot area where
// their data is zeros) one whose data is zeros there is kept, an
// in-place builder's too, and one with data there is refused.
func TestMetadataOverlapSources(t *testing.T) {
	t.Parallel()
	ufs := make([]byte, 64<<10) // zeros over the 8 KiB boot area, as UFS leaves it
	copy(ufs[bsdBootblockSize:], "superblock")
	builder := func(b []byte) Source {
		return BuilderSource("builder", int64(len(b)), func(w io.WriterAt) (int64, error) {
			_, err := w.WriteAt(b, 0)
			return int64(len(b)), err
		})
	}
	label := append([]byte("data over the label"), ufs[19:]...)
	atLabel := append(append(make([]byte, 512), "data over the label"...), ufs[531:]...)
	for _, c := range []struct {
		scheme string
		src    Source
		offset uint64
		say    string // "" for a disk
	}{
		{"gpt", ReaderSource(bytes.NewReader(ufs), int64(len(ufs))), 512, "partition 1 (sectors 1 to 128) overlaps " + gptHead},
		{"gpt", builder(ufs), 0, "partition 1 (sectors 0 to 127) overlaps " + gptHead},
		{"gpt", builder(nil), 1024, "partition 1 is empty (0 bytes) at sector 2, inside " + gptHead},
		{"bsd", builder(ufs), 0, ""},
		{"bsd", ReaderSource(bytes.NewReader(ufs), int64(len(ufs))), 0, ""},
		{"bsd", builder(label), 512, "partition 1 has data at sector 1, where the bsd metadata goes"},
		{"bsd", ReaderSource(bytes.NewReader(atLabel), int64(len(atLabel))), 0, "partition 1 has data at sector 1, where the bsd metadata goes"},
	} {
		typ := map[string]string{"gpt": "efi", "bsd": "freebsd-ufs"}[c.scheme]
		o := &Options{Scheme: c.scheme, Partitions: []Partition{{Type: typ, Source: c.src, Offset: c.offset, Absolute: true}}}
		disk, err := Build(o)
		switch {
		case c.say == "" && err != nil:
			t.Errorf("%s %s at %d: %v", c.scheme, c.src, c.offset, err)
		case c.say == "":
			if !bytes.Equal(disk[bsdBootblockSize:][:10], []byte("superblock")) || !bytes.Equal(disk[512:516], []byte{0x57, 0x45, 0x56, 0x82}) {
				t.Errorf("%s %s at %d: the disk lacks the partition's data or the label", c.scheme, c.src, c.offset)
			}
		case !errors.Is(err, ErrPartition) || !strings.Contains(err.Error(), c.say):
			t.Errorf("%s %s at %d: got %v, want %q", c.scheme, c.src, c.offset, err, c.say)
		}
	}
}

// TestMetadataInPartition checks the schemes whose partitions may hold
// their metadata, as their tools allow (gpart's first usable sector is 0
// for bsd and vtoc8): an empty partition at sector 0 holding a BSD label
// or a VTOC8 gets freebsd-mkimg's bytes, and a BSD disk whose partitions
// end inside the boot area still holds the whole boot area, where
// freebsd-mkimg cuts it short.
func TestMetadataInPartition(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	ref := tooltest.Need(t, "freebsd-mkimg")
	for _, line := range []string{"-s bsd -p freebsd-ufs::1m:0", "-s vtoc8 -p freebsd-ufs::1m:0", "-s bsd -p freebsd-ufs::100k:0 -p freebsd-swap::1k"} {
		args := strings.Fields(line + " -y")
		want, _ := freebsdDisk(t, ref, dir, args)
		compareDisks(t, mustBuild(t, parseIn(t, dir, args)), want)
	}
	small := strings.Fields("-y -s bsd -p freebsd-ufs::1k:0")
	got := mustBuild(t, parseIn(t, dir, small))
	want, _ := freebsdDisk(t, ref, dir, small)
	if len(got) != bsdBootblockSize || len(want) != 1024 {
		t.Errorf("a bsd disk of a 1 KiB partition at sector 0 is %d bytes, want the 8 KiB boot area whole; freebsd-mkimg's is %d, want 1024", len(got), len(want))
	}
	if tab, err := ReadTable(bytes.NewReader(got), int64(len(got))); err != nil || len(tab.Partitions) != 1 || tab.Partitions[0].Start != 0 || tab.Partitions[0].Size != 1024 {
		t.Errorf("reading it back: %v", err)
	}
	got = mustBuild(t, parseIn(t, dir, append(small, "-b", "bsdboot")))
	boot, _ := os.ReadFile(filepath.Join(dir, "bsdboot"))
	if len(got) != bsdBootblockSize || !bytes.Equal(got[:512], boot[:512]) || !bytes.Equal(got[4096:], boot[4096:]) {
		t.Error("with -b, the boot area does not hold the boot code")
	}
}
