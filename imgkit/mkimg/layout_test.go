package mkimg

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestLayoutErrors checks each error found when the disk is laid out:
// one line naming the partition, option or command, the sentinel a
// caller tells it by, and no file left behind.
func TestLayoutErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want error
		say  string
	}{
		{strings.Fields("-s gpt -p efi::1m:1m -p freebsd-ufs::1m:1536k"), ErrPartition, "partition 1 (sectors 2048 to 4095) overlaps partition 2 (sectors 3072 to 5119)"},
		{strings.Fields("-s gpt -p efi::4m:1m -p freebsd-ufs::1m:2m"), ErrPartition, "partition 1 (sectors 2048 to 10239) overlaps partition 2 (sectors 4096 to 6143)"},
		{strings.Fields("-s gpt -c 4m -p freebsd-ufs::1m:2m -p - -p efi::2m:1m"), ErrPartition, "partition 1 (sectors 4096 to 6143) overlaps partition 3 (sectors 2048 to 6143)"},
		{strings.Fields("-s gpt -p efi::0 -p freebsd-ufs::1k"), ErrPartition, "partition 1 is empty (0 bytes) at sector 34, inside partition 2 (sectors 34 to 35); give it a size, or leave its slot unused (-p -)"},
		{strings.Fields("-s gpt -p efi::1m:4m -p freebsd-ufs::1k:1m"), ErrPartition, "partition 1 ends at sector 10240, past the end of the disk at sector 2083"},
		{strings.Fields("-s gpt -C 100k -p efi::1m"), ErrCapacity, "partition 1 ends at sector 2082, past the capacity of 200 sectors of 512 bytes"},
		{strings.Fields("-s gpt -C 1m -p efi::1000k"), ErrCapacity, "the disk with the gpt metadata needs 2067 sectors, past the capacity of 2048 sectors"},
		{strings.Fields("-s gpt -c 2m -C 1m -p efi::1k"), ErrOption, "-c 2097152: the minimum capacity cannot be larger than the maximum one, 1048576"},
		{strings.Fields("-s mbr -p freebsd:=a -p - -p - -p - -p -"), ErrPartition, "5 partitions given; mbr holds 4"},
		{strings.Fields("-s gpt -p freebsd-ufs-typo:=a"), ErrPartition, `partition 1: type "freebsd-ufs-typo" is not a gpt type`},
		{strings.Fields("-s gpt -p c12a7328-f81f-11d2-ba4b-00a0c93ec93b::1k"), ErrPartition, "is not a gpt type"},
		{strings.Fields("-s mbr -p 0xa5::1k"), ErrPartition, `type "0xa5" is not a mbr type (mbr types: ebr, efi, fat16b, fat32, freebsd, ntfs, prepboot, linux-data, linux-swap, linux-lvm, linux-raid, xbootldr)`},
		{strings.Fields("-s mbr -p linux-root-arm64::1k"), ErrPartition, `partition 1: type "linux-root-arm64" is a gpt type, not a mbr one (mbr types: `},
		{strings.Fields("-s ebr -p linux-usr-x86-64::1k"), ErrPartition, `partition 1: type "linux-usr-x86-64" is a gpt type, not a ebr one (ebr types: `},
		{strings.Fields("-s bsd -p linux-data::1k"), ErrPartition, `partition 1: type "linux-data" is a ebr, gpt and mbr type, not a bsd one (bsd types: `},
		{strings.Fields("-s apm -p xbootldr::1k"), ErrPartition, `partition 1: type "xbootldr" is a ebr, gpt and mbr type, not a apm one (apm types: `},
		{strings.Fields("-s vtoc8 -p linux-swap::1k"), ErrPartition, `partition 1: type "linux-swap" is a ebr, gpt and mbr type, not a vtoc8 one (vtoc8 types: `},
		{strings.Fields("-s VTOC8 -p efi::1k"), ErrPartition, `type "efi" is a gpt and mbr type, not a vtoc8 one (vtoc8 types: freebsd-nandfs, freebsd-swap, freebsd-ufs, freebsd-vinum, freebsd-zfs)`},
		{strings.Fields("-s gpt -S 1000 -p efi:=a"), ErrOption, "-S 1000: the logical sector size must be a power of two"},
		{strings.Fields("-s gpt -P 1536 -p efi:=a"), ErrOption, "-P 1536: the physical block size must be a power of two"},
		{strings.Fields("-s mbr -H 300 -p freebsd:=a"), ErrOption, "-H number of heads"},
		{strings.Fields("-s mbr -T 0 -p freebsd:=a"), ErrOption, "-T track size"},
		{strings.Fields("-s gpt -p efi:=missing"), ErrPartition, "partition 1: " + filepath.Join(dir, "missing") + ": no such file or directory"},
		{strings.Fields("-s gpt -p efi:=missing:1m"), ErrPartition, "partition 1: " + filepath.Join(dir, "missing") + ": no such file or directory"},
		{strings.Fields("-s gpt -p efi:=a:zz"), ErrPartition, "a:zz: no such file or directory"},
		{strings.Fields("-s gpt -p efi:=sub"), ErrPartition, filepath.Join(dir, "sub") + " is a directory"},
		{[]string{"-s", "gpt", "-p", "efi::1k", "-p", "freebsd-ufs:-echo no >&2; exit 7"}, ErrPartition, `partition 2: command "echo no >&2; exit 7" failed: exit status 7`},
		{[]string{"-s", "gpt", "-p", "efi:-kill -9 $$"}, ErrPartition, `partition 1: command "kill -9 $$" failed: signal: killed`},
		{strings.Fields("-s mbr -p freebsd:=a:0"), ErrPartition, "partition 1 (sectors 0 to 195) overlaps the MBR (sector 0); a partition may start at sector 1 (offset 512) or after"},
		{strings.Fields("-s gpt -p efi:=b:512"), ErrPartition, "partition 1 (sectors 1 to 2) overlaps the protective MBR, the GPT header and its entry array (sectors 0 to 33); a partition may start at sector 34 (offset 17408) or after"},
		{strings.Fields("-s gpt"), ErrOption, "no partitions (-p), and no capacity (-c) for an empty disk"},
		{strings.Fields("-p efi::1k"), ErrOption, "no scheme (-s) for the partitions"},
		{strings.Fields("-c 1m -b boot"), ErrBootcode, "a disk without a scheme takes no boot code"},
	} {
		out := filepath.Join(t.TempDir(), "disk.img")
		_, err := Parse(c.args)
		if err == nil {
			o := parseIn(t, dir, c.args)
			var stderr bytes.Buffer
			o.Dir, o.Stderr = dir, &stderr
			err = WriteFile(out, o)
		}
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.say) {
			t.Errorf("%q: got %v, want an error wrapping %v saying %q", c.args, err, c.want, c.say)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error is more than one line: %q", c.args, err)
		}
		if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
			t.Errorf("%q: left %d files behind", c.args, len(entries))
		}
	}
}

