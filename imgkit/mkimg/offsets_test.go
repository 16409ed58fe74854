package mkimg

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// offsetLines are command lines with partition offsets (absolute and
// relative, for files and empty partitions, out of disk order), the
// capacities (-c, -C, --capacity, with and without a scheme or
// partitions) and :-CMD partitions, for both schemes, each compared with
// freebsd-mkimg -y. Each is a list of arguments, since a command has
// spaces.
var offsetLines = [][]string{
	strings.Fields("-s gpt -p efi::1m:4m"),
	strings.Fields("-s gpt -p efi:=a:1m -p freebsd-ufs:=b:+64k"),
	strings.Fields("-s gpt -p efi::64k:+1m -p freebsd-swap::1k -p freebsd-ufs:=c:3m"),
	strings.Fields("-s gpt -S 4096 -p efi:=a:0x300000 -p - -p freebsd-ufs::8k:+12k"),
	strings.Fields("-s gpt -c 4m -p freebsd-ufs::1m:2m -p efi::64k:1m"),
	strings.Fields("-s gpt -c 3m -p efi:=a"),
	strings.Fields("-s gpt -c 1000001 -p efi:=d"),
	strings.Fields("-s gpt -C 1m -p efi:=a"),
	strings.Fields("-s gpt --capacity 2m -p efi:=b"),
	strings.Fields("-s gpt -c 1m"),
	strings.Fields("-c 1m"),
	strings.Fields("-S 4096 -c 100000"),
	strings.Fields("-s mbr -p freebsd::1m:1m -p efi:=a:+3k"),
	strings.Fields("-s mbr -H 16 -T 63 -p freebsd:=a:100000 -p efi::1k"),
	strings.Fields("-s mbr -T 63 -p freebsd::10k:+1 -p - -p fat32:=b:2m"),
	strings.Fields("-s mbr -c 5m -p freebsd:=b"),
	strings.Fields("-s mbr -C 200k -p freebsd:=a"),
	strings.Fields("-s mbr -c 1m"),
	{"-s", "gpt", "-p", "efi:-cat a", "-p", "freebsd-ufs:-printf hello", "-p", "freebsd-swap::1k"},
	{"-s", "gpt", "-p", "freebsd-ufs:-head -c 3145728 /dev/zero; cat b", "-p", "freebsd-zfs:=c:+1m", "-p", "efi:-true"},
	{"-s", "gpt", "-S", "4096", "-c", "8m", "-p", "efi:-cat b", "-p", "freebsd-ufs::64k:6m"},
	{"-s", "mbr", "-p", "freebsd:-cat a", "-p", "efi:-printf x"},
	{"-s", "mbr", "-H", "16", "-T", "63", "-p", "fat32:-cat c", "-p", "efi::1k:1m", "-p", "freebsd:-true"},
	// Partitions an absolute offset puts over a GPT's entry array are
	// refused (metaOverlaps), where mkimg writes an invalid GPT.
}

// TestOffsetsIdentity checks that WriteFile and Build give freebsd-mkimg
// -y's bytes for every line of offsetLines, and that -v reports what
// freebsd-mkimg -v reports.
func TestOffsetsIdentity(t *testing.T) {
	t.Parallel()
	ref := tooltest.Need(t, "freebsd-mkimg")
	dir := t.TempDir()
	inputs(t, dir)
	for _, line := range offsetLines {
		t.Run(strings.Join(line, " "), func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{}, line...), "-y", "-v")
			wantBytes, refLog := freebsdDisk(t, ref, dir, args)
			o := parseIn(t, dir, args)
			var log bytes.Buffer
			o.Log, o.Dir = &log, dir
			got := filepath.Join(t.TempDir(), "got.img")
			if err := WriteFile(got, o); err != nil {
				t.Fatal(err)
			}
			gotBytes, err := os.ReadFile(got)
			if err != nil {
				t.Fatal(err)
			}
			// An empty command's gpt or mbr entry is left unused on purpose
			// (emptyEntry).
			wantBytes = withEmptyEntriesUnused(t, strings.ToLower(o.Scheme), defaultInt(o.SectorSize, 512), wantBytes)
			compareDisks(t, gotBytes, wantBytes)
			if log.String() != refLog.String() {
				t.Errorf("-v wrote\n%s\nfreebsd-mkimg -v wrote\n%s", log.Bytes(), refLog.Bytes())
			}
			o.Log = nil
			if built := mustBuild(t, o); !bytes.Equal(built, wantBytes) {
				t.Error("Build's bytes differ from WriteFile's")
			}
		})
	}
}
