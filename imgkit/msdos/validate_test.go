package msdos

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// validatorConfig is one volume the external validators check.
type validatorConfig struct {
	name string
	o    Options
}

// validatorConfigs are the volumes the external validators check: FAT12,
// FAT16 and FAT32, 512- and 4096-byte sectors, three cluster sizes each;
// then the defaults at sizes where newfs_msdos pads the reserved area,
// rounded root directories, and the volumes where FreeBSD's layout is
// invalid and the writer makes another (see DETAILS.md).
func validatorConfigs() []validatorConfig {
	var out []validatorConfig
	for _, fat := range []int{12, 16, 32} {
		for _, bps := range []int{512, 4096} {
			spcs := []int{1, 4, 16}
			if bps == 4096 {
				spcs = []int{1, 2, 4}
			}
			for _, spc := range spcs {
				out = append(out, validatorConfig{fmt.Sprintf("FAT%d-%d-spc%d", fat, bps, spc),
					Options{FATType: fat, BytesPerSector: bps, SectorsPerCluster: spc, VolumeLabel: "TESTVOL"}})
			}
		}
	}
	return append(out,
		validatorConfig{"default-3m", Options{Size: 3 << 20}},
		validatorConfig{"default-32m", Options{Size: 32 << 20, VolumeLabel: "PADDED"}},
		validatorConfig{"dirents-100", Options{Size: 4 << 20, DirectoryEntries: 100}},
		validatorConfig{"fat12-capped-cut", Options{Size: 64 << 20, FATType: 12, SectorsPerCluster: 2}},
		validatorConfig{"fat12-4084-clusters", Options{Size: 64 << 20, FATType: 12, SectorsPerCluster: 1}},
		validatorConfig{"fat32-64m-spc1-cut", Options{Size: 64 << 20, FATType: 32, SectorsPerCluster: 1}},
		validatorConfig{"sectors-per-fat-cut", Options{Size: 2 << 20, SectorsPerFAT: 4}},
		validatorConfig{"bps4096-sized", Options{Size: 8 << 20, BytesPerSector: 4096}},
	)
}

func hasNonBMP(s string) bool {
	for _, r := range s {
		if r > 0xffff {
			return true
		}
	}
	return false
}

// mtoolsEnv is the environment mtools runs in: no geometry check, UTF-8
// names.
func mtoolsEnv() []string {
	return append(os.Environ(), "MTOOLS_SKIP_CHECK=1", "LC_ALL=C.UTF-8")
}

func TestExternalValidators(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("slow: builds 26 images and runs four tools on each")
	}
	for _, c := range validatorConfigs() {
		o := c.o
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, tr := buildTree(t, sampleFiles())
			img := writeImage(t, tr, &o)
			fsys := openImage(t, img)
			if o.FATType != 0 && fsys.FATType() != o.FATType ||
				o.SectorsPerCluster != 0 && fsys.ClusterSize() != int64(max(o.BytesPerSector, 512)*o.SectorsPerCluster) {
				t.Fatalf("made FAT%d with %d-byte clusters", fsys.FATType(), fsys.ClusterSize())
			}
			fsckClean(t, img)
			checkMcopy(t, img, dir)
			checkMdir(t, img, dir)
			checkFls(t, img, dir)
		})
	}
}

// checkMcopy extracts the whole image with mcopy -s and compares the
// result with the source: names, contents and mtimes to 2 seconds. mtools
// 4 cannot represent characters outside the BMP, so names holding them
// are left out of the comparison.
func checkMcopy(t *testing.T, img, src string) {
	t.Helper()
	mcopy := tooltest.Need(t, "mcopy")
	out := t.TempDir()
	c := exec.Command(mcopy, "-s", "-p", "-m", "-n", "-i", img, "::*", out+"/")
	c.Env = mtoolsEnv()
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("mcopy -s: %v\n%s", err, b)
	}
	want := map[string]bool{}
	for _, p := range expectedPaths(t, src) {
		if !hasNonBMP(p) {
			want[p] = true
		}
	}
	got := map[string]bool{}
	for _, p := range expectedPaths(t, out) {
		if !want[p] && strings.Contains(p, "_") {
			continue // a non-BMP name as mtools renders it
		}
		got[p] = true
	}
	for p := range want {
		if !got[p] {
			t.Errorf("mcopy -s: %s missing", p)
			continue
		}
		a, _ := os.Stat(filepath.Join(src, p))
		b, _ := os.Stat(filepath.Join(out, p))
		if d := a.ModTime().Sub(b.ModTime()); d < 0 || d >= 2*time.Second {
			t.Errorf("mcopy -s: %s: mtime %v, source %v", p, b.ModTime(), a.ModTime())
		}
		if a.IsDir() {
			continue
		}
		x, _ := os.ReadFile(filepath.Join(src, p))
		y, _ := os.ReadFile(filepath.Join(out, p))
		if !bytes.Equal(x, y) {
			t.Errorf("mcopy -s: %s: contents differ", p)
		}
	}
	for p := range got {
		if !want[p] {
			t.Errorf("mcopy -s: unexpected %s", p)
		}
	}
}

// checkMdir checks that mdir shows every long name of every directory.
func checkMdir(t *testing.T, img, src string) {
	t.Helper()
	mdir := tooltest.Need(t, "mdir")
	c := exec.Command(mdir, "-/", "-i", img, "::")
	c.Env = mtoolsEnv()
	b, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("mdir: %v\n%s", err, b)
	}
	for _, p := range expectedPaths(t, src) {
		base := filepath.Base(p)
		if hasNonBMP(base) {
			continue
		}
		show := base
		if dn, conv := shortName(base, 1); conv == convSame {
			show = string(dn[:8]) + " " + string(dn[8:]) // an 8.3 name has no long name
		}
		if !bytes.Contains(b, []byte(show)) {
			t.Errorf("mdir -/ does not show %q", base)
		}
	}
}

// checkFls checks that sleuthkit's fls -r lists every path.
func checkFls(t *testing.T, img, src string) {
	t.Helper()
	fls := tooltest.Need(t, "fls")
	b, err := exec.Command(fls, "-r", "-p", img).CombinedOutput()
	if err != nil {
		t.Fatalf("fls -r: %v\n%s", err, b)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if i := strings.Index(line, ":\t"); i >= 0 {
			listed[line[i+2:]] = true
		}
	}
	for _, p := range expectedPaths(t, src) {
		if !listed[p] {
			t.Errorf("fls -r does not list %q", p)
		}
	}
}

var _ fs.FS = (*FS)(nil)