// TestFileOffsetSplit checks how a := partition's name and offset are
// told apart: a file that exists under the whole name keeps its colon,
// otherwise the last colon starts the offset.
func TestFileOffsetSplit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	content := []byte("the file whose name has a colon")
	if err := os.WriteFile(filepath.Join(dir, "a:1m"), content, 0o644); err != nil {
		t.Fatal(err)
	}
	whole := mustBuild(t, parseIn(t, dir, strings.Fields("-y -s mbr -p freebsd:=a:1m")))
	if !bytes.Equal(whole[512:512+len(content)], content) {
		t.Error("the file a:1m, which exists, was not taken under its whole name")
	}
	split := mustBuild(t, parseIn(t, dir, strings.Fields("-y -s mbr -p freebsd:=c:+1m")))
	want, _ := os.ReadFile(filepath.Join(dir, "c"))
	if at := 512 + 1<<20; !bytes.Equal(split[at:at+len(want)], want) {
		t.Error("c:+1m did not put c one MiB after LBA 1")
	}
}

// TestCommandPartition checks a command's partition: its output
// streamed in whole, its standard error passed on, its working
// directory, and no temporary file left in the output's folder or in
// TMPDIR.
func TestCommandPartition(t *testing.T) {
	// not parallel: it sets TMPDIR, to see the spool leaves nothing there
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	inputs(t, dir)
	outDir := t.TempDir()
	o, err := Parse([]string{"-y", "-s", "gpt", "-p", "efi:-cat a; echo to-stderr >&2; head -c 5000000 /dev/zero | tr '\\0' x"})
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	o.Dir, o.Stderr = dir, &stderr
	out := filepath.Join(outDir, "disk.img")
	if err := WriteFile(out, o); err != nil {
		t.Fatal(err)
	}
	disk, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "a"))
	part := disk[34*512:]
	if !bytes.Equal(part[:len(a)], a) || bytes.Count(part[len(a):len(a)+5000000], []byte("x")) != 5000000 {
		t.Error("the partition does not hold the command's output, contiguously")
	}
	if stderr.String() != "to-stderr\n" {
		t.Errorf("the command's standard error gave %q", stderr.String())
	}
	for _, d := range []string{tmp, outDir} {
		entries, _ := os.ReadDir(d)
		if d == outDir && len(entries) == 1 {
			continue // the disk
		}
		if len(entries) != 0 {
			t.Errorf("%s holds %d files", d, len(entries))
		}
	}
}

