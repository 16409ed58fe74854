package ffs

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// fuzzBuildLimit is the largest size FuzzOptions asks Build for; larger
// sizes go through prepare alone, which computes the geometry without
// allocating the image.
const fuzzBuildLimit = 64 << 20

// optionsFromFuzz makes Options from the fuzzer's values. flags selects
// the compat (bit 0), space optimization (1), soft updates (2),
// big-endian (3), a nil MinFree (4), a 4096-byte sector (5), the ranges
// of makefs's command line (6, cliRanges) and a sector of 512 to 65536
// bytes chosen by size (7).
func optionsFromFuzz(size, minSize, maxSize, freeBlocks, freeFiles int64, version, bsize, fsize, density, minfree,
	maxbpg, avgfilesize, avgfpdir, extent, maxbpcg, freeBlocksPct, freeFilesPct int, flags uint8) *Options {
	o := &Options{
		Version: version, BSize: bsize, FSize: fsize, Density: density,
		MaxBPG: maxbpg, AvgFileSize: avgfilesize, AvgFPDir: avgfpdir, Extent: extent, MaxBPCG: maxbpcg,
		Size: size, MinSize: minSize, MaxSize: maxSize,
		FreeBlocks: freeBlocks, FreeBlocksPct: freeBlocksPct, FreeFiles: freeFiles, FreeFilesPct: freeFilesPct,
		Timestamp: time.Unix(1600000000, 0),
	}
	if flags&1 != 0 {
		o.Compat = CompatDebian
	}
	if flags&2 != 0 {
		o.Optimization = "space"
	}
	o.SoftUpdates = flags&4 != 0
	if flags&8 != 0 {
		o.ByteOrder = binary.BigEndian
	}
	if flags&16 == 0 {
		o.MinFree = &minfree
	}
	if flags&32 != 0 {
		o.SectorSize = 4096
	}
	if flags&128 != 0 {
		o.SectorSize = 512 << (uint(size) % 8)
	}
	if flags&64 != 0 {
		cliRanges(o)
	}
	return o
}

// cliRanges maps the values of o into the ranges makefs -t ffs accepts
// (its -o table, -s, -M, -m, -b and -f), so that the fuzzer spends its
// time on the values a command line can give as well as on any others.
func cliRanges(o *Options) {
	in := func(v, lo, hi int64) int64 { return lo + int64(uint64(v)%uint64(hi-lo+1)) }
	o.Version = int(in(int64(o.Version), 1, 2))
	o.BSize = minBSize << in(int64(o.BSize), 0, 4)
	o.FSize = max(o.BSize>>in(int64(o.FSize), 0, 3), 512)
	for _, p := range []*int{&o.Density, &o.MaxBPG, &o.AvgFileSize, &o.AvgFPDir, &o.Extent, &o.MaxBPCG} {
		if *p != 0 {
			*p = int(in(int64(*p), 1, math.MaxInt32))
		}
	}
	if o.MinFree != nil {
		m := int(in(int64(*o.MinFree), 0, 99))
		o.MinFree = &m
	}
	for _, p := range []*int64{&o.Size, &o.MinSize, &o.MaxSize, &o.FreeBlocks, &o.FreeFiles} {
		if *p != 0 {
			*p = in(*p, 1, math.MaxInt64-1)
		}
	}
	o.FreeBlocksPct = int(in(int64(o.FreeBlocksPct), 0, 99))
	o.FreeFilesPct = int(in(int64(o.FreeFilesPct), 0, 99))
}

// FuzzOptions builds a small tree with options drawn from the fields a
// makefs -o option or -s, -M, -m, -b or -f sets, and requires an image or
// an error, never a panic. Sizes asked for or planned past fuzzBuildLimit
// (by prepare, or by plan where the size grows) are checked that far
// only, so that an execution stays in memory and time bounds.
func FuzzOptions(f *testing.F) {
	f.Add(int64(0), int64(0), int64(0), int64(0), int64(0), 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, uint8(0))
	f.Add(int64(4<<20), int64(0), int64(0), int64(0), int64(0), 2, 4096, 512, 2048, 0, 1, 1, 1, 4096, 64, 0, 0, uint8(1))
	f.Add(int64(0), int64(1<<20), int64(8<<20), int64(65536), int64(10), 2, 65536, 8192, 100000, 50, 2048, 100000, 1000, 1048576, 4096, 10, 20, uint8(14))
	f.Add(int64(0), int64(0), int64(0), int64(0), int64(0), 1, 16384, 16384, 0, 99, 4, 512, 16, 131072, 512, 50, 100, uint8(48))
	src := fstree.FS(mapTree())
	tree, err := src.Tree(&fstree.Options{Timestamp: time.Unix(1600000000, 0)})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, size, minSize, maxSize, freeBlocks, freeFiles int64, version, bsize, fsize, density, minfree,
		maxbpg, avgfilesize, avgfpdir, extent, maxbpcg, freeBlocksPct, freeFilesPct int, flags uint8) {
		o := optionsFromFuzz(size, minSize, maxSize, freeBlocks, freeFiles, version, bsize, fsize, density, minfree,
			maxbpg, avgfilesize, avgfpdir, extent, maxbpcg, freeBlocksPct, freeFilesPct, flags)
		w, err := prepare(tree, o, 0)
		if err == nil && w.fsBytes <= 0 {
			t.Fatalf("prepare: no error and a %d-byte image", w.fsBytes)
		}
		if max(o.Size, o.MinSize, o.FreeBlocks) > fuzzBuildLimit || o.FreeFiles > fuzzBuildLimit/128 ||
			err == nil && w.fsBytes > fuzzBuildLimit {
			return
		}
		if errors.Is(err, ErrNoSpace) {
			// Build may grow the size until the tree fits (plan).
			if w, err := plan(tree, o); err == nil && w.fsBytes > fuzzBuildLimit {
				return
			}
		}
		img, err := Build(src, o)
		if err == nil && len(img) == 0 {
			t.Fatal("Build: no error and no image")
		}
	})
}
