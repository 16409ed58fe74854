package ffs

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// randomSizedTree returns a tree of zero-filled files (an mtree spec's
// files without contents) whose sizes, drawn from r, reach past the
// single and double indirect blocks of small block sizes.
func randomSizedTree(r *rand.Rand) *fstree.Tree {
	root := &fstree.Node{Name: ".", Type: fstree.TypeDir, Mode: 0o755, Nlink: 2}
	for i := range 1 + r.IntN(12) {
		var size int64
		switch r.IntN(4) {
		case 0:
			size = r.Int64N(100 << 10)
		case 1:
			size = r.Int64N(4 << 20)
		default:
			size = r.Int64N(24 << 20)
		}
		root.Children = append(root.Children, &fstree.Node{Name: fmt.Sprintf("f%02d", i), Type: fstree.TypeFile,
			Mode: 0o644, Nlink: 1, Size: size, Parent: root, Mtime: time.Unix(int64(i), 0)})
	}
	return &fstree.Tree{Root: root}
}

// TestAllocRunSameBytes builds random trees under random geometries twice,
// once with the runs of allocrun.go and once with every block through
// balloc as ffs_balloc allocates them: the images must be the same. The
// geometries include short fs_maxbpg sections, several cylinder groups
// and images with few blocks to spare, where runs stop at blocks in use.
// FIXTUREGEN_LONG=1 builds all 60 draws; by default every third of them
// is built (the same draws), and with -short the first 6.
func TestAllocRunSameBytes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(14, 17))
	n, every := 60, 3
	if testing.Short() {
		n, every = 6, 1
	}
	ts := time.Unix(1000000000, 0).UTC()
	failed, built := 0, 0
	for i := range n {
		bsize := 4096 << r.IntN(4)
		o := Options{Version: 1 + r.IntN(2), BSize: bsize, FSize: bsize >> r.IntN(4), Timestamp: ts}
		if r.IntN(3) == 0 {
			o.MaxBPG = 1 + r.IntN(300)
		}
		if r.IntN(3) == 0 {
			o.MaxBPCG = 64 + r.IntN(2000) // more, smaller groups
		}
		if r.IntN(2) == 0 {
			o.MinFree = new(0)
		}
		if r.IntN(4) == 0 {
			o.Compat = CompatDebian
		}
		tree := randomSizedTree(r)
		name := fmt.Sprintf("%d-v%d-b%d-f%d-maxbpg%d-maxbpcg%d", i, o.Version, o.BSize, o.FSize, o.MaxBPG, o.MaxBPCG)
		if !tooltest.Sample(i, every) {
			continue // drawn all the same, so that the sample's draws are the whole run's
		}
		built++
		runs, err := Build(tree, &o)
		one := o
		one.oneByOne = true
		blocks, err1 := Build(tree, &one)
		if fmt.Sprint(err) != fmt.Sprint(err1) {
			t.Fatalf("%s: errors differ: %v with runs, %v one by one", name, err, err1)
		}
		if err != nil {
			failed++
			continue // the same error both ways (makefs's size estimate can fall short)
		}
		if !bytes.Equal(runs, blocks) {
			t.Errorf("%s: images differ first at byte %#x", name, firstDiff(runs, blocks))
		}
	}
	if failed > built/4 {
		t.Errorf("%d of %d trees did not build", failed, built)
	}
	tooltest.Sampled(t, built, n)
}

// firstDiff returns the offset of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestClusterTake checks clusterTake, for runs of one block (what
// ffs_alloccgblk takes) and more (allocRun), against cg_clustersum counted
// afresh from the map it leaves (initcgClusterSum, mkfs's count), on
// random cluster maps of one group: a run taken from the middle, the start
// or the end of a free run, next to runs shorter and longer than
// fs_contigsumsize.
func TestClusterTake(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 9))
	tree := &fstree.Tree{Root: &fstree.Node{Name: ".", Type: fstree.TypeDir, Mode: 0o755, Nlink: 2}}
	o := Options{Version: 2, BSize: 4096, FSize: 4096, Size: 64 << 20}
	taken, counted := newTestAlloc(t, tree, &o), newTestAlloc(t, tree, &o)
	g := taken.g
	nblks := int64(uint32(taken.get32(taken.cg(0).cgNclusterblks())))
	setMap := func(a *alloc, m []byte) {
		copy(a.clustersfree(0), m)
		clear(a.cg(0)[g.clustersumoff : g.clustersumoff+4*(g.contigsumsize+1)])
		a.initcgClusterSum(0, nblks)
	}
	n := 2000
	if testing.Short() {
		n = 250 // -short (CI's race run) tries fewer maps; the run without -short, all
	}
	for k := range n {
		m := make([]byte, len(taken.clustersfree(0)))
		for i := range nblks {
			if r.IntN(10) < 7 {
				setbit(m, i)
			}
		}
		lo := r.Int64N(nblks)
		hi := min(nblks, lo+1+r.Int64N(2*g.contigsumsize+3))
		if k%4 == 0 {
			hi = lo + 1
		}
		for i := max(0, lo-r.Int64N(20)); i < min(nblks, hi+r.Int64N(20)); i++ {
			setbit(m, i) // a free run around [lo, hi), often past fs_contigsumsize
		}
		setMap(taken, m)
		taken.clusterTake(0, lo, hi-lo)
		for b := lo; b < hi; b++ {
			clrbit(m, b)
		}
		setMap(counted, m)
		if !bytes.Equal(taken.cg(0), counted.cg(0)) {
			t.Fatalf("blocks [%d,%d) of map %x: clusterTake's summary is not the map's", lo, hi, m)
		}
	}
}

// newTestAlloc returns the allocation state of a new file system of tree
// under o, as write starts it.
func newTestAlloc(t *testing.T, tree *fstree.Tree, o *Options) *alloc {
	t.Helper()
	w, err := plan(tree, o)
	if err != nil {
		t.Fatal(err)
	}
	return newAlloc(w.g, w.o, 0)
}