// TestPipePartition checks that a := file that is not a regular file, a
// named pipe, is read to its end.
func TestPipePartition(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	tooltest.Mkfifo(t, fifo)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			f.Write(bytes.Repeat([]byte("p"), 3000))
			f.Close()
		}
	}()
	disk := mustBuild(t, &Options{Scheme: "mbr", Partitions: []Partition{{Type: "freebsd", File: fifo}}, FreeBSDTestMode: true})
	if len(disk) != 512+6*512 || bytes.Count(disk[512:], []byte("p")) != 3000 {
		t.Errorf("a disk of %d bytes, not the pipe's 3000 bytes after LBA 0", len(disk))
	}
}

// TestDerivedGUIDsOffsets checks the derivation rule with partitions out
// of disk order and with a capacity: the same inputs give the same disk,
// and the capacity, which moves the backup GPT, changes the GUIDs.
func TestDerivedGUIDsOffsets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	args := strings.Fields("-s gpt -c 4m -p freebsd-ufs:=b:2m -p efi:=a:1m")
	first := mustBuild(t, parseIn(t, dir, args))
	if !bytes.Equal(first, mustBuild(t, parseIn(t, dir, args))) {
		t.Fatal("two builds of the same inputs differ")
	}
	bigger := mustBuild(t, parseIn(t, dir, strings.Fields("-s gpt -c 5m -p freebsd-ufs:=b:2m -p efi:=a:1m")))
	g1, g2 := gptGUIDs(t, first, 2), gptGUIDs(t, bigger, 2)
	for i := range g1 {
		if g1[i] == g2[i] {
			t.Errorf("GUID %d is the same for a 4 MiB and a 5 MiB disk", i)
		}
	}
}

// TestSplitFile checks Partition.SplitFile, the split a build tool uses
// to list a disk's files.
func TestSplitFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	a := filepath.Join(dir, "a")
	for in, want := range map[string]Partition{
		a:             {File: a},
		a + ":1m":     {File: a, Offset: 1 << 20, Absolute: true},
		a + ":+0x200": {File: a, Offset: 512},
		a + ":zz":     {File: a + ":zz"},
		dir + ":1/a":  {File: dir + ":1/a"},
		a + ":1m:+2k": {File: a + ":1m", Offset: 2048},
		"":            {},
	} {
		if got := (Partition{File: in}).SplitFile(); got != want {
			t.Errorf("SplitFile(%q) = %+v, want %+v", in, got, want)
		}
	}
}
