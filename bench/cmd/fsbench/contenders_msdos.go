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
