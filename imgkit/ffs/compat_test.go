package ffs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// These tests compare the writer, in CompatDebian mode, with Debian's
// makefs(8) byte for byte. Debian's makefs walks directories in readdir(3)
// order; tooltest.SortedReaddir's shim, loaded with LD_PRELOAD, makes that order
// bytewise, the writer's order. The only bytes allowed to differ are the
// fields makefs fills from random(), the clock or heap pointers, listed by
// name in maskedFields.

// debianMakefs runs Debian's makefs with the sorting shim.
func debianMakefs(t *testing.T, img, src string, args ...string) []byte {
	t.Helper()
	tooltest.RunSorted(t, "", "makefs", append(append([]string{"-t", "ffs"}, args...), img, src)...)
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// maskedFields names the fields that makefs takes from random(), the
// clock or heap pointers, and that the comparison ignores.
var maskedFields = []string{
	"fs_id[1]",      // random()
	"fs_csp",        // heap pointer written into every superblock copy
	"fs_maxcluster", // heap pointer written into every superblock copy
	"di_gen",        // random() (spare inodes), 0 in used ones
}

// fieldMap describes the image's structures for masking and for saying
// where two images differ.
type fieldMap struct {
	g    *geometry
	mask []bool
}

func newFieldMap(t *testing.T, img []byte) *fieldMap {
	t.Helper()
	f, err := NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	m := &fieldMap{g: &f.g, mask: make([]bool, len(img))}
	g := m.g
	sbs := []int64{g.sblockloc}
	for c := int64(0); c < g.ncg; c++ {
		sbs = append(sbs, g.cgsblock(c)*g.fsize)
	}
	for _, sb := range sbs {
		for _, r := range [][2]int64{{148, 4}, {832, 8}, {840, 8}} {
			for i := int64(0); i < r[1]; i++ {
				m.mask[sb+r[0]+i] = true
			}
		}
	}
	genOff := int64(108)
	if g.version == 2 {
		genOff = 80
	}
	for ino := int64(0); ino < g.ncg*g.ipg; ino++ {
		off := g.inodeOff(ino) + genOff
		for i := int64(0); i < 4; i++ {
			m.mask[off+i] = true
		}
	}
	return m
}

// where says in words which structure byte off belongs to.
func (m *fieldMap) where(off int64) string {
	g := m.g
	if off >= g.sblockloc && off < g.sblockloc+sblockSize {
		return fmt.Sprintf("superblock byte %d", off-g.sblockloc)
	}
	frag := off / g.fsize
	c := frag / g.fpg
	if c < g.ncg {
		rel := frag - g.cgbase(c)
		switch {
		case rel >= g.sblkno && rel < g.cblkno:
			return fmt.Sprintf("cg %d superblock copy byte %d", c, off-g.cgsblock(c)*g.fsize)
		case rel >= g.cblkno && rel < g.iblkno:
			return fmt.Sprintf("cg %d header byte %d", c, off-g.cgtod(c)*g.fsize)
		case rel >= g.iblkno && rel < g.dblkno:
			ib := off - g.cgimin(c)*g.fsize
			ds := g.dinodeSize()
			return fmt.Sprintf("inode %d byte %d", c*g.ipg+ib/ds, ib%ds)
		case c == 0 && frag >= g.csaddr && frag < g.csaddr+howmany(g.cssize, g.fsize):
			return fmt.Sprintf("cylinder group summary byte %d", off-g.csaddr*g.fsize)
		}
	}
	return fmt.Sprintf("data fragment %d byte %d", frag, off%g.fsize)
}

// compareImages fails the test where want and got differ outside the
// masked fields, naming the structure of the first few differences.
func compareImages(t *testing.T, want, got []byte) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("image sizes differ: makefs %d bytes, fixturegen %d", len(want), len(got))
	}
	m := newFieldMap(t, want)
	n := 0
	for i := range want {
		if want[i] != got[i] && !m.mask[i] {
			if n < 20 {
				t.Errorf("byte %#x (%s): makefs %#02x, fixturegen %#02x", i, m.where(int64(i)), want[i], got[i])
			}
			n++
		}
	}
	if n > 0 {
		t.Errorf("%d bytes differ outside the masked fields %v", n, maskedFields)
	}
}

