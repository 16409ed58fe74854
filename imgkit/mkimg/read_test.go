package mkimg_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt/imgfmttest"
	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/imgkit/mkimg"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// stamp is the -T time of the test file systems.
var stamp = time.Unix(1600000000, 0).UTC()

// fatImage builds a 1440 KiB FAT image holding EFI/BOOT/HELLO.TXT with
// hello as its contents.
func fatImage(t *testing.T, hello string) []byte {
	t.Helper()
	src := fstest.MapFS{
		"EFI":                {Mode: fs.ModeDir | 0o755},
		"EFI/BOOT":           {Mode: fs.ModeDir | 0o755},
		"EFI/BOOT/HELLO.TXT": {Data: []byte(hello), Mode: 0o644},
	}
	const size = 1440 << 10
	b, err := msdos.Build(fstree.FS(src), &msdos.Options{Size: size, MinSize: size, MaxSize: size, Timestamp: stamp})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ufsImage builds a UFS1 image holding etc/motd.
func ufsImage(t *testing.T) []byte {
	t.Helper()
	src := fstest.MapFS{
		"etc":      {Mode: fs.ModeDir | 0o755},
		"etc/motd": {Data: []byte("welcome\n"), Mode: 0o644},
	}
	b, err := ffs.Build(fstree.FS(src), &ffs.Options{Timestamp: stamp})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeFile writes b to dir/name and returns the path.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// diskWith writes a disk of scheme holding the FAT image fat as slot 1,
// the UFS image ufs as slot 2 (ufsType its type), an unused slot 3 and an
// empty partition of 64 KiB as slot 4, with FreeBSD's test-mode GUIDs,
// and returns its path.
func diskWith(t *testing.T, dir, scheme, ufsType, label string, fat, ufs []byte) string {
	t.Helper()
	efi := mkimg.Partition{Type: "efi", Label: label, File: writeFile(t, dir, "fat.img", fat)}
	if scheme == "mbr" {
		efi = mkimg.Partition{Type: "fat32", File: efi.File}
	}
	o := &mkimg.Options{
		Scheme: scheme,
		Partitions: []mkimg.Partition{
			efi,
			{Type: ufsType, File: writeFile(t, dir, "ufs.img", ufs)},
			{Unused: true},
			{Type: "freebsd-swap", Size: 64 << 10},
		},
		FreeBSDTestMode: true,
	}
	if scheme == "mbr" {
		o.Partitions[3].Type = "freebsd"
	}
	img := filepath.Join(dir, "disk.img")
	if err := mkimg.WriteFile(img, o); err != nil {
		t.Fatal(err)
	}
	return img
}

// TestReadBack checks that disks the writer makes read back: the table's
// slots, types, labels and GUIDs, each partition's section equal to its
// input file, and the files of the FAT and UFS file systems inside
// through PartitionFS and the disk's FS.
func TestReadBack(t *testing.T) {
	t.Parallel()
	fat, ufs := fatImage(t, "hello\n"), ufsImage(t)
	for _, tc := range []struct{ scheme, ufsType, fatType, label string }{
		{"gpt", "freebsd-ufs", "efi", "ESP"},
		{"mbr", "freebsd", "fat32", ""},
	} {
		t.Run(tc.scheme, func(t *testing.T) {
			t.Parallel()
			img := diskWith(t, t.TempDir(), tc.scheme, tc.ufsType, tc.label, fat, ufs)
			d, err := mkimg.OpenReader(img)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			tab := d.Table()
			if tab.Scheme != tc.scheme || tab.SectorSize != 512 || len(tab.Partitions) != 3 || len(tab.Problems) != 0 {
				t.Fatalf("table %s, %d-byte sectors, %d partitions, problems %q", tab.Scheme, tab.SectorSize, len(tab.Partitions), tab.Problems)
			}
			want := []struct {
				index int
				typ   string
				label string
				data  []byte
			}{{1, tc.fatType, tc.label, fat}, {2, tc.ufsType, "", ufs}, {4, map[string]string{"gpt": "freebsd-swap", "mbr": "freebsd"}[tc.scheme], "", make([]byte, 64<<10)}}
			for i, w := range want {
				e := tab.Partitions[i]
				if e.Index != w.index || e.Type != w.typ || e.Label != w.label {
					t.Errorf("partition %d: index %d type %q label %q, want %d %q %q", i, e.Index, e.Type, e.Label, w.index, w.typ, w.label)
				}
				if n := strings.Repeat("0"+string(rune('1'+i)), 2); tc.scheme == "gpt" && e.GUID != n+n+"-"+n+"-"+n+"-"+n+"-"+n+n+n {
					t.Errorf("partition %d: GUID %s, want FreeBSD's test-mode counter %d", e.Index, e.GUID, i+1)
				}
				sec, err := d.Partition(e.Index)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(sec)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) < len(w.data) || !bytes.Equal(got[:len(w.data)], w.data) || strings.Trim(string(got[len(w.data):]), "\x00") != "" {
					t.Errorf("partition %d: %d bytes that are not the input's %d", e.Index, len(got), len(w.data))
				}
			}
			if _, err := d.Partition(3); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Partition(3) of an unused slot: %v", err)
			}

			pfs, kind, err := d.PartitionFS(1, inspect.Detect)
			if err != nil || kind.Name != "msdos" {
				t.Fatalf("PartitionFS(1): %v, %v", kind, err)
			}
			if b, err := fs.ReadFile(pfs, "EFI/BOOT/HELLO.TXT"); string(b) != "hello\n" {
				t.Errorf("partition 1's HELLO.TXT: %q, %v", b, err)
			}
			if _, _, err := d.PartitionFS(4, inspect.Detect); !errors.Is(err, mkimg.ErrNoFS) {
				t.Errorf("PartitionFS(4) of an empty partition: %v, want ErrNoFS", err)
			}

			dfs := d.FS(inspect.Detect)
			if err := fstest.TestFS(dfs, "p1/EFI/BOOT/HELLO.TXT", "p2/etc/motd", "p4"); err != nil {
				t.Error(err)
			}
			if b, err := fs.ReadFile(dfs, "p2/etc/motd"); string(b) != "welcome\n" {
				t.Errorf("p2/etc/motd: %q, %v", b, err)
			}
			if fi, err := fs.Stat(dfs, "p4"); err != nil || !fi.Mode().IsRegular() || fi.Size() != 64<<10 {
				t.Errorf("p4: %v, %v, want a regular file of 64 KiB", fi, err)
			}
			if _, err := fs.Stat(dfs, "p3"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("p3 of an unused slot: %v", err)
			}
		})
	}
}

