package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	diskfs "github.com/diskfs/go-diskfs"
	"github.com/diskfs/go-diskfs/disk"
	"github.com/diskfs/go-diskfs/filesystem"
	"github.com/diskfs/go-diskfs/filesystem/iso9660"
)

// ISO 9660 contenders, all with Rock Ridge and the same fixed time:
// FreeBSD's makefs -t cd9660 (the port CI builds), Debian's makefs
// -t cd9660 (NetBSD's), xorriso -as mkisofs, and go-diskfs. fixturegen's
// own row is in contenders_cd9660_fixturegen.go.

const (
	isoTimestamp     = 1600000000
	freebsdISOName   = "FreeBSD makefs -t cd9660 -o rockridge"
	xorrisoISOName   = "xorriso -as mkisofs -R"
	isoFileName      = "cd.iso"
	diskfsISOName    = "go-diskfs iso9660 RockRidge (hard-linked workspace)"
	debianISOName    = "Debian makefs -t cd9660 -o rockridge"
	isoSizeAllowance = 1 << 20
)

func init() {
	register(contender{Name: freebsdISOName, Available: have("freebsd-makefs"),
		Run: makefsISO("freebsd-makefs")})
	register(contender{Name: debianISOName, Available: have("makefs"),
		Run: makefsISO("makefs")})
	register(contender{Name: xorrisoISOName, Available: have("xorriso"), Run: xorrisoISO})
	comparePeer(diskfsISOName, xorrisoISOName, "xorriso")
	register(contender{Name: diskfsISOName, Available: have("cp"), Run: diskfsISO})
}

// have reports whether the program name is on PATH.
func have(name string) func() bool {
	return func() bool { _, err := exec.LookPath(name); return err == nil }
}

// makefsISO runs a makefs(8) program on the tree.
func makefsISO(prog string) func(tree, outdir string) error {
	return func(tree, outdir string) error {
		return runTool(prog, "-t", "cd9660", "-T", fmt.Sprint(isoTimestamp), "-o", "rockridge",
			filepath.Join(outdir, isoFileName), tree)
	}
}

// xorrisoISO runs xorriso's mkisofs emulation with Rock Ridge and a fixed
// time for every date it writes.
func xorrisoISO(tree, outdir string) error {
	return runTool("xorriso", "-as", "mkisofs", "-quiet", "-R",
		"--set_all_file_dates", fmt.Sprint(isoTimestamp),
		"-o", filepath.Join(outdir, isoFileName), tree)
}

// diskfsISO builds the image with go-diskfs, whose Finalize lays out the
// files of a workspace directory and then removes it: the workspace is a
// hard-linked copy of the tree (cp -al), so no file data is copied ahead
// of the build and the tree itself survives.
func diskfsISO(tree, outdir string) error {
	ws := filepath.Join(outdir, "workspace")
	if err := runTool("cp", "-al", tree, ws); err != nil {
		return err
	}
	size, err := treeBytes(tree)
	if err != nil {
		return err
	}
	d, err := diskfs.Create(filepath.Join(outdir, isoFileName), size*2+isoSizeAllowance, diskfs.SectorSize(2048))
	if err != nil {
		return err
	}
	defer d.Close()
	d.LogicalBlocksize = 2048
	fsys, err := d.CreateFilesystem(disk.FilesystemSpec{Partition: 0, FSType: filesystem.TypeISO9660, WorkDir: ws})
	if err != nil {
		return err
	}
	iso, ok := fsys.(*iso9660.FileSystem)
	if !ok {
		return fmt.Errorf("go-diskfs: not an iso9660 file system")
	}
	return iso.Finalize(iso9660.FinalizeOptions{RockRidge: true, DeepDirectories: true})
}

// treeBytes is the total size of the regular files under tree.
func treeBytes(tree string) (int64, error) {
	var n int64
	err := filepath.Walk(tree, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return err
	})
	return n, err
}

// runTool runs a program and returns its output in the error when it fails.
func runTool(prog string, args ...string) error {
	if out, err := exec.Command(prog, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", prog, err, out)
	}
	return nil
}
