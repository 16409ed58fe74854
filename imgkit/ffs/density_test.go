package ffs

import (
	"errors"
	"math"
	"strings"
	"testing/fstest"

	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"math/rand/v2"
	"testing"
)

// TestDensitySearch checks that firstFit stops where mkfs's density loop,
// one fragment a step from the top, stops, over many geometries and
// starting counts (with -short 60 of its 300 draws).
func TestDensitySearch(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(12, 4))
	n := 300
	if testing.Short() {
		n = 60 // -short (CI's race run); the run without it draws all 300
	}
	for i := 0; i < n; i++ {
		version := 1 + rng.IntN(2)
		fsize := int64(512) << rng.IntN(4)
		bsize := fsize << rng.IntN(4)
		if bsize < 4096 {
			bsize = 4096
		}
		size := (int64(1) << (20 + rng.IntN(24))) + bsize*rng.Int64N(1000)
		size -= size % bsize
		freebsd := rng.IntN(2) == 0
		p := &params{version: version, sectorSize: 512, size: size, bsize: bsize, fsize: fsize, density: 1 << 30,
			minfree: 8, maxcontig: 16, maxbpg: 1024, avgfilesize: 16384, avgfpdr: 64, sblockloc: sblockUFS2, freebsd: freebsd}
		if version == 1 {
			p.sblockloc = sblockUFS1
		}
		g, err := mkfs(p)
		if err != nil {
			continue
		}
		inopf := g.inopb / g.frag
		cgLimit := g.bsize
		if freebsd {
			cgLimit -= cgSizeFudge
		}
		fits := func(k int64) bool { return g.groupFits(k, inopf, cgLimit) }
		for _, k0 := range []int64{1, 2, 3, 1 + rng.Int64N(100), 1 + rng.Int64N(10_000), 1 + rng.Int64N(200_000)} {
			want := int64(0)
			for k := k0; k >= 1; k-- {
				if fits(k) {
					want = k
					break
				}
			}
			got, err := g.firstFit(k0, inopf, fits)
			if got != want || (err != nil) != (want == 0) {
				t.Fatalf("%s, k0 %d: firstFit %d (%v), the loop stops at %d",
					fmt.Sprintf("v%d bsize %d fsize %d size %d freebsd %v", version, bsize, fsize, size, freebsd), k0, got, err, want)
			}
		}
	}
}

// TestHugeSizeBoundedTime computes the geometry of an 8 TiB and a 1 PiB
// UFS2 file system with the Debian package's rules, whose density is not
// clamped: the density loop used to step one fragment at a time from
// about size/inodes, for minutes, and now answers at once (firstFit). The
// test asserts what mkfs answers, not how fast; without firstFit it runs
// into go test's timeout.
func TestHugeSizeBoundedTime(t *testing.T) {
	t.Parallel()
	for _, size := range []int64{8 << 40, 1 << 50} {
		p := &params{version: 2, sectorSize: 512, size: size, bsize: 8192, fsize: 1024, density: size/3 + 1,
			minfree: 5, maxcontig: 16, maxbpg: 1024, avgfilesize: 16384, avgfpdr: 64, sblockloc: sblockUFS2}
		g, err := mkfs(p)
		switch {
		case err != nil && !errors.Is(err, ErrParams):
			t.Errorf("size %d: %v, want a geometry or ErrParams", size, err)
		case err == nil && (g == nil || g.ncg <= 0):
			t.Errorf("size %d: geometry %+v without cylinder groups", size, g)
		}
	}
}

// TestHugeSizeError checks that a size whose cylinder group summary
// outgrows a group is called too large, not too small for the tree (fails
// without it: "the tree needs an image of at least 49152 bytes").
func TestHugeSizeError(t *testing.T) {
	t.Parallel()
	_, err := Build(fstree.FS(fstest.MapFS{"a": {Data: []byte("x")}}), &Options{Compat: CompatDebian, Version: 2, Size: 1 << 50})
	if !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), "is too large") {
		t.Errorf("1 PiB: error %v", err)
	}
	// A size the rounding to blocks would overflow (was "size
	// -9223372036854743040 is too small").
	_, err = Build(fstree.FS(fstest.MapFS{"a": {Data: []byte("x")}}), &Options{Size: math.MaxInt64 - 1})
	if !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), "Options.Size or Options.MinSize 9223372036854775806 is too large") {
		t.Errorf("MaxInt64-1: error %v", err)
	}
}
