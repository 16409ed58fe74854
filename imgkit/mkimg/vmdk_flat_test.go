package mkimg

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// vmdkDescriptor returns a descriptor file of createType kind whose
// extent lines are extents, as qemu-img writes one.
func vmdkDescriptor(kind string, extents ...string) string {
	return fmt.Sprintf("# Disk DescriptorFile\nversion=1\nCID=12345678\nparentCID=ffffffff\ncreateType=%q\n\n# Extent description\n%s\n\n# The Disk Data Base\n#DDB\n\nddb.virtualHWVersion = \"4\"\nddb.adapterType = \"ide\"\n",
		kind, strings.Join(extents, "\n"))
}

// TestVMDKDescriptorQemu checks that the readers give the raw disk of
// VMDKs whose descriptor is a file of its own, as qemu-img convert -o
// subformat= writes them (monolithicFlat, twoGbMaxExtentFlat,
// twoGbMaxExtentSparse, whose extent is a hosted sparse file): the disk
// qemu-img convert -O raw gives, its GPT and partitions; and that one
// qemu-img create makes reads the disk written into its flat extent.
func TestVMDKDescriptorQemu(t *testing.T) {
	t.Parallel()
	qemu := tooltest.Need(t, "qemu-img")
	dir := t.TempDir()
	inputs(t, dir)
	raw, err := Build(parseIn(t, dir, strings.Fields("-s gpt -p efi:=a -p freebsd-ufs::1m -p freebsd-swap:=c -c 3m")))
	if err != nil {
		t.Fatal(err)
	}
	rawFile := filepath.Join(dir, "disk.raw")
	if err := os.WriteFile(rawFile, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, img string) {
		t.Helper()
		if want := qemuConvertRaw(t, qemu, "vmdk", img); !bytes.Equal(want, raw) {
			t.Fatalf("qemu-img reads %d bytes that are not the raw disk's %d", len(want), len(raw))
		}
		d, err := OpenReader(img)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if tab := d.Table(); tab.Scheme != "gpt" || len(tab.Partitions) != 3 {
			t.Errorf("table %s of %d partitions", tab.Scheme, len(tab.Partitions))
		}
		got := make([]byte, d.Size())
		if _, err := d.r.ReadAt(got, 0); err != nil || !bytes.Equal(got, raw) {
			t.Errorf("the disk (%d bytes, %v) is not the raw disk (%d bytes)", len(got), err, len(raw))
		}
	}
	for _, sub := range []string{"monolithicFlat", "twoGbMaxExtentFlat", "twoGbMaxExtentSparse"} {
		t.Run(sub, func(t *testing.T) {
			t.Parallel()
			img := filepath.Join(t.TempDir(), "disk.vmdk")
			qemuImg(t, qemu, "convert", "-O", "vmdk", "-o", "subformat="+sub, rawFile, img)
			check(t, img)
		})
	}
	t.Run("create", func(t *testing.T) {
		t.Parallel()
		img := filepath.Join(t.TempDir(), "x.vmdk")
		qemuImg(t, qemu, "create", "-f", "vmdk", "-o", "subformat=monolithicFlat", img, fmt.Sprint(len(raw)))
		if err := os.WriteFile(filepath.Join(filepath.Dir(img), "x-flat.vmdk"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, img)
	})
}

// TestVMDKDescriptorRefused checks that a descriptor's extent files are
// read only from the descriptor's folder: an absolute path, "..", a
// symbolic link out of the folder, a missing file, a named pipe (which
// must not block) and a file too short for its extent are each refused
// with a line naming the file and why, as are extent types and delta
// disks the reader does not read (imgkit/vdisk/vmdk's
// TestVMDKDescriptorBytes refuses a descriptor given as bytes).
func TestVMDKDescriptorRefused(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	dir := filepath.Join(top, "in")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, n := range map[string]int{"outside-flat.vmdk": 1 << 20, "in/ok-flat.vmdk": 1 << 20} {
		if err := os.WriteFile(filepath.Join(top, name), make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../outside-flat.vmdk", filepath.Join(dir, "link-flat.vmdk")); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		tooltest.Mkfifo(t, filepath.Join(dir, "fifo-flat.vmdk"))
	}
	for _, tc := range []struct{ name, extent, want string }{
		{"absolute", `RW 2048 FLAT "` + filepath.Join(top, "outside-flat.vmdk") + `" 0`, "an absolute path; extent files are read only from the descriptor's folder"},
		{"dotdot", `RW 2048 FLAT "../outside-flat.vmdk" 0`, `"../outside-flat.vmdk": a path with ".."`},
		{"dotdot inside", `RW 2048 FLAT "x/../ok-flat.vmdk" 0`, `a path with ".."`},
		{"symlink out", `RW 2048 FLAT "link-flat.vmdk" 0`, `"link-flat.vmdk": a symbolic link that leads out of the descriptor's folder`},
		{"missing", `RW 2048 FLAT "nope-flat.vmdk" 0`, `"nope-flat.vmdk": not found in the descriptor's folder`},
		{"fifo", `RW 2048 FLAT "fifo-flat.vmdk" 0`, `"fifo-flat.vmdk": not a regular file (a named pipe)`},
		{"short", `RW 4096 FLAT "ok-flat.vmdk" 0`, `"ok-flat.vmdk": 1048576 bytes, too few for 2097152 bytes from byte 0`},
		{"offset past", `RW 2048 FLAT "ok-flat.vmdk" 1`, "too few for 1048576 bytes from byte 512"},
		{"vmfssparse", `RW 2048 VMFSSPARSE "ok-flat.vmdk"`, "extents of type \"VMFSSPARSE\" are not read"},
		{"noaccess", `NOACCESS 2048 FLAT "ok-flat.vmdk" 0`, "access NOACCESS; want RW or RDONLY"},
		{"no name", `RW 2048 FLAT`, "the extent names no file"},
		{"no quote", `RW 2048 FLAT "ok-flat.vmdk 0`, "no closing quote"},
		{"size", `RW 99999999999999999999 FLAT "ok-flat.vmdk" 0`, "is not a number of sectors"},
		{"none", ``, "the descriptor names no extent"},
		{"sparse not sparse", `RW 2048 SPARSE "ok-flat.vmdk"`, `"ok-flat.vmdk": magic number 0x0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.name == "fifo" && runtime.GOOS == "windows" {
				t.Skip("no named pipes")
			}
			img := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".vmdk")
			if err := os.WriteFile(img, []byte(vmdkDescriptor("monolithicFlat", tc.extent)), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := OpenReader(img)
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v, want one line saying %q", err, tc.want)
			}
		})
	}
	parent := []byte("# Disk DescriptorFile\nparentCID=abcdef01\nRW 2048 FLAT \"ok-flat.vmdk\" 0\n")
	img := filepath.Join(dir, "child.vmdk")
	if err := os.WriteFile(img, parent, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenReader(img); err == nil || !strings.Contains(err.Error(), "parentCID abcdef01: the disk is a delta of a parent disk, which is not read") {
		t.Errorf("a delta disk: %v", err)
	}
}
