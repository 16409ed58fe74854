package cd9660

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

func TestConvertNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		level         int
		multidot, omt bool
		name          string
		dir           bool
		want          string
	}{
		{2, false, false, "a+b", false, "A_B.;1"},
		{2, false, false, "multi.dot.name.tar.gz", false, "MULTI.DOT_NAME_TAR_GZ;1"},
		{2, true, false, "multi.dot.name.tar.gz", false, "MULTI.DOT.NAME.TAR.GZ;1"},
		{2, false, true, "noext", false, "NOEXT;1"},
		{2, false, false, "dir.with.dots", true, "DIR_WITH_DOTS"},
		{2, false, false, "A Long File Name With Spaces.text", false, "A_LONG_FILE_NAME_WITH_SPACES.TE;1"},
		{1, false, false, "abcdefghij.txt", false, "ABCDEFGH.;1"},
		{1, false, false, "abcdefgh.text", false, "ABCDEFGH.TEX;1"},
		{1, false, false, ".profile", false, ".PRO;1"},
		{1, false, false, "dir.x", true, "DIR.X"},
		{1, false, false, "a.b.c.d", false, "A.B_C;1"},
		{2, false, false, "ünï", false, "__N__.;1"},
	} {
		r := nameRules{level: c.level, allowMultidot: c.multidot, omitTrailingPeriod: c.omt}
		id, n := r.convert(c.name, !c.dir)
		if got := string(id[:n]); got != c.want {
			t.Errorf("level %d %q: %q, want %q", c.level, c.name, got, c.want)
		}
	}
}

// TestInsertSortedLinear checks that insertSorted, a binary search,
// inserts where makefs's linear scan (before the first child the new
// record sorts before) does, on random names.
func TestInsertSortedLinear(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "AB._;1 Z0"
	r := nameRules{level: 2}
	for range 200 {
		fast, slow := &isoNode{}, &isoNode{}
		for range 30 {
			b := make([]byte, 1+rng.IntN(12))
			for i := range b {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
			n := &isoNode{kind: kindFile, orig: string(b)}
			n.setName(r, n.orig)
			m := *n
			insertSorted(fast, n)
			linearInsert(slow, &m)
		}
		if !slices.EqualFunc(fast.children, slow.children, func(a, b *isoNode) bool { return a.orig == b.orig }) {
			t.Fatalf("orders differ")
		}
	}
}

// linearInsert is cd9660_sorted_child_insert as makefs writes it.
func linearInsert(d, n *isoNode) {
	i := 0
	for ; i < len(d.children); i++ {
		if compareRecords(n, d.children[i]) < 0 {
			break
		}
	}
	d.children = slices.Insert(d.children, i, n)
}

// TestCollisionsLevel2 writes the collide tree at level 2, where
// freebsd-makefs crashes (twenty-one directories that convert to one
// identifier outlast its hundred renaming rounds): the image is made, and
// under Rock Ridge bsdtar extracts the source tree from it.
func TestCollisionsLevel2(t *testing.T) {
	t.Parallel()
	if _, err := Build(fstree.Dir(makeTree(t, "collide")), nil); err != nil {
		t.Fatal(err)
	}
	tooltest.Need(t, "bsdtar")
	dir, img := readerImage(t, "collide", "rockridge")
	out := filepath.Join(t.TempDir(), "x")
	must(t, os.Mkdir(out, 0o755))
	run(t, "bsdtar", "-xpf", img, "-C", out)
	compareEntries(t, sourceEntries(t, dir), sourceEntries(t, out))
}
