package ffs

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// bigShape is the big tree's shape (20 files of 20 MiB) of sparse files.
func bigShape(b *testing.B) *fstree.Tree {
	src := b.TempDir()
	for i := 0; i < 20; i++ {
		f, err := os.Create(filepath.Join(src, "f"+strconv.Itoa(i)))
		if err != nil {
			b.Fatal(err)
		}
		if err := f.Truncate(20 << 20); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	tree, err := fstree.WalkDir(src, nil)
	if err != nil {
		b.Fatal(err)
	}
	return tree
}

var bigOpts = Options{Version: 2, Compat: CompatDebian, Timestamp: time.Unix(1600000000, 0)}

// BenchmarkBallocBigTree builds the big tree's shape into a file.
func BenchmarkBallocBigTree(b *testing.B) {
	tree := bigShape(b)
	out := filepath.Join(b.TempDir(), "img")
	for i := 0; i < b.N; i++ {
		o := bigOpts
		if err := WriteFile(out, tree, &o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBallocDry lays the big tree's shape out without writing: the
// allocator and little else. It reports ns per data block allocated.
func BenchmarkBallocDry(b *testing.B) {
	tree := bigShape(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o := bigOpts
		w, err := plan(tree, &o)
		if err != nil {
			b.Fatal(err)
		}
		if err := w.dryRun(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(20*(20<<20)/8192), "ns/block")
}
