package mkimg_test

import (
	"bytes"
	"encoding/binary"
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

// bareContainers are the qemu-img convert options of the containers the
// bare file system tests make: every container format the readers open,
// as qemu-img writes it.
var bareContainers = []string{
	"qcow2",
	"qcow2 -c",
	"qcow -c",
	"vpc",
	"vpc subformat=fixed",
	"vhdx",
	"vmdk",
	"vmdk subformat=streamOptimized",
}

// qemuConvert converts the raw image raw with qemu-img to the container
// opts names (a format, then -c or -o options) and returns the
// container's bytes.
func qemuConvert(t *testing.T, qemu, raw, opts string) []byte {
	t.Helper()
	f := strings.Fields(opts)
	img := filepath.Join(t.TempDir(), "disk."+f[0])
	args := []string{"convert", "-O", f[0]}
	for _, o := range f[1:] {
		if o == "-c" {
			args = append(args, o)
		} else {
			args = append(args, "-o", o)
		}
	}
	out, err := exec.Command(qemu, append(args, raw, img)...).CombinedOutput()
	if err != nil && f[0] != "qcow" { // qemu-img 7.2 exits 1 after a complete qcow -c
		t.Fatalf("qemu-img %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestContainerBareFS checks that a container whose disk is a file
// system with no partition table (qemu-img convert of a FAT or UFS
// image) lists, reads and diffs as that file system: inspect.Open gives
// its files, the listing has its format's column, and Diff names the
// file that differs.
func TestContainerBareFS(t *testing.T) {
	t.Parallel()
	qemu := tooltest.Need(t, "qemu-img")
	dir := t.TempDir()
	fat := writeFile(t, dir, "fat.img", fatImage(t, "bare\n"))
	fat2 := writeFile(t, dir, "fat2.img", fatImage(t, "bare too\n"))
	ufs := writeFile(t, dir, "ufs.img", ufsImage(t))
	for _, opts := range bareContainers {
		t.Run(opts, func(t *testing.T) {
			t.Parallel()
			b := qemuConvert(t, qemu, fat, opts)
			fsys, kind, err := inspect.Open(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := fs.ReadFile(fsys, "EFI/BOOT/HELLO.TXT"); string(got) != "bare\n" {
				t.Errorf("EFI/BOOT/HELLO.TXT: %q, %v", got, err)
			}
			var out strings.Builder
			if err := inspect.ListFile(&out, bytes.NewReader(b), int64(len(b))); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "HELLO.TXT EFI/BOOT/HELLO.TXT") {
				t.Errorf("the listing has no FAT short name column:\n%s", out.String())
			}
			// A fixed VHD is the FAT itself, then a footer: it reads as
			// a FAT image.
			if s := kind.Summary(fsys); kind.Name != "msdos" && !strings.Contains(s, "container, no partition table, msdos: FAT12") {
				t.Errorf("summary %q", s)
			}
			b2 := qemuConvert(t, qemu, fat2, opts)
			rep, err := inspect.Diff(bytes.NewReader(b), int64(len(b)), bytes.NewReader(b2), int64(len(b2)))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, c := range rep.Changes {
				found = found || c.Path == "/EFI/BOOT/HELLO.TXT"
			}
			if rep.ParseErrA != nil || !found {
				t.Errorf("Diff: %v, changes %+v; want /EFI/BOOT/HELLO.TXT", rep.ParseErrA, rep.Changes)
			}
			u := qemuConvert(t, qemu, ufs, opts)
			fsys, _, err = inspect.Open(bytes.NewReader(u), int64(len(u)))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := fs.ReadFile(fsys, "etc/motd"); string(got) != "welcome\n" {
				t.Errorf("UFS etc/motd: %q, %v", got, err)
			}
		})
	}
}

// unsupportedImages are 2 MiB disks that begin as a file system the
// readers do not read, each made of the bytes that say which one it is.
func unsupportedImages() map[string][]byte {
	out := map[string][]byte{}
	put := func(name string, change func(b []byte)) {
		b := make([]byte, 2<<20)
		change(b)
		out[name] = b
	}
	le := binary.LittleEndian
	put("an ext2 file system", func(b []byte) { le.PutUint16(b[1024+56:], 0xef53) })
	put("an ext3 file system", func(b []byte) { le.PutUint16(b[1024+56:], 0xef53); le.PutUint32(b[1024+92:], 0x4) })
	put("an ext4 file system", func(b []byte) {
		le.PutUint16(b[1024+56:], 0xef53)
		le.PutUint32(b[1024+92:], 0x4)
		le.PutUint32(b[1024+96:], 0x2|0x40) // filetype, extents
	})
	// An NTFS boot sector: a BPB that a FAT reader would take for its
	// own but for BPB_RsvdSecCnt 0.
	put("an NTFS file system", func(b []byte) {
		copy(b, []byte{0xeb, 0x52, 0x90, 'N', 'T', 'F', 'S', ' ', ' ', ' ', ' ', 0x00, 0x02, 0x08})
		b[21], b[510], b[511] = 0xf8, 0x55, 0xaa
	})
	put("an exFAT file system", func(b []byte) {
		copy(b, []byte{0xeb, 0x76, 0x90, 'E', 'X', 'F', 'A', 'T', ' ', ' ', ' '})
		b[510], b[511] = 0x55, 0xaa
	})
	put("an HFS+ file system", func(b []byte) { copy(b[1024:], "H+\x00\x04") })
	put("a squashfs file system", func(b []byte) { copy(b, "hsqs") })
	put("an XFS file system", func(b []byte) { copy(b, "XFSB") })
	put("a Btrfs file system", func(b []byte) { copy(b[65536+64:], "_BHRfS_M") })
	return out
}

// TestContainerUnsupportedFS checks that a container whose disk is a
// file system fixturegen does not read (dfvfs's ext2.qcow2, vhd and vmdk,
// windows_volume.qcow2's NTFS) is refused with a line naming that file
// system and the container, never as a broken FAT, and that one holding
// neither a table nor a known file system says so.
func TestContainerUnsupportedFS(t *testing.T) {
	t.Parallel()
	qemu := tooltest.Need(t, "qemu-img")
	dir := t.TempDir()
	images := unsupportedImages()
	images["no file system of a known format"] = make([]byte, 2<<20)
	for what, raw := range images {
		file := writeFile(t, dir, strings.ReplaceAll(what, " ", "-")+".img", raw)
		for _, opts := range []string{"qcow2", "vpc", "vhdx", "vmdk"} {
			t.Run(what+" in "+opts, func(t *testing.T) {
				t.Parallel()
				b := qemuConvert(t, qemu, file, opts)
				_, _, err := inspect.Open(bytes.NewReader(b), int64(len(b)))
				format := strings.Replace(opts, "vpc", "vhd", 1)
				if err == nil || !errors.Is(err, mkimg.ErrNoTable) || !strings.Contains(err.Error(), "the "+format+" container holds "+what) {
					t.Errorf("got %v, want an error saying the %s container holds %s", err, format, what)
				}
			})
		}
	}
}

// TestVMDKDescriptorInspect checks that a VMDK whose descriptor is a
// file of its own (qemu-img convert -o subformat=monolithicFlat or
// twoGbMaxExtentSparse), opened as a file as fixturegen ls, cat and diff
// open it, lists the FAT it holds bare and the partitions of a GPT disk,
// and that Diff of two such descriptors names the descriptor's lines and
// the file that differs.
func TestVMDKDescriptorInspect(t *testing.T) {
	t.Parallel()
	qemu := tooltest.Need(t, "qemu-img")
	dir := t.TempDir()
	fat := writeFile(t, dir, "fat.img", fatImage(t, "flat\n"))
	fat2 := writeFile(t, dir, "fat2.img", fatImage(t, "flat too\n"))
	disk := filepath.Join(dir, "disk.img")
	if err := mkimg.WriteFile(disk, &mkimg.Options{Scheme: "gpt", Partitions: []mkimg.Partition{{Type: "efi", File: fat}, {Type: "freebsd-ufs", File: writeFile(t, dir, "ufs.img", ufsImage(t))}}}); err != nil {
		t.Fatal(err)
	}
	open := func(t *testing.T, name string) (*os.File, int64) {
		t.Helper()
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		fi, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		return f, fi.Size()
	}
	convert := func(t *testing.T, sub, raw string) string {
		t.Helper()
		img := filepath.Join(t.TempDir(), "x.vmdk")
		qemuImg := exec.Command(qemu, "convert", "-O", "vmdk", "-o", "subformat="+sub, raw, img)
		if out, err := qemuImg.CombinedOutput(); err != nil {
			t.Fatalf("qemu-img convert: %v\n%s", err, out)
		}
		return img
	}
	for _, sub := range []string{"monolithicFlat", "twoGbMaxExtentSparse"} {
		t.Run(sub, func(t *testing.T) {
			t.Parallel()
			f, size := open(t, convert(t, sub, fat))
			fsys, _, err := inspect.Open(f, size)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := fs.ReadFile(fsys, "EFI/BOOT/HELLO.TXT"); string(got) != "flat\n" {
				t.Errorf("bare FAT: EFI/BOOT/HELLO.TXT: %q, %v", got, err)
			}
			f, size = open(t, convert(t, sub, disk))
			fsys, _, err = inspect.Open(f, size)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := fs.ReadFile(fsys, "p1/EFI/BOOT/HELLO.TXT"); string(got) != "flat\n" {
				t.Errorf("GPT: p1/EFI/BOOT/HELLO.TXT: %q, %v", got, err)
			}
			if got, err := fs.ReadFile(fsys, "p2/etc/motd"); string(got) != "welcome\n" {
				t.Errorf("GPT: p2/etc/motd: %q, %v", got, err)
			}
			a, sizeA := open(t, convert(t, sub, fat))
			b, sizeB := open(t, convert(t, sub, fat2))
			rep, err := inspect.Diff(a, sizeA, b, sizeB)
			if err != nil {
				t.Fatal(err)
			}
			paths := map[string]bool{}
			for _, c := range rep.Changes {
				paths[c.Path+" "+c.Field] = true
			}
			if rep.ParseErrA != nil || !paths["/EFI/BOOT/HELLO.TXT data"] || !paths["VMDK descriptor CID"] {
				t.Errorf("Diff: %v, changes %+v", rep.ParseErrA, rep.Changes)
			}
		})
	}
}