// writeTree creates a source tree whose files exercise every layout path.
func writeTree(t *testing.T, dir string, withSpecial bool) {
	t.Helper()
	mk := func(name string, size int, seed byte) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(i*7) + seed + byte(i>>9)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("a/empty", 0, 0)
	mk("a/small", 100, 1)
	mk("a/frag3k", 3000, 2)
	mk("b/direct", 12*8192, 3)
	mk("b/single", 40*8192+123, 4)
	mk("b/double", 3<<20+5, 7) // past the single indirect block at bsize 4096
	mk("c/d/e/deep", 5000, 5)
	mk("z", 20000, 6)
	for i := 0; i < 60; i++ {
		mk(fmt.Sprintf("many/file-with-a-long-name-%03d", i), i*50, byte(i))
	}
	for _, l := range [][2]string{{"a/short", "small"}, {"a/long", strings.Repeat("x/", 50) + "target"}, {"c/up", "../z"}} {
		if err := os.Symlink(l[1], filepath.Join(dir, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(dir, "a/small"), filepath.Join(dir, "b/hard")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "a/frag3k"), 0o4755); err != nil {
		t.Fatal(err)
	}
	if withSpecial {
		mkSpecialFiles(t, dir)
	}
	tooltest.PinTimes(t, dir, time.Time{})
}

// volumeTimeOnly is a Source that leaves its tree's times as they are,
// whatever the options say.
type volumeTimeOnly struct{ t *fstree.Tree }

func (s volumeTimeOnly) Tree(*fstree.Options) (*fstree.Tree, error) { return s.t, nil }

// TestCompatDebianBytes compares images of one tree with Debian's makefs
// -T. Its rule for times is not the one of Options.Timestamp (nor of
// FreeBSD's makefs -T, nor of fixturegen makefs -o compat=debian -T, which
// set every time): it sets fs_time and cg_time, clamps UFS1 inode times
// to the -T time and leaves UFS2 inode times as the files have them. For
// UFS1 that is Timestamp with ClampTimes; for UFS2 the tree is given
// through a Source that keeps its times, and Timestamp then sets the
// volume's times only. With -short it takes one configuration in three.
func TestCompatDebianBytes(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writeTree(t, src, true)
	ts := time.Unix(1000000000, 0).UTC()
	for i, c := range []struct {
		version      int
		bsize, fsize int
		density      int
		size         string
		sizeBytes    int64
	}{
		{1, 8192, 1024, 8192, "4m", 4 << 20},
		{2, 8192, 1024, 8192, "4m", 4 << 20},
		{1, 4096, 512, 4096, "8m", 8 << 20},
		{2, 4096, 4096, 16384, "8m", 8 << 20},
		{1, 32768, 4096, 65536, "8m", 8 << 20},
		{2, 32768, 8192, 32768, "8m", 8 << 20},
		{1, 8192, 1024, 2048, "6m", 6 << 20},
		{2, 4096, 512, 2048, "24m", 24 << 20}, // several cylinder groups
		{1, 4096, 1024, 4096, "40m", 40 << 20},
		{2, 8192, 1024, 0, "", 0},  // size and density from the tree
		{1, 16384, 2048, 0, "", 0}, // size and density from the tree
	} {
		if !tooltest.ShortSample(i, 3) {
			continue
		}
		name := fmt.Sprintf("v%d-b%d-f%d-d%d-%s", c.version, c.bsize, c.fsize, c.density, c.size)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := []string{"-o", fmt.Sprintf("version=%d,bsize=%d,fsize=%d", c.version, c.bsize, c.fsize), "-T", fmt.Sprint(ts.Unix())}
			if c.density != 0 {
				args = append(args, "-o", fmt.Sprintf("density=%d", c.density))
			}
			if c.size != "" {
				args = append(args, "-s", c.size)
			}
			want := debianMakefs(t, filepath.Join(dir, "makefs.img"), src, args...)
			o := &Options{Version: c.version, BSize: c.bsize, FSize: c.fsize, Density: c.density,
				Size: c.sizeBytes, Timestamp: ts, ClampTimes: true, Compat: CompatDebian}
			source := fstree.Dir(src)
			if c.version == 2 {
				tree, err := fstree.WalkDir(src, nil)
				if err != nil {
					t.Fatal(err)
				}
				source, o.ClampTimes = volumeTimeOnly{tree}, false
			}
			got, err := Build(source, o)
			if err != nil {
				t.Fatal(err)
			}
			compareImages(t, want, got)
		})
	}
}

// TestMain removes the readdir shim that the comparisons build.
func TestMain(m *testing.M) { tooltest.Main(m) }
