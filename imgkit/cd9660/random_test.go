package cd9660

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestFreeBSDRandomTrees compares fixturegen with freebsd-makefs on
// random trees (seeded, so every run makes the same ones): names of
// letters, digits, dots, blanks and punctuation, which collide after
// conversion, in nested directories, with files of random sizes and
// symlinks, at both levels, with and without Rock Ridge.
func TestFreeBSDRandomTrees(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "freebsd-makefs")
	for seed := range 8 {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			root := randomTree(t, uint64(seed))
			for _, opts := range [][]string{nil, {"isolevel=1"}, {"rockridge"}, {"rockridge", "isolevel=1", "omit-trailing-period"}} {
				want := freebsdImage(t, root, opts)
				got, v := ourImage(t, root, append(opts, "relocate-deep-trees"))
				if d := explainDiff(v, want, got); d != "" {
					t.Errorf("-o %s: freebsd-makefs and fixturegen differ: %s", strings.Join(opts, ","), d)
				}
			}
		})
	}
}

// randomTree makes a random tree of 40 entries from seed.
func randomTree(t *testing.T, seed uint64) string {
	t.Helper()
	const alphabet = "abAB01._-~ x.yZ"
	rng := rand.New(rand.NewPCG(seed, 7))
	root := filepath.Join(t.TempDir(), "src")
	must(t, os.Mkdir(root, 0o755))
	dirs := []string{root}
	for i := range 40 {
		b := make([]byte, 1+rng.IntN(40))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		p := filepath.Join(dirs[rng.IntN(len(dirs))], string(b))
		if _, err := os.Lstat(p); err == nil || string(b) == "." || string(b) == ".." {
			continue
		}
		switch rng.IntN(5) {
		case 0:
			must(t, os.Mkdir(p, 0o755))
			dirs = append(dirs, p)
		case 1:
			must(t, os.Symlink(fmt.Sprintf("t/../u/%d", i), p))
		default:
			must(t, os.WriteFile(p, make([]byte, rng.IntN(5000)), 0o644))
		}
	}
	return root
}
