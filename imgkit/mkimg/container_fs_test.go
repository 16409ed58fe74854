package mkimg_test

import (
	"bytes"
	"io/fs"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/imgkit/mkimg"
)

// TestContainerFileSystemInside checks that a FAT in a partition of a
// disk in each container format reads back through the disk reader and
// through inspect.Open, as fixturegen ls and cat see it.
func TestContainerFileSystemInside(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fat := writeFile(t, dir, "fat.img", fatImage(t, "in a container\n"))
	for _, format := range []string{"qcow", "qcow2", "vhd", "vhdf", "vhdx", "vmdk", "vmdks"} {
		b, err := mkimg.Build(&mkimg.Options{Scheme: "gpt", Format: format, Partitions: []mkimg.Partition{{Type: "efi", File: fat}, {Type: "freebsd-swap", Size: 1 << 20}}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := mkimg.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if n := len(d.Table().Partitions); n != 2 {
			t.Errorf("%s: %d partitions; want 2", format, n)
		}
		checkFATInside(t, format, d, b, "in a container\n")
	}
}

// checkFATInside checks that p1/EFI/BOOT/HELLO.TXT of the container b of
// format, whose disk d holds fatImage's FAT in its first partition, holds
// hello through d's FS and through inspect.Open of b.
func checkFATInside(t *testing.T, format string, d *mkimg.Disk, b []byte, hello string) {
	t.Helper()
	if got, err := fs.ReadFile(d.FS(inspect.Detect), "p1/EFI/BOOT/HELLO.TXT"); string(got) != hello {
		t.Errorf("%s: p1/EFI/BOOT/HELLO.TXT: %q, %v", format, got, err)
	}
	fsys, kind, err := inspect.Open(bytes.NewReader(b), int64(len(b)))
	if err != nil || kind.Name != mkimg.DiskFormatName {
		t.Fatalf("%s: inspect.Open: %v, %v", format, kind, err)
	}
	if got, err := fs.ReadFile(fsys, "p1/EFI/BOOT/HELLO.TXT"); string(got) != hello {
		t.Errorf("%s: inspect: p1/EFI/BOOT/HELLO.TXT: %q, %v", format, got, err)
	}
}
