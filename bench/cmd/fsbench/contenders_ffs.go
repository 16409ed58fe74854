package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// FFS contenders: fixturegen's ffs writer for UFS1 and UFS2 in both cache
// modes, and Debian's makefs -t ffs with the same options. fixturegen runs
// with -o compat=debian (ffs.CompatDebian) so that both choose the same
// defaults (bsize 8192, fsize 1024, minfree 5) and the same size (makefs's
// estimate for the tree): the two images have the same geometry, and for
// a tree whose readdir order is bytewise the same bytes but for the fields
// makefs takes from random() and heap pointers (imgkit/ffs compat_test.go).
// Both take -T 1600000000.

const ffsTimestamp = 1600000000

func init() {
	for _, v := range []int{1, 2} {
		peerName := fmt.Sprintf("Debian makefs -t ffs -o version=%d", v)
		for _, m := range []struct {
			name string
			mode bcache.Mode
		}{{"mmap", bcache.ModeMmap}, {"copy", bcache.ModeCopy}} {
			name := fmt.Sprintf("fixturegen makefs -t ffs UFS%d compat=debian (%s)", v, m.name)
			comparePeer(name, peerName, fmt.Sprintf("Debian makefs UFS%d", v))
			register(contender{
				Name: name,
				Run: func(tree, outdir string) error {
					o := &ffs.Options{Version: v, Compat: ffs.CompatDebian, Timestamp: time.Unix(ffsTimestamp, 0).UTC(),
						Cache: &bcache.Options{Mode: m.mode}}
					return ffs.WriteFile(filepath.Join(outdir, "ffs.img"), fstree.Dir(tree), o)
				},
			})
		}
		register(contender{
			Name:      peerName,
			Available: func() bool { _, err := exec.LookPath("makefs"); return err == nil },
			Run: func(tree, outdir string) error {
				img := filepath.Join(outdir, "ffs.img")
				cmd := exec.Command("makefs", "-t", "ffs", "-T", fmt.Sprint(ffsTimestamp), "-o", fmt.Sprintf("version=%d", v), img, tree)
				if out, err := cmd.CombinedOutput(); err != nil {
					return fmt.Errorf("makefs: %v: %s", err, out)
				}
				return nil
			},
		})
	}
}
