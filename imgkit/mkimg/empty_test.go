package mkimg

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// withEmptyEntriesUnused returns a freebsd-mkimg disk with its empty
// partitions' entries cleared, as this package writes them on purpose
// (emptyEntry): for gpt the entries whose EndingLBA is one below their
// StartingLBA, in both arrays, with both headers' CRCs made again; for mbr
// the records with an OSType and SizeInLBA 0. The changes go to a copy,
// made only when there is one to make: a disk without such entries, and
// other schemes' disks, are returned as they are.
func withEmptyEntriesUnused(t *testing.T, scheme string, secsz int, disk []byte) []byte {
	t.Helper()
	copied := false
	own := func() {
		if !copied {
			disk, copied = bytes.Clone(disk), true
		}
	}
	switch scheme {
	case "mbr":
		for i := range mbrPartitions {
			r := (*mbrRecord)(disk[:512]).partitionRecord(i)
			if r.osType()[0] != 0 && binary.LittleEndian.Uint32(r.sizeInLBA()) == 0 {
				own()
				*(*mbrRecord)(disk[:512]).partitionRecord(i) = mbrPartitionRecord{}
			}
		}
	case "gpt":
		for _, lba := range []int{1, len(disk)/secsz - 1} {
			header := func() *gptHeader { return (*gptHeader)(disk[lba*secsz:][:gptHeaderSize]) }
			if !bytes.Equal(header().signature(), gptSignature[:]) {
				t.Fatalf("freebsd-mkimg's disk has no GPT header at LBA %d", lba)
			}
			n := int(binary.LittleEndian.Uint32(header().numberOfPartitionEntries()))
			table := func() []byte {
				return disk[int(binary.LittleEndian.Uint64(header().partitionEntryLBA()))*secsz:][:n*gptEntrySize]
			}
			changed := false
			for i := range n {
				e := (*gptEntry)(table()[i*gptEntrySize:][:gptEntrySize])
				start, end := binary.LittleEndian.Uint64(e.startingLBA()), binary.LittleEndian.Uint64(e.endingLBA())
				if !allZero(e.partitionTypeGUID()) && end+1 == start {
					own()
					clear(table()[i*gptEntrySize:][:gptEntrySize])
					changed = true
				}
			}
			if !changed {
				continue // the CRCs stay
			}
			h := header()
			binary.LittleEndian.PutUint32(h.partitionEntryArrayCRC32(), crc32.ChecksumIEEE(table()))
			clear(h.headerCRC32())
			binary.LittleEndian.PutUint32(h.headerCRC32(), crc32.ChecksumIEEE(h[:]))
		}
	}
	return disk
}

// TestEmptyPartitions checks the empty partitions (a 0-byte file or ::0)
// of every scheme against freebsd-mkimg -y: one followed by a partition
// that starts where it does is refused, as mkimg refuses it, with a
// message saying it is empty and inside the other; one that
// mkimg accepts is written as mkimg writes it but for the gpt and mbr
// entries left unused, with one warning each, and the gpt disks pass
// sgdisk -v and sfdisk --verify.
func TestEmptyPartitions(t *testing.T) {
	t.Parallel()
	ref := tooltest.Need(t, "freebsd-mkimg")
	dir := t.TempDir()
	inputs(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "z"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line    string
		refused bool
		warns   int
	}{
		{"-s gpt -p efi::0 -p freebsd-ufs:=a", true, 0},
		{"-s gpt -p efi:=z -p - -p freebsd-ufs:=a", true, 0},
		{"-s gpt -p efi::0 -p freebsd-ufs::0 -p freebsd-swap:=b", true, 0},
		{"-s mbr -p efi::0 -p freebsd:=a", true, 0},
		{"-s bsd -p freebsd-ufs::0 -p freebsd-ufs:=a", true, 0},
		{"-s apm -p freebsd::0 -p freebsd:=a", true, 0},
		{"-s vtoc8 -p freebsd-ufs::0 -p freebsd-ufs:=a", true, 0},
		{"-s gpt -p efi:=a -p freebsd-ufs::0", false, 1},
		{"-s gpt -S 4096 -p efi:=a -p - -p freebsd-ufs:=z -p freebsd-swap::0", false, 2},
		{"-s gpt -c 64k -p efi::0", false, 1},
		{"-s mbr -p efi:=a -p freebsd::0", false, 1},
		{"-s mbr -S 4096 -H 16 -T 63 -p efi:=a -p - -p freebsd:=z", false, 1},
		{"-s ebr -p freebsd::0 -p freebsd:=a", false, 0},
		{"-s bsd -p freebsd-ufs:=a -p freebsd-ufs::0", false, 0},
		{"-s apm -p freebsd:=a -p freebsd::0", false, 0},
		{"-s vtoc8 -p freebsd-ufs:=a -p freebsd-ufs::0", false, 0},
	} {
		t.Run(c.line, func(t *testing.T) {
			t.Parallel()
			want := filepath.Join(t.TempDir(), "want.img")
			cmd := exec.Command(ref, append(strings.Fields(c.line), "-y", "-o", want)...)
			cmd.Dir = dir
			out, refErr := cmd.CombinedOutput()
			o := parseIn(t, dir, append(strings.Fields(c.line), "-y"))
			var warn bytes.Buffer
			o.Warn = &warn
			got, err := Build(o)
			switch {
			case c.refused && (refErr == nil || err == nil):
				t.Fatalf("freebsd-mkimg: %v %s; Build: %v; want both to refuse", refErr, out, err)
			case c.refused:
				if !strings.Contains(err.Error(), "partition 1 is empty (0 bytes) at sector ") || !strings.Contains(err.Error(), ", inside partition ") {
					t.Errorf("Build: %v; want partition 1 refused, inside another", err)
				}
				return
			case refErr != nil || err != nil:
				t.Fatalf("freebsd-mkimg: %v %s; Build: %v", refErr, out, err)
			}
			ws := strings.Count(warn.String(), "\n")
			if ws != c.warns || (ws > 0 && !strings.Contains(warn.String(), "mkimg: warning: partition ")) {
				t.Errorf("warnings %q; want %d", warn.String(), c.warns)
			}
			wantBytes, err := os.ReadFile(want)
			if err != nil {
				t.Fatal(err)
			}
			scheme, secsz := strings.Fields(c.line)[1], int(o.SectorSize)
			if secsz == 0 {
				secsz = 512
			}
			if msg := explainDiff(scheme, secsz, got, withEmptyEntriesUnused(t, scheme, secsz, wantBytes)); msg != "" {
				t.Error(msg)
			}
			if c.warns > 0 && bytes.Equal(got, wantBytes) {
				t.Error("the disk is freebsd-mkimg's, its empty entries included")
			}
			if scheme == "gpt" && secsz == 512 {
				img := filepath.Join(t.TempDir(), "disk.img")
				if err := os.WriteFile(img, got, 0o644); err != nil {
					t.Fatal(err)
				}
				if out := runTool(t, tooltest.Need(t, "sgdisk"), "-v", img); !strings.Contains(out, "No problems found") {
					t.Errorf("sgdisk -v:\n%s", out)
				}
				if out := runTool(t, tooltest.Need(t, "sfdisk"), "--verify", img); !strings.Contains(out, "No errors detected") {
					t.Errorf("sfdisk --verify:\n%s", out)
				}
			}
		})
	}
}
