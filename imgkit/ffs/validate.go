package ffs

import "fmt"

// checkRanges refuses Options whose counts and sizes are negative: each
// means a number of bytes, blocks, inodes or a percentage, where 0 is the
// default or none, and the sizing arithmetic assumes none is below it.
// makefs's command line cannot give such values; a Go caller can.
func checkRanges(o *Options) error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"Density", int64(o.Density)},
		{"MaxBPG", int64(o.MaxBPG)},
		{"AvgFileSize", int64(o.AvgFileSize)},
		{"AvgFPDir", int64(o.AvgFPDir)},
		{"Extent", int64(o.Extent)},
		{"MaxBPCG", int64(o.MaxBPCG)},
		{"Size", o.Size},
		{"MinSize", o.MinSize},
		{"MaxSize", o.MaxSize},
		{"FreeBlocks", o.FreeBlocks},
		{"FreeBlocksPct", int64(o.FreeBlocksPct)},
		{"FreeFiles", o.FreeFiles},
		{"FreeFilesPct", int64(o.FreeFilesPct)},
		{"Roundup", o.Roundup},
		{"Offset", o.Offset},
	} {
		if f.v < 0 {
			return fmt.Errorf("%w: Options.%s = %d is negative", ErrOption, f.name, f.v)
		}
	}
	return nil
}