// TestListDisk checks that inspect lists a disk through the registry: a
// line per partition with its scheme, type, label, start and size, and
// the files inside with their format's column.
func TestListDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	img := diskWith(t, dir, "gpt", "freebsd-ufs", "ESP", fatImage(t, "hello\n"), ufsImage(t))
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := inspect.ListFile(&out, bytes.NewReader(b), int64(len(b))); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`dr-xr-xr-x     0 1970-01-01 00:00:00 gpt efi "ESP" start=17408 size=1474560 type=c12a7328-f81f-11d2-ba4b-00a0c93ec93b guid=01010101-0101-0101-0101-010101010101 `,
		" HELLO.TXT ",
		" p1/EFI/BOOT/HELLO.TXT\n",
		"gpt freebsd-ufs start=1491968 ",
		" p2/etc/motd\n",
		"-r--r--r-- 65536 1970-01-01 00:00:00 gpt freebsd-swap start=",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("listing lacks %q:\n%s", want, out.String())
		}
	}
}

// gptPatch changes a GPT disk in place with change, then makes both
// headers' PartitionEntryArrayCRC32 and HeaderCRC32 right again, as a
// tool editing the table would.
func gptPatch(t *testing.T, disk []byte, change func(entries []byte)) {
	t.Helper()
	const sec = 512
	last := len(disk)/sec - 1
	for _, lba := range []int{1, last} {
		h := disk[lba*sec:][:92]
		alba := int(binary.LittleEndian.Uint64(h[72:]))
		n := int(binary.LittleEndian.Uint32(h[80:]) * binary.LittleEndian.Uint32(h[84:]))
		arr := disk[alba*sec:][:n]
		change(arr)
		binary.LittleEndian.PutUint32(h[88:], crc32.ChecksumIEEE(arr))
		clear(h[16:20])
		binary.LittleEndian.PutUint32(h[16:], crc32.ChecksumIEEE(h))
	}
}

