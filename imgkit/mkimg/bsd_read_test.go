package mkimg_test

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/imgkit/mkimg"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// The BSD disklabel's layout (sys/sys/disk/bsd.h), for tests that write
// a label's bytes themselves: the label sits in the second 512-byte
// sector; d_checksum, d_npartitions and d_partitions are at these bytes
// of it, and each d_partitions entry holds p_size, then p_offset.
const (
	labelAt      = 512
	dChecksum    = 136
	dNpartitions = 138
	dPartitions  = 148
	partSize     = 16
	rawPart      = 2 // 'c'
)

// makeAbsolute rewrites the BSD label at the start of slice (the bytes of
// an MBR slice starting at sector start) as older FreeBSD, NetBSD and
// OpenBSD write one: every used entry's p_offset, the raw partition's
// too, counted from the disk's start, and d_checksum made again.
func makeAbsolute(slice []byte, start uint32) {
	label := slice[labelAt:]
	n := int(binary.LittleEndian.Uint16(label[dNpartitions:]))
	for i := range n {
		e := label[dPartitions+partSize*i:]
		if i == rawPart || binary.LittleEndian.Uint32(e) != 0 {
			binary.LittleEndian.PutUint32(e[4:], binary.LittleEndian.Uint32(e[4:])+start)
		}
	}
	binary.LittleEndian.PutUint16(label[dChecksum:], 0)
	var sum uint16
	for i := 0; i < dPartitions+n*partSize; i += 2 {
		sum ^= binary.LittleEndian.Uint16(label[i:])
	}
	binary.LittleEndian.PutUint16(label[dChecksum:], sum)
}

// bsdInMBR builds an MBR disk whose second slice (freebsd) holds a bsd
// disk: a FAT image holding EFI/BOOT/HELLO.TXT in its slot 1 ('a') and
// 64 KiB of swap in slot 2 ('b'). It returns the disk and the slice's
// first sector.
func bsdInMBR(t *testing.T, hello string) ([]byte, uint32) {
	t.Helper()
	dir := t.TempDir()
	inner, err := mkimg.Build(&mkimg.Options{Scheme: "bsd", Partitions: []mkimg.Partition{
		{Type: "freebsd-ufs", File: writeFile(t, dir, "fat.img", fatImage(t, hello))},
		{Type: "freebsd-swap", Size: 64 << 10},
	}})
	if err != nil {
		t.Fatal(err)
	}
	disk, err := mkimg.Build(&mkimg.Options{Scheme: "mbr", Partitions: []mkimg.Partition{
		{Type: "fat32", Size: 128 << 10},
		{Type: "freebsd", File: writeFile(t, dir, "bsd.img", inner)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return disk, binary.LittleEndian.Uint32(disk[0x1be+16+8:])
}

// checkBSDSlice checks that the disk's slice 2 opens as its BSD label's
// partitions: p2/p1 the FAT file system holding hello, p2/p2 the swap.
func checkBSDSlice(t *testing.T, disk []byte, hello string) {
	t.Helper()
	fsys, kind, err := inspect.Open(bytes.NewReader(disk), int64(len(disk)))
	if err != nil || kind.Name != mkimg.DiskFormatName {
		t.Fatalf("inspect.Open: %v, %v", kind, err)
	}
	if got, err := fs.ReadFile(fsys, "p2/p1/EFI/BOOT/HELLO.TXT"); string(got) != hello {
		t.Errorf("p2/p1/EFI/BOOT/HELLO.TXT: %q, %v", got, err)
	}
	fi, err := fs.Stat(fsys, "p2/p2")
	if err != nil || fi.Size() != 64<<10 || fi.IsDir() {
		t.Errorf("p2/p2: %v, %v; want the 64 KiB swap partition", fi, err)
	}
}

// TestBSDAbsoluteOffsets checks a BSD label inside an MBR slice whose
// offsets count from the disk's start, as util-linux's dos+bsd.img and
// bsd.img hold one: the slice opens as the label's partitions, and the
// slice alone (bsd.img's shape: the raw partition's p_offset is the
// slice's start, so its partitions seem to end past the slice) reads as
// FreeBSD reads it, from the raw partition's p_offset.
func TestBSDAbsoluteOffsets(t *testing.T) {
	t.Parallel()
	disk, start := bsdInMBR(t, "absolute\n")
	slice := disk[int64(start)*512:]
	makeAbsolute(slice, start)
	checkBSDSlice(t, disk, "absolute\n")

	d, err := mkimg.NewReader(bytes.NewReader(slice), int64(len(slice)))
	if err != nil {
		t.Fatalf("the slice alone: %v", err)
	}
	tab := d.Table()
	if tab.Scheme != "bsd" || len(tab.Partitions) != 2 || tab.Partitions[0].Start != 8192 || tab.Partitions[1].Start != 8192+1440<<10 || len(tab.Problems) != 0 {
		t.Errorf("the slice alone: %s %+v, problems %q", tab.Scheme, tab.Partitions, tab.Problems)
	}
}

// TestBSDRelativeOffsets checks a BSD label inside an MBR slice whose
// offsets count from the slice's start, as mkimg and FreeBSD 10 and
// later write one, made by fixturegen and by FreeBSD's mkimg (-s bsd, then
// -s mbr -p freebsd:=bsd.img): the slice opens as the label's partitions.
func TestBSDRelativeOffsets(t *testing.T) {
	t.Parallel()
	disk, _ := bsdInMBR(t, "relative\n")
	checkBSDSlice(t, disk, "relative\n")

	ref := tooltest.Need(t, "freebsd-mkimg")
	dir := t.TempDir()
	fat := writeFile(t, dir, "fat.img", fatImage(t, "freebsd\n"))
	run := func(args ...string) {
		if out, err := exec.Command(ref, args...).CombinedOutput(); err != nil {
			t.Fatalf("freebsd-mkimg %q: %v\n%s", args, err, out)
		}
	}
	bsd, whole := filepath.Join(dir, "bsd.img"), filepath.Join(dir, "disk.img")
	run("-y", "-s", "bsd", "-p", "freebsd-ufs:="+fat, "-p", "freebsd-swap::64k", "-o", bsd)
	run("-y", "-s", "mbr", "-p", "fat32::128k", "-p", "freebsd:="+bsd, "-o", whole)
	b, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	checkBSDSlice(t, b, "freebsd\n")
}
