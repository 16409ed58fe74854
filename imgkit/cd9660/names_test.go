package cd9660

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

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

// TestArchimedesBlock checks the ARCHIMEDES block of a typed file and of
// a "!" name, and that the type is cut off the identifier.
func TestArchimedesBlock(t *testing.T) {
	t.Parallel()
	mtime := time.Unix(1700000000, 0)
	b := archimedesTail("prog,ffb", mtime)
	// RISC OS time: (1700000000 + 2208988800) * 100 = 0x5b_03638e00.
	want := []byte("ARCHIMEDES\x5b\xfb\xff\xff\x00\x8e\x63\x03\x11\x00")
	if len(b) != archimedesLen || !bytes.Equal(b[:20], want) {
		t.Errorf("block % x, want % x", b, want)
	}
	if b := archimedesTail("!Run", mtime); b == nil || b[19] != cdfsPling || b[11] != 0 || b[12] != 0xf0 {
		t.Errorf("!Run: block % x", b)
	}
	if archimedesTail("plain", mtime) != nil || archimedesType("odd,zzz") != 0 || archimedesType("a,1gz") != 1 {
		t.Error("plain names get no block; strtoul reads a hex prefix")
	}
	r := nameRules{level: 2, archimedes: true}
	if id, n := r.convert("prog,ffb", true); string(id[:n]) != "PROG.;1" {
		t.Errorf("identifier %q", id[:n])
	}
}
