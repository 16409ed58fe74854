// Command fixturegen builds test fixtures byte for byte as their reference
// tools do, and reproducibly: FAT, FFS (UFS1, UFS2) and ISO 9660 images as
// FreeBSD's makefs(8), ext2, ext3 and ext4 images as e2fsprogs' mke2fs -d,
// partitioned disks (APM, BSD, EBR, GPT, MBR, VTOC8; raw, qcow, qcow2,
// VHD, VHDX, VMDK) as FreeBSD's mkimg(1), ar archives as ar(1) and cpio
// archives as GNU cpio. ls, cat and diff read them all back.
//
// Usage:
//
//	fixturegen <command> [arguments]
//
// The commands are:
//
//	makefs   a file system image from a directory tree, with the command line of makefs(8)
//	mke2fs   an ext2, ext3 or ext4 image, with the command line of mke2fs(8)
//	         (also as mkfs.ext2, mkfs.ext3 and mkfs.ext4)
//	mkimg    a partitioned disk image, with the command line of mkimg(1)
//	ar       create and edit an archive, with the command line of ar(1)
//	ranlib   write an archive's symbol index
//	cpio     create, list and extract cpio archives, with the command line of GNU cpio
//	build    build a fixture catalogue (fixtures/manifest) and check fixtures.sum
//	verify   rebuild a catalogue in a temporary directory and compare
//	diff     say how two images or archives differ, field by field
//	ls       list the files of an image or archive
//	cat      print files from an image or archive
//	version  print fixturegen's version
//	help     show the usage of a command
//
// Run "fixturegen help <command>" for the details of one.
//
// An error prints one line "fixturegen: ..." on standard error and exits
// with status 1; a command line that cannot be parsed (an unknown option,
// makefs -t type or -o key, a bad value, a missing operand) exits with
// status 2 and prints that line and the command's usage.
//
// Install it as a tool of your module with
//
//	go get -tool github.com/fixturegen/fixturegen/cmd/fixturegen
//
// and run it as "go tool fixturegen". Inside testscript scenarios,
// fixturetest.Main runs the same command without a separate build.
package main

import (
	"os"

	"github.com/fixturegen/fixturegen/internal/cli"
)

func main() {
	os.Exit(cli.Main())
}
