package mkimg_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/imgkit/mkimg"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// sgdiskDisk makes an 8 MiB GPT with sgdisk: an EFI system partition
// holding a FAT image, a FreeBSD UFS partition and a Linux one, with
// labels and fixed GUIDs, and returns its path and bytes.
func sgdiskDisk(t *testing.T) (string, []byte) {
	t.Helper()
	sgdisk := tooltest.Need(t, "sgdisk")
	img := filepath.Join(t.TempDir(), "sg.img")
	if err := os.WriteFile(img, make([]byte, 8<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sgdisk,
		"-U", "dbe3b48d-044d-4961-849e-80d013d70b85",
		"-n", "1:2048:+2M", "-t", "1:ef00", "-c", "1:EFI system", "-u", "1:77f141f5-796c-4cfd-b9f2-dcc906639c94",
		"-n", "2:0:+512K", "-t", "2:a503", "-c", "2:root",
		"-n", "3:0:0", "-t", "3:8300", "-c", "3:linux",
		img).CombinedOutput()
	if err != nil {
		t.Fatalf("sgdisk: %v\n%s", err, out)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	copy(b[2048*512:], fatImage(t, "from sgdisk\n"))
	if err := os.WriteFile(img, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return img, b
}

// TestForeignSgdisk checks that a GPT sgdisk writes (128 entries, the
// first partition at 1 MiB) reads back as sgdisk -p lists it, with the
// FAT file system in its first partition.
func TestForeignSgdisk(t *testing.T) {
	t.Parallel()
	_, b := sgdiskDisk(t)
	d, err := mkimg.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	tab := d.Table()
	if tab.Scheme != "gpt" || len(tab.Partitions) != 3 || len(tab.Problems) != 0 {
		t.Fatalf("table %s with %d partitions, problems %q", tab.Scheme, len(tab.Partitions), tab.Problems)
	}
	want := []mkimg.Entry{
		{Index: 1, Type: "efi", Label: "EFI system", Start: 2048 * 512, Size: 2 << 20, GUID: "77f141f5-796c-4cfd-b9f2-dcc906639c94"},
		{Index: 2, Type: "freebsd-ufs", Label: "root", Start: 6144 * 512, Size: 512 << 10},
		{Index: 3, Type: "linux-data", RawType: "0fc63daf-8483-4772-8e79-3d69d8477de4", Label: "linux", Start: 8192 * 512, Size: (16350 - 8192 + 1) * 512},
	}
	for i, w := range want {
		e := tab.Partitions[i]
		if e.Index != w.Index || e.Type != w.Type || e.Label != w.Label || e.Start != w.Start || e.Size != w.Size || (w.GUID != "" && e.GUID != w.GUID) || (w.RawType != "" && e.RawType != w.RawType) {
			t.Errorf("partition %d: %+v, want %+v", i+1, e, w)
		}
	}
	disk := ""
	for _, f := range tab.Fields {
		if f.Path == "GPT header" && f.Name == "DiskGUID" {
			disk = f.Value
		}
	}
	if disk != "dbe3b48d-044d-4961-849e-80d013d70b85" {
		t.Errorf("DiskGUID %q", disk)
	}
	if got, err := fs.ReadFile(d.FS(inspect.Detect), "p1/EFI/BOOT/HELLO.TXT"); string(got) != "from sgdisk\n" {
		t.Errorf("p1/EFI/BOOT/HELLO.TXT: %q, %v", got, err)
	}
}

// TestCorruptPrimaryGPT checks that a GPT whose primary header fails its
// HeaderCRC32 is read from the backup header, saying so in Problems, and
// that with both headers broken the error names each header's byte.
func TestCorruptPrimaryGPT(t *testing.T) {
	t.Parallel()
	_, b := sgdiskDisk(t)
	b[512+60] ^= 1 // a byte of the primary header's DiskGUID
	d, err := mkimg.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	tab := d.Table()
	if len(tab.Partitions) != 3 || tab.Partitions[1].Label != "root" {
		t.Errorf("table from the backup: %+v", tab.Partitions)
	}
	if p := strings.Join(tab.Problems, "; "); !strings.Contains(p, "primary GPT header at byte 0x200: HeaderCRC32") || !strings.Contains(p, "read the backup header at LBA 16383") {
		t.Errorf("problems %q", p)
	}
	for _, f := range tab.Fields {
		if f.Path == "GPT header" {
			t.Errorf("a field of the broken primary header: %+v", f)
			break
		}
	}
	fsys, kind, err := inspect.Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("inspect.Open of a disk read from its backup header: %v", err)
	}
	if s := kind.Summary(fsys); !strings.Contains(s, "read the backup header") {
		t.Errorf("summary %q does not say the backup header was read", s)
	}

	last := len(b) - 512
	b[last+60] ^= 1
	_, err = mkimg.NewReader(bytes.NewReader(b), int64(len(b)))
	if !errors.Is(err, mkimg.ErrFormat) || !strings.Contains(err.Error(), "primary GPT header at byte 0x200: HeaderCRC32") || !strings.Contains(err.Error(), "backup GPT header at byte 0x7ffe00: HeaderCRC32") {
		t.Errorf("both headers broken: %v", err)
	}
	if _, kind, err := inspect.Open(bytes.NewReader(b), int64(len(b))); kind == nil || kind.Name != mkimg.DiskFormatName || !errors.Is(err, mkimg.ErrFormat) {
		t.Errorf("inspect.Open with both headers broken: %v, %v; want the disk format's ErrFormat", kind, err)
	}
}

// TestForeignSfdisk checks that an MBR sfdisk writes reads back as
// sfdisk -d lists it: a FAT32 (LBA) partition and a bootable FreeBSD
// slice.
func TestForeignSfdisk(t *testing.T) {
	t.Parallel()
	sfdisk := tooltest.Need(t, "sfdisk")
	img := filepath.Join(t.TempDir(), "sf.img")
	if err := os.WriteFile(img, make([]byte, 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sfdisk, "-q", img)
	cmd.Stdin = strings.NewReader("label: dos\nlabel-id: 0x12345678\nstart=2048, size=2048, type=c\nstart=4096, type=a5, bootable\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sfdisk: %v\n%s", err, out)
	}
	d, err := mkimg.OpenReader(img)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tab := d.Table()
	want := []mkimg.Entry{
		{Index: 1, Type: "0x0c", RawType: "0x0c", Start: 2048 * 512, Size: 2048 * 512},
		{Index: 2, Type: "freebsd", RawType: "0xa5", Start: 4096 * 512, Size: 4096 * 512},
	}
	if tab.Scheme != "mbr" || len(tab.Partitions) != len(want) {
		t.Fatalf("table %s with %d partitions", tab.Scheme, len(tab.Partitions))
	}
	for i, w := range want {
		e := tab.Partitions[i]
		if e.Index != w.Index || e.Type != w.Type || e.RawType != w.RawType || e.Start != w.Start || e.Size != w.Size {
			t.Errorf("partition %d: %+v, want %+v", i+1, e, w)
		}
	}
	fields := map[string]string{}
	for _, p := range tab.Partitions {
		for _, f := range p.Fields {
			fields[f.Path+": "+f.Name] = f.Value
		}
	}
	for _, f := range tab.Fields {
		fields[f.Path+": "+f.Name] = f.Value
	}
	for k, v := range map[string]string{
		"MBR: UniqueMBRDiskSignature":           "0x12345678",
		"MBR partition record 2: BootIndicator": "0x80",
		"MBR partition record 1: BootIndicator": "0x00",
		"MBR partition record 2: SizeInLBA":     "4096",
	} {
		if fields[k] != v {
			t.Errorf("%s = %q, want %q", k, fields[k], v)
		}
	}
}
