package ffs

import (
	"errors"
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
