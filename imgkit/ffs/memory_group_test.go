package ffs

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// groupChildEnv makes the test binary, run again by TestMemoryPerGroup,
// lay the images out and report their live heap.
const groupChildEnv = "FFS_MEMORY_PER_GROUP"

// groupBound is how many bytes of memory the writer may keep for each
// cylinder group besides the bounded caches (cgcache.go, gens.go).
const groupBound = 20

// groupCases are the pairs of images TestMemoryPerGroup compares: UFS2
// at 8 and 64 TiB (13,394 and 87,371 groups) and UFS1 with 4 KiB blocks,
// whose groups are small, at 64 and 256 GiB (7,091 and 28,364 groups).
var groupCases = [][2]Options{
	{{Version: 2, Size: 8 << 40}, {Version: 2, Size: 64 << 40}},
	{{Version: 1, BSize: 4096, FSize: 512, Size: 64 << 30}, {Version: 1, BSize: 4096, FSize: 512, Size: 256 << 30}},
}

// TestMemoryPerGroup lays out an empty tree (a dry run: nothing is
// written, so no disk is needed) in the images of groupCases in a child
// process (so that no other test's heap counts), and checks that the
// live heap with the writer held grows by less than groupBound bytes a
// cylinder group from the smaller image to the larger: what
// TestMemoryAtAnySize measures at 4 TiB then holds at any size. Before
// the per-group state was made compact, UFS2 took 280 bytes a group (24
// MB at 64 TiB).
func TestMemoryPerGroup(t *testing.T) {
	if os.Getenv(groupChildEnv) != "" {
		groupChild(t)
		return
	}
	if testing.Short() {
		t.Skip("lays out a 64 TiB image")
	}
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestMemoryPerGroup$")
	cmd.Env = append(os.Environ(), groupChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	n, heap := groupReport(t, string(out))
	for i, c := range groupCases {
		per := float64(heap[i][1]-heap[i][0]) / float64(n[i][1]-n[i][0])
		t.Logf("UFS%d: %d groups: %d KiB live; %d groups: %d KiB; %.1f bytes a group",
			c[0].Version, n[i][0], heap[i][0]>>10, n[i][1], heap[i][1]>>10, per)
		if per >= groupBound {
			t.Errorf("UFS%d: the writer keeps %.1f bytes a cylinder group, want under %d", c[0].Version, per, groupBound)
		}
	}
}

// groupReport reads the child's "groups:" lines from out: the number of
// groups and the live heap of each image of groupCases.
func groupReport(t *testing.T, out string) (n, heap [][2]int64) {
	t.Helper()
	n, heap = make([][2]int64, len(groupCases)), make([][2]int64, len(groupCases))
	for _, line := range strings.Split(out, "\n") {
		var i, j int
		var ncg, live int64
		if k, _ := fmt.Sscanf(line, "groups: %d %d %d %d", &i, &j, &ncg, &live); k == 4 && i < len(n) && j < 2 {
			n[i][j], heap[i][j] = ncg, live
		}
	}
	for i := range n {
		if n[i][1] <= n[i][0] {
			t.Fatalf("no report from the child for case %d:\n%s", i, out)
		}
	}
	return n, heap
}

// groupChild lays out the images of groupCases and prints, for each, its
// number of groups and the live heap with its writer held.
func groupChild(t *testing.T) {
	tree := &fstree.Tree{Root: &fstree.Node{Name: ".", Type: fstree.TypeDir, Mode: 0o755, Nlink: 2}}
	for i, c := range groupCases {
		for j := range c {
			w, err := plan(tree, &c[j])
			if err == nil {
				err = w.dryRun()
			}
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			fmt.Printf("groups: %d %d %d %d\n", i, j, w.g.ncg, ms.HeapAlloc)
			runtime.KeepAlive(w)
		}
	}
}
