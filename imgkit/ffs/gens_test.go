package ffs

import (
	"math/rand/v2"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// TestGroupGensAnyOrder draws the di_gen values of every group again from
// marks (gensResidentBytes 0) with marks every group, every three groups
// and far apart, looks the groups up in a random order, in order and in
// reverse, and checks each against the values initGens kept. It sets
// package variables, so it does not run in parallel.
func TestGroupGensAnyOrder(t *testing.T) {
	// not parallel: it sets gensResidentBytes and genMarkDraws.
	oldKeep, oldDraws := gensResidentBytes, genMarkDraws
	defer func() { gensResidentBytes, genMarkDraws = oldKeep, oldDraws }()
	tree := &fstree.Tree{Root: &fstree.Node{Name: ".", Type: fstree.TypeDir, Mode: 0o755, Nlink: 2}}
	r := rand.New(rand.NewPCG(14, 4))
	for _, o := range []Options{
		{Version: 1, BSize: 4096, FSize: 512, Size: 64 << 20, MaxBPCG: 256},
		{Version: 2, BSize: 4096, FSize: 512, Size: 64 << 20, MaxBPCG: 256},
	} {
		w, err := plan(tree, &o)
		if err != nil {
			t.Fatal(err)
		}
		w.utime = 1600000000
		gensResidentBytes = 1 << 40
		w.initGens()
		want := w.gens.all
		if w.g.ncg < 8 || w.groupDraws() == 0 {
			t.Fatalf("version %d: %d groups, %d draws a group: too few to test", o.Version, w.g.ncg, w.groupDraws())
		}
		order := r.Perm(int(w.g.ncg))
		order = append(order, order...)
		for c := range int(w.g.ncg) {
			order = append(order, c)
		}
		for c := int(w.g.ncg) - 1; c >= 0; c-- {
			order = append(order, c)
		}
		gensResidentBytes = 0
		for _, every := range []int64{1, 3, 1 << 20} {
			genMarkDraws = every * w.groupDraws()
			w.initGens()
			if w.gens.all != nil || w.gens.every != every && every < w.g.ncg {
				t.Fatalf("version %d: marks every %d groups, want %d", o.Version, w.gens.every, every)
			}
			for _, c := range order {
				for i, v := range want[c] {
					if got := w.storedGen(int64(c), int64(i)); got != v {
						t.Fatalf("version %d, marks every %d groups: group %d inode %d: di_gen %d drawn again, want %d", o.Version, every, c, i, got, v)
					}
				}
			}
		}
	}
}