// TestDiffDisks checks that diff compares two disks by the scheme's
// fields and then inside the partitions: one partition's GUID, one label,
// one file inside the FAT partition.
func TestDiffDisks(t *testing.T) {
	t.Parallel()
	fat, ufs := fatImage(t, "hello\n"), ufsImage(t)
	base, err := os.ReadFile(diskWith(t, t.TempDir(), "gpt", "freebsd-ufs", "ESP", fat, ufs))
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	guid := bytes.Clone(base)
	gptPatch(t, guid, func(e []byte) { e[128+16] ^= 0xff })
	for _, tc := range []struct {
		name  string
		other []byte
		want  []string
	}{
		{"guid", guid, []string{
			"GPT partition entry 2: UniquePartitionGUID at byte 0x490: 02020202-0202-0202-0202-020202020202 -> 020202fd-0202-0202-0202-020202020202",
			"GPT header: PartitionEntryArrayCRC32 at byte 0x258",
			"GPT header: HeaderCRC32 at byte 0x210",
			"backup GPT header: HeaderCRC32 at byte ",
		}},
		{"label", read(diskWith(t, t.TempDir(), "gpt", "freebsd-ufs", "EFI", fat, ufs)), []string{
			`GPT partition entry 1: PartitionName at byte 0x438: "ESP" -> "EFI"`,
		}},
		{"file", read(diskWith(t, t.TempDir(), "gpt", "freebsd-ufs", "ESP", fatImage(t, "hellp\n"), ufs)), []string{
			"/p1/EFI/BOOT/HELLO.TXT: data: 6 bytes, sha256:5891b5b522d5df08 -> 6 bytes, sha256:",
			"first differ at byte 4 of the file",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep, err := inspect.Diff(bytes.NewReader(base), int64(len(base)), bytes.NewReader(tc.other), int64(len(tc.other)))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := rep.Write(&out, "a.img", "b.img"); err != nil {
				t.Fatal(err)
			}
			if rep.FormatA != "disk" || rep.FormatB != "disk" {
				t.Errorf("formats %q and %q, want disk", rep.FormatA, rep.FormatB)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("diff lacks %q:\n%s", w, out.String())
				}
			}
			if strings.Contains(out.String(), "outside the fields") {
				t.Errorf("diff has bytes no field explains:\n%s", out.String())
			}
		})
	}
}

