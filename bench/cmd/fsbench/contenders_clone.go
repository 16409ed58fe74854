package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// Cloning contenders: cp --reflink=always -r of the tree (the floor of
// sharing the data instead of copying it, on a file system with shared
// extents), and the fixturegen msdos and ffs rows with block cloning
// turned off (bcache.Options.NoClone), to set beside the rows of
// contenders_msdos.go and contenders_ffs.go, which clone where the file
// system allows it. Run on an XFS or btrfs mount with -mount xfs (or -dir
// on such a mount); elsewhere the noclone rows measure the same copy path
// as the others and cp --reflink=always is skipped.

// benchDir is the directory the trees and outputs are in (-dir, or the
// -mount file system), set by run.
var benchDir string

func init() {
	register(contender{
		Name:      "sanity: cp --reflink=always -r",
		Available: func() bool { return have("cp")() && sharesExtents(benchDir) },
		Run: func(tree, outdir string) error {
			return runTool("cp", "--reflink=always", "-r", tree, filepath.Join(outdir, "copy"))
		},
	})
	msdosName := "fixturegen makefs -t msdos (mmap; NoClone)"
	comparePeer(msdosName, mtoolsName, "mtools")
	register(contender{
		Name: msdosName,
		Run: func(tree, outdir string) error {
			return msdos.WriteFile(filepath.Join(outdir, "fat.img"), fstree.Dir(tree),
				&msdos.Options{Cache: &bcache.Options{Mode: bcache.ModeMmap, NoClone: true}})
		},
	})
	ffsName := "fixturegen makefs -t ffs UFS2 compat=debian (mmap; NoClone)"
	comparePeer(ffsName, "Debian makefs -t ffs -o version=2", "Debian makefs UFS2")
	register(contender{
		Name: ffsName,
		Run: func(tree, outdir string) error {
			o := &ffs.Options{Version: 2, Compat: ffs.CompatDebian, Timestamp: time.Unix(ffsTimestamp, 0).UTC(),
				Cache: &bcache.Options{Mode: bcache.ModeMmap, NoClone: true}}
			return ffs.WriteFile(filepath.Join(outdir, "ffs.img"), fstree.Dir(tree), o)
		},
	})
}

// benchRoot returns the directory to run in: dir itself, or with fstype
// ("xfs", "btrfs") a file system of that type made and loop-mounted under
// dir, with the function that unmounts it. It sets benchDir.
func benchRoot(dir, fstype string) (string, func(), error) {
	benchDir = dir
	if fstype == "" {
		return dir, func() {}, nil
	}
	mnt, done, err := loopMount(dir, fstype)
	if err != nil {
		return "", nil, fmt.Errorf("-mount %s: %w", fstype, err)
	}
	benchDir = mnt
	return mnt, done, nil
}
