package mkimg_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ext"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/mkimg"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// A GPT disk with an EFI system partition made from an fstest.MapFS and a
// UFS partition, each file system written straight into the disk, as
//
//	makefs -t msdos esp.img esp/ && makefs -t ffs ufs.img root/ &&
//	mkimg -s gpt -p efi:=esp.img -p freebsd-ufs:=ufs.img -o disk.img
//
// would make it, without esp.img and ufs.img.
func Example_gpt() {
	dir, err := os.MkdirTemp("", "mkimg-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	esp := fstest.MapFS{
		"EFI/BOOT/BOOTX64.EFI": {Data: []byte("MZ, a boot loader"), Mode: 0o644},
	}
	root := fstest.MapFS{
		"etc/rc.conf": {Data: []byte("hostname=\"fixture\"\n"), Mode: 0o644},
	}
	// The ESP's size is given: FAT32 needs 65525 clusters, which with
	// one-sector clusters is 33 MiB, where the default cluster size
	// would make it 2 GiB (in place, that is mostly holes of disk.img).
	espOpts := &msdos.Options{FATType: 32, Size: 33 << 20, SectorsPerCluster: 1}
	disk := filepath.Join(dir, "disk.img")
	err = mkimg.WriteFile(disk, &mkimg.Options{
		Scheme: "gpt",
		Partitions: []mkimg.Partition{
			{Type: "efi", Label: "ESP", Source: mkimg.MSDOSSource(fstree.FS(esp), espOpts)},
			{Type: "freebsd-ufs", Source: mkimg.FFSSource(fstree.FS(root), &ffs.Options{Version: 2, Size: 8 << 20})},
		},
	})
	if err != nil {
		log.Fatal(err)
	}

	// The first partition starts at LBA 34, after the protective MBR, the
	// GPT header and the 32 sectors of its entry array; the second right
	// after the first.
	f, err := os.Open(disk)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	l, err := msdos.LayoutOf(fstree.FS(esp), espOpts)
	if err != nil {
		log.Fatal(err)
	}
	espStart, ufsStart := int64(34*512), 34*512+l.ImageSize
	fat, err := msdos.NewReader(io.NewSectionReader(f, espStart, l.ImageSize), l.ImageSize)
	if err != nil {
		log.Fatal(err)
	}
	loader, err := fs.ReadFile(fat, "EFI/BOOT/BOOTX64.EFI")
	if err != nil {
		log.Fatal(err)
	}
	ufs, err := ffs.NewReader(io.NewSectionReader(f, ufsStart, 8<<20), 8<<20)
	if err != nil {
		log.Fatal(err)
	}
	rc, err := fs.ReadFile(ufs, "etc/rc.conf")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("ESP at byte %d: FAT%d, BOOTX64.EFI %q\n", espStart, l.FATType, loader)
	fmt.Printf("UFS at byte %d: rc.conf %q\n", ufsStart, rc)
	// Output:
	// ESP at byte 17408: FAT32, BOOTX64.EFI "MZ, a boot loader"
	// UFS at byte 34620416: rc.conf "hostname=\"fixture\"\n"
}

// A Linux GPT disk in one step: an EFI system partition and an ext3 root
// file system typed for x86-64 (the Discoverable Partitions
// Specification's root type, a fixturegen extension), each written
// straight into the disk, as
//
//	makefs -t msdos esp.img esp/ &&
//	SOURCE_DATE_EPOCH=1700000000 mke2fs -t ext3 -d root/ root.img 16M &&
//	mkimg -s gpt -p efi/ESP:=esp.img -p linux-root-x86-64/root:=root.img -o disk.img
//
// would make it, without esp.img and root.img (and with the file system's
// UUID derived from the tree rather than drawn at random).
func Example_linux() {
	dir, err := os.MkdirTemp("", "mkimg-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	esp := fstest.MapFS{
		"EFI/BOOT/BOOTX64.EFI": {Data: []byte("MZ, a boot loader"), Mode: 0o644},
	}
	root := fstest.MapFS{
		"etc/hostname": {Data: []byte("fixture\n"), Mode: 0o644},
	}
	rootOpts := &ext.Options{Type: "ext3", Size: 16 << 20, Timestamp: time.Unix(1700000000, 0), ClampTimes: true}
	disk := filepath.Join(dir, "disk.img")
	err = mkimg.WriteFile(disk, &mkimg.Options{
		Scheme: "gpt",
		Partitions: []mkimg.Partition{
			{Type: "efi", Label: "ESP", Source: mkimg.MSDOSSource(fstree.FS(esp), &msdos.Options{FATType: 16})},
			{Type: "linux-root-x86-64", Label: "root", Source: mkimg.ExtSource(fstree.FS(root), rootOpts)},
		},
	})
	if err != nil {
		log.Fatal(err)
	}

	d, err := mkimg.OpenReader(disk)
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	for _, p := range d.Table().Partitions {
		fmt.Printf("p%d %s %q at byte %d, %d bytes\n", p.Index, p.Type, p.Label, p.Start, p.Size)
	}
	p2, err := d.Partition(2)
	if err != nil {
		log.Fatal(err)
	}
	rootFS, err := ext.NewReader(p2, p2.Size())
	if err != nil {
		log.Fatal(err)
	}
	hostname, err := fs.ReadFile(rootFS, "etc/hostname")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("etc/hostname %q\n", hostname)
	// Output:
	// p1 efi "ESP" at byte 17408, 2124800 bytes
	// p2 linux-root-x86-64 "root" at byte 2142208, 16777216 bytes
	// etc/hostname "fixture\n"
}

// An MBR disk with one active FAT16 slice, from a partition file and boot
// code, as mkimg -s mbr -b boot.bin -p fat16b:=fat.img -o disk.img makes it.
func Example_mbr() {
	dir, err := os.MkdirTemp("", "mkimg-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	fat := filepath.Join(dir, "fat.img")
	err = msdos.WriteFile(fat, fstree.FS(fstest.MapFS{"README.TXT": {Data: []byte("hello\n")}}), &msdos.Options{FATType: 16})
	if err != nil {
		log.Fatal(err)
	}
	boot := filepath.Join(dir, "boot.bin")
	if err := os.WriteFile(boot, []byte{0xeb, 0xfe}, 0o644); err != nil { // jmp $
		log.Fatal(err)
	}
	disk := filepath.Join(dir, "disk.img")
	err = mkimg.WriteFile(disk, &mkimg.Options{
		Scheme:     "mbr",
		Bootcode:   boot,
		Partitions: []mkimg.Partition{{Type: "fat16b", Source: mkimg.FileSource(fat)}},
	})
	if err != nil {
		log.Fatal(err)
	}

	b, err := os.ReadFile(disk)
	if err != nil {
		log.Fatal(err)
	}
	rec := b[446:462] // the first partition record
	fmt.Printf("boot code % x, signature %#04x\n", b[:2], binary.LittleEndian.Uint16(b[510:]))
	fmt.Printf("slice 1: active %#02x, type %#02x, LBA %d, %d sectors\n",
		rec[0], rec[4], binary.LittleEndian.Uint32(rec[8:]), binary.LittleEndian.Uint32(rec[12:]))
	// Output:
	// boot code eb fe, signature 0xaa55
	// slice 1: active 0x80, type 0x06, LBA 1, 4150 sectors
}