// FuzzOpenDisk checks that the whole reader never panics: the table, the
// disk's FS walked and every file read, its fields and its warnings.
// Besides testdata/fuzz it is seeded with small GPT and MBR disks, whole
// and cut short, and an MBR whose FreeBSD slice holds a BSD label with
// absolute offsets (util-linux's dos+bsd.img's shape).
func FuzzOpenDisk(f *testing.F) {
	imgfmttest.NoMinimize(f) // the seeds are disk images
	for _, scheme := range []string{"gpt", "mbr"} {
		b, err := mkimg.Build(&mkimg.Options{Scheme: scheme, Partitions: []mkimg.Partition{{Type: "efi", Size: 2048}, {Type: "freebsd", Size: 512}}, FreeBSDTestMode: true})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)-1024])
	}
	inner, err := mkimg.Build(&mkimg.Options{Scheme: "bsd", Partitions: []mkimg.Partition{{Type: "freebsd-ufs", Size: 1024}, {Type: "freebsd-swap", Size: 512}}})
	if err != nil {
		f.Fatal(err)
	}
	disk, err := mkimg.Build(&mkimg.Options{Scheme: "mbr", Partitions: []mkimg.Partition{{Type: "fat32", Size: 512}, {Type: "freebsd", Source: mkimg.ReaderSource(bytes.NewReader(inner), int64(len(inner)))}}})
	if err != nil {
		f.Fatal(err)
	}
	start := binary.LittleEndian.Uint32(disk[0x1be+16+8:])
	makeAbsolute(disk[int64(start)*512:], start)
	f.Add(disk)
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		mkimg.Match(b)
		d, err := mkimg.NewReader(r, int64(len(b)))
		if err != nil {
			imgfmttest.CheckFormatError(t, err, int64(len(b)), "", mkimg.ErrFormat)
			return
		}
		fsys := d.FS(inspect.Detect)
		fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() {
				fs.ReadFile(fsys, p)
			}
			return nil
		})
		mkimg.Fields(r, int64(len(b)), inspect.Detect)
		describe.Warnings(fsys)
	})
}

