package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// FAT contenders: fixturegen's msdos writer in both cache modes, and
// mkfs.fat -C followed by mcopy -s for an image of the same size and
// layout (the smallest that holds the tree, as fixturegen makes it
// without -s).

func init() {
	for _, m := range []struct {
		name string
		mode bcache.Mode
	}{{"mmap", bcache.ModeMmap}, {"copy", bcache.ModeCopy}} {
		m := m
		name := "fixturegen makefs -t msdos (" + m.name + ")"
		comparePeer(name, mtoolsName, "mtools")
		register(contender{
			Name: name,
			Run: func(tree, outdir string) error {
				return msdos.WriteFile(filepath.Join(outdir, "fat.img"), fstree.Dir(tree), &msdos.Options{Cache: &bcache.Options{Mode: m.mode}})
			},
		})
	}
	register(contender{
		Name: mtoolsName,
		Available: func() bool {
			_, err1 := exec.LookPath("mkfs.fat")
			_, err2 := exec.LookPath("mcopy")
			return err1 == nil && err2 == nil
		},
		Run: func(tree, outdir string) error {
			l, err := fatLayout(tree)
			if err != nil {
				return err
			}
			img := filepath.Join(outdir, "fat.img")
			args := []string{"-C", "-a", "-F", fmt.Sprint(l.FATType), "-S", fmt.Sprint(l.BytesPerSector), "-s", fmt.Sprint(l.SectorsPerCluster)}
			if l.FATType != 32 {
				args = append(args, "-r", fmt.Sprint(l.RootEntries))
			}
			args = append(args, img, fmt.Sprint((l.ImageSize+1023)/1024))
			if out, err := exec.Command("mkfs.fat", args...).CombinedOutput(); err != nil {
				return fmt.Errorf("mkfs.fat: %v: %s", err, out)
			}
			return mcopyTree(img, tree)
		},
	})
}

// mtoolsName is the row the FAT writers are compared with.
const mtoolsName = "mkfs.fat -C + mcopy -s (same size and layout)"

var fatLayouts sync.Map // tree path → *msdos.Layout

// fatLayout is the layout of the image fixturegen makes for tree without
// a size (the smallest that holds it): mkfs.fat gets the same size, FAT
// type, sector and cluster size and root entries. It is computed once per
// tree (the first of the timed runs pays for it; the best run is
// reported).
func fatLayout(tree string) (*msdos.Layout, error) {
	if v, ok := fatLayouts.Load(tree); ok {
		return v.(*msdos.Layout), nil
	}
	l, err := msdos.LayoutOf(fstree.Dir(tree), &msdos.Options{})
	if err != nil {
		return nil, err
	}
	fatLayouts.Store(tree, l)
	return l, nil
}

// fatSize is the size in bytes of fixturegen's image for tree.
func fatSize(tree string) (int64, error) {
	l, err := fatLayout(tree)
	if err != nil {
		return 0, err
	}
	return l.ImageSize, nil
}

// The FAT32 rows: the image a user asks for with makefs -t msdos -o
// fat_type=32,sectors_per_cluster=8 -s 400m (twice the tree's bytes for
// a tree that would not fit), beside mkfs.fat -F 32 -s 8 -C of the same
// size and mcopy -s of the tree into it.
const (
	fat32Name       = "fixturegen makefs -t msdos -o fat_type=32 -o sectors_per_cluster=8 -s 400m (mmap)"
	fat32MtoolsName = "mkfs.fat -F 32 -s 8 -C 400m + mcopy -s"
	fat32Size       = 400 << 20
)

func init() {
	comparePeer(fat32Name, fat32MtoolsName, "mtools")
	register(contender{
		Name: fat32Name,
		Run: func(tree, outdir string) error {
			size, err := fat32SizeFor(tree)
			if err != nil {
				return err
			}
			o := &msdos.Options{FATType: 32, SectorsPerCluster: 8, Size: size}
			return msdos.WriteFile(filepath.Join(outdir, "fat.img"), fstree.Dir(tree), o)
		},
	})
	register(contender{
		Name:      fat32MtoolsName,
		Available: func() bool { return have("mkfs.fat")() && have("mcopy")() },
		Run: func(tree, outdir string) error {
			size, err := fat32SizeFor(tree)
			if err != nil {
				return err
			}
			img := filepath.Join(outdir, "fat.img")
			if err := runTool("mkfs.fat", "-C", "-F", "32", "-s", "8", img, fmt.Sprint(size/1024)); err != nil {
				return err
			}
			return mcopyTree(img, tree)
		},
	})
}

var fat32Sizes sync.Map // tree path → int64

// fat32SizeFor is the FAT32 rows' image size for tree: 400 MiB, or twice
// the tree's bytes when that is more. It walks the tree once per tree
// (the first timed run pays for it; the best run is reported).
func fat32SizeFor(tree string) (int64, error) {
	if v, ok := fat32Sizes.Load(tree); ok {
		return v.(int64), nil
	}
	n, err := treeBytes(tree)
	if err != nil {
		return 0, err
	}
	size := max(fat32Size, (2*n+1<<20-1)&^(1<<20-1))
	fat32Sizes.Store(tree, size)
	return size, nil
}

// mcopyTree copies every entry of tree into the root of the FAT image img
// with mcopy -s.
func mcopyTree(img, tree string) error {
	ents, err := os.ReadDir(tree)
	if err != nil {
		return err
	}
	margs := []string{"-s", "-i", img}
	for _, e := range ents {
		margs = append(margs, filepath.Join(tree, e.Name()))
	}
	cmd := exec.Command("mcopy", append(margs, "::")...)
	cmd.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("mcopy: %v: %s", err, out)
	}
	return nil
}
