package ffs

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// TestNegativeOptions checks that a negative count or size in Options is
// an ErrOption naming the field. Before checkRanges, Options.FreeFiles -5
// (with this tree's 5 inodes, none at all) divided by zero in layoutImage,
// a panic FuzzOptions found; the other values made images or other errors.
func TestNegativeOptions(t *testing.T) {
	t.Parallel()
	src := fstree.FS(mapTree())
	for _, c := range []struct {
		field string
		set   func(o *Options)
	}{
		{"FreeFilesPct", func(o *Options) { o.FreeFilesPct = -100 }},
		{"FreeFiles", func(o *Options) { o.FreeFiles = -5 }},
		{"FreeFiles", func(o *Options) { o.FreeFiles = -6 }},
		{"Density", func(o *Options) { o.Density = -1 }},
		{"MaxBPG", func(o *Options) { o.MaxBPG = -1 }},
		{"AvgFileSize", func(o *Options) { o.AvgFileSize = -1 }},
		{"AvgFPDir", func(o *Options) { o.AvgFPDir = -1 }},
		{"Extent", func(o *Options) { o.Extent = -1 }},
		{"MaxBPCG", func(o *Options) { o.MaxBPCG = -1 }},
		{"Size", func(o *Options) { o.Size = -1 }},
		{"MinSize", func(o *Options) { o.MinSize = -1 }},
		{"MaxSize", func(o *Options) { o.MaxSize = -1 }},
		{"FreeBlocks", func(o *Options) { o.FreeBlocks = -1 }},
		{"FreeBlocksPct", func(o *Options) { o.FreeBlocksPct = -1 }},
		{"Roundup", func(o *Options) { o.Roundup = -1 }},
		{"Offset", func(o *Options) { o.Offset = -1 }},
	} {
		t.Run(c.field, func(t *testing.T) {
			t.Parallel()
			o := &Options{Version: 2}
			c.set(o)
			_, err := Build(src, o)
			if !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), "Options."+c.field+" = -") {
				t.Fatalf("Options.%s negative: error %v, want ErrOption naming Options.%s", c.field, err, c.field)
			}
		})
	}
}

// TestHugeFreeCounts checks that free inodes or bytes asked for beyond
// what the sizing arithmetic can count are an ErrParams naming the field.
// Before freeInodes and freeBytes the sums overflowed: FreeFiles 2^63-5
// with FreeFilesPct 2 left no inodes at all and divided by zero in
// layoutImage (FuzzOptions found it; makefs -f 9223372036854775805 -f 2%
// reached it too), and FreeFiles or FreeBlocks near 2^63 made an image
// with a wrapped count.
func TestHugeFreeCounts(t *testing.T) {
	t.Parallel()
	src := fstree.FS(mapTree())
	for _, c := range []struct {
		name, field string
		o           Options
	}{
		{"wrap-to-zero", "FreeFiles", Options{FreeFiles: math.MaxInt64 - 4, FreeFilesPct: 2, Compat: CompatDebian}},
		{"files-max", "FreeFiles", Options{FreeFiles: math.MaxInt64}},
		{"files-2^32", "FreeFiles", Options{FreeFiles: 1 << 32}},
		{"files-pct", "FreeFilesPct", Options{FreeFiles: 3 << 30, FreeFilesPct: 99}},
		{"files-pct-max", "FreeFilesPct", Options{FreeFilesPct: math.MaxInt}},
		{"blocks-max", "FreeBlocks", Options{FreeBlocks: math.MaxInt64}},
		{"blocks-pct", "FreeBlocksPct", Options{FreeBlocks: math.MaxInt64 / 5, FreeBlocksPct: 99}},
		{"blocks-pct-max", "FreeBlocksPct", Options{FreeBlocksPct: math.MaxInt}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Build(src, &c.o)
			if !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), "Options."+c.field+" ") {
				t.Fatalf("error %v, want ErrParams naming Options.%s", err, c.field)
			}
		})
	}
}