// TestRead4096 checks that a GPT of 4096-byte sectors is found with that
// sector size, its FAT partition opened.
func TestRead4096(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fat := fatImage(t, "big sectors\n")
	b, err := mkimg.Build(&mkimg.Options{Scheme: "gpt", SectorSize: 4096, Partitions: []mkimg.Partition{{Type: "efi", File: writeFile(t, dir, "fat.img", fat)}}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := mkimg.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if tab := d.Table(); tab.SectorSize != 4096 || len(tab.Partitions) != 1 || tab.Partitions[0].Start != 6*4096 || len(tab.Problems) != 0 {
		t.Fatalf("table: %d-byte sectors, %+v, problems %q", tab.SectorSize, tab.Partitions, tab.Problems)
	}
	if got, err := fs.ReadFile(d.FS(inspect.Detect), "p1/EFI/BOOT/HELLO.TXT"); string(got) != "big sectors\n" {
		t.Errorf("p1/EFI/BOOT/HELLO.TXT: %q, %v", got, err)
	}
}

// TestNestedDisk checks that a partition holding a disk of its own (a GPT
// partition of type mbr holding an MBR disk) opens as that disk, one
// directory level deeper.
func TestNestedDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inner, err := mkimg.Build(&mkimg.Options{Scheme: "mbr", Partitions: []mkimg.Partition{{Type: "fat32", File: writeFile(t, dir, "fat.img", fatImage(t, "inner\n"))}}})
	if err != nil {
		t.Fatal(err)
	}
	outer, err := mkimg.Build(&mkimg.Options{Scheme: "gpt", Partitions: []mkimg.Partition{{Type: "mbr", File: writeFile(t, dir, "inner.img", inner)}}})
	if err != nil {
		t.Fatal(err)
	}
	fsys, kind, err := inspect.Open(bytes.NewReader(outer), int64(len(outer)))
	if err != nil || kind.Name != mkimg.DiskFormatName {
		t.Fatalf("inspect.Open: %v, %v", kind, err)
	}
	if got, err := fs.ReadFile(fsys, "p1/p1/EFI/BOOT/HELLO.TXT"); string(got) != "inner\n" {
		t.Errorf("p1/p1/EFI/BOOT/HELLO.TXT: %q, %v", got, err)
	}
	fields, err := mkimg.Fields(bytes.NewReader(outer), int64(len(outer)), inspect.Detect)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range fields {
		found = found || (f.Path == "p1: MBR partition record 1" && f.Name == "OSType" && f.Value == "0x0b")
	}
	if !found {
		t.Error("no field p1: MBR partition record 1 OSType 0x0b")
	}
}

// TestPartitionAtDiskStart checks that a partition at sector 0, which
// holds the table that lists it (a BSD partition or a Sun slice there, as
// their schemes allow), is shown as a file, not as its own disk nested
// in itself, by FS and by Fields.
func TestPartitionAtDiskStart(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{"bsd", "vtoc8"} {
		disk, err := mkimg.Build(&mkimg.Options{Scheme: scheme, Partitions: []mkimg.Partition{{Type: "freebsd-ufs", Size: 1 << 20, Absolute: true}}})
		if err != nil {
			t.Fatal(err)
		}
		fsys, _, err := inspect.Open(bytes.NewReader(disk), int64(len(disk)))
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := fs.Stat(fsys, "p1"); err != nil || fi.IsDir() {
			t.Errorf("%s: p1 is %v (%v), want a file", scheme, fi, err)
		}
		fields, err := mkimg.Fields(bytes.NewReader(disk), int64(len(disk)), inspect.Detect)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fields {
			if strings.HasPrefix(f.Path, "p1: ") {
				t.Errorf("%s: field %s %s: p1 read as a disk", scheme, f.Path, f.Name)
				break
			}
		}
	}
}

// TestDiffMBR checks that diff names an MBR's fields: the active slot's
// BootIndicator and a slot's OSType.
func TestDiffMBR(t *testing.T) {
	t.Parallel()
	disk := func(active int, typ string) []byte {
		b, err := mkimg.Build(&mkimg.Options{Scheme: "mbr", Active: active, Partitions: []mkimg.Partition{{Type: "freebsd", Size: 4096}, {Type: typ, Size: 4096}}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := disk(1, "fat32"), disk(2, "ntfs")
	rep, err := inspect.Diff(bytes.NewReader(a), int64(len(a)), bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Write(&out, "a.img", "b.img")
	for _, w := range []string{
		"MBR partition record 1: BootIndicator at byte 0x1be: 0x80 -> 0x00\n",
		"MBR partition record 2: BootIndicator at byte 0x1ce: 0x00 -> 0x80\n",
		"MBR partition record 2: OSType at byte 0x1d2: 0x0b -> 0x07\n",
	} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("diff lacks %q:\n%s", w, out.String())
		}
	}
}

// TestReadCutNested checks that a partition of a disk nested in a
// partition cut short (a BSD label in an MBR slice that runs past the
// image's end) is, as a file of the disk's fs.FS, the bytes the image
// holds of it, as a partition of the outer disk is: its table's size
// could be anything, and fs.ReadFile sizes its buffer by it.
func TestReadCutNested(t *testing.T) {
	t.Parallel()
	inner, err := mkimg.Build(&mkimg.Options{Scheme: "bsd", Partitions: []mkimg.Partition{{Type: "freebsd-ufs", Size: 64 << 10}, {Type: "freebsd-swap", Size: 64 << 10}}})
	if err != nil {
		t.Fatal(err)
	}
	disk, err := mkimg.Build(&mkimg.Options{Scheme: "mbr", Partitions: []mkimg.Partition{{Type: "fat32", Size: 512}, {Type: "freebsd", Source: mkimg.ReaderSource(bytes.NewReader(inner), int64(len(inner)))}}})
	if err != nil {
		t.Fatal(err)
	}
	label, err := mkimg.NewReader(bytes.NewReader(inner), int64(len(inner)))
	if err != nil {
		t.Fatal(err)
	}
	slice := int64(binary.LittleEndian.Uint32(disk[0x1be+16+8:])) * 512
	swap := label.Table().Partitions[1]
	cut := disk[:slice+swap.Start+4096] // 4 KiB of the swap partition
	d, err := mkimg.NewReader(bytes.NewReader(cut), int64(len(cut)))
	if err != nil {
		t.Fatal(err)
	}
	fi, err := fs.Stat(d.FS(inspect.Detect), "p2/p2")
	if err != nil || fi.Size() != 4096 {
		t.Errorf("p2/p2 of the cut disk: %v, %v; want the 4096 bytes there", fi, err)
	}
}
