package bcache_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// cloneTree writes a tree of a few MiB under dir: files large enough to be
// cloned on XFS and btrfs (whole blocks, and sizes that end inside a
// block), small files that are copied, and an empty one.
func cloneTree(t *testing.T, dir string) {
	t.Helper()
	r := rand.New(rand.NewPCG(14, 1))
	sizes := []int{1 << 20, 3<<20 + 123, 700<<10 + 1, 2 << 20, 64<<10 + 9, 0}
	for range 40 {
		sizes = append(sizes, r.IntN(12<<10))
	}
	for i, n := range sizes {
		data := make([]byte, n)
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		sub := filepath.Join(dir, fmt.Sprintf("d%d", i%3))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%02d.bin", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// cloneBuild is one image type and -O offset of TestCloneImagesIdentical
// (msdos-c4: clusters of 2 KiB, so that a file starts on a block boundary
// or 2 KiB past one).
type cloneBuild struct {
	name  string
	write func(path, tree string, cache *bcache.Options) error
}

var cloneBuilds = []cloneBuild{
	{"msdos", func(p, tree string, c *bcache.Options) error {
		return msdos.WriteFile(p, fstree.Dir(tree), &msdos.Options{Timestamp: time.Unix(1e9, 0), Cache: c})
	}},
	{"msdos-O512", func(p, tree string, c *bcache.Options) error {
		return msdos.WriteFile(p, fstree.Dir(tree), &msdos.Options{Offset: 512, Timestamp: time.Unix(1e9, 0), Cache: c})
	}},
	{"msdos-c4", func(p, tree string, c *bcache.Options) error {
		return msdos.WriteFile(p, fstree.Dir(tree), &msdos.Options{SectorsPerCluster: 4, Timestamp: time.Unix(1e9, 0), Cache: c})
	}},
	{"ffs", func(p, tree string, c *bcache.Options) error {
		return ffs.WriteFile(p, fstree.Dir(tree), &ffs.Options{Timestamp: time.Unix(1e9, 0), Cache: c})
	}},
	{"ffs-debian-O8192", func(p, tree string, c *bcache.Options) error {
		return ffs.WriteFile(p, fstree.Dir(tree), &ffs.Options{Compat: ffs.CompatDebian, Offset: 8192, Timestamp: time.Unix(1e9, 0), Cache: c})
	}},
}

// TestCloneImagesIdentical builds msdos and ffs images of one tree on an
// XFS and a btrfs loop mount with cloning on and off in both cache modes,
// and on the test's temporary directory (where nothing is cloned): every
// build of one type gives the same bytes. The aligned builds on the
// mounts share extents with the tree (filefrag -v says "shared"); the
// msdos image with a 512-byte offset has no block aligned with its
// sources and is copied; with 2 KiB clusters the files that start on a
// block boundary are cloned and the others copied.
func TestCloneImagesIdentical(t *testing.T) {
	t.Parallel()
	filefrag := tooltest.Need(t, "filefrag")
	for _, fstype := range []string{"xfs", "btrfs"} {
		t.Run(fstype, func(t *testing.T) {
			t.Parallel()
			mnt := tooltest.LoopMount(t, fstype)
			tree := filepath.Join(mnt, "tree")
			cloneTree(t, tree)
			tmp := t.TempDir()
			for _, b := range cloneBuilds {
				ref := filepath.Join(tmp, b.name+".img")
				if err := b.write(ref, tree, &bcache.Options{Mode: bcache.ModeCopy}); err != nil {
					t.Fatal(err)
				}
				want, err := os.ReadFile(ref)
				if err != nil {
					t.Fatal(err)
				}
				for _, mode := range []bcache.Mode{bcache.ModeMmap, bcache.ModeCopy} {
					for _, noClone := range []bool{false, true} {
						p := filepath.Join(mnt, fmt.Sprintf("%s-%v-%v.img", b.name, mode, noClone))
						if err := b.write(p, tree, &bcache.Options{Mode: mode, NoClone: noClone}); err != nil {
							t.Fatal(err)
						}
						got, err := os.ReadFile(p)
						if err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(got, want) {
							t.Errorf("%s, mode %v, NoClone %v: bytes differ from the build on %s", b.name, mode, noClone, tmp)
						}
						shared := sharedExtents(t, filefrag, p)
						if wantShared := !noClone && !strings.Contains(b.name, "O512"); (shared > 0) != wantShared {
							t.Errorf("%s, mode %v, NoClone %v: %d shared extents", b.name, mode, noClone, shared)
						}
						os.Remove(p)
					}
				}
			}
		})
	}
}

// sharedExtents counts the extents of path that filefrag -v flags shared.
func sharedExtents(t *testing.T, filefrag, path string) int {
	t.Helper()
	out, err := exec.Command(filefrag, "-v", path).CombinedOutput()
	if err != nil {
		t.Fatalf("filefrag -v %s: %v: %s", path, err, out)
	}
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "shared") {
			n++
		}
	}
	return n
}
