// Command fixturegen builds test fixtures — FAT, FFS (UFS1 and UFS2) and
// ISO 9660 file system images (makefs -t msdos, ffs and cd9660) and ar
// archives — byte for byte as FreeBSD makefs(8) and ar(1) do, and
// reproducibly; ls, cat and diff read all four formats back.
//
// Usage:
//
//	fixturegen <command> [arguments]
//
// The commands are:
//
//	makefs   a file system image from a directory tree, with the command line of makefs(8)
//	ar       create and edit an archive, with the command line of ar(1)
//	ranlib   write an archive's symbol index
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
