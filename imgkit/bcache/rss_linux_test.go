package bcache

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMmapKeepsRssAnonSmall writes a 256 MiB image in mmap mode in a child
// process: the image must live in the page cache (RssFile), not in anonymous
// memory; the cache allocates nothing proportional to the image but its
// bitmap of touched chunks (64 KiB here).
func TestMmapKeepsRssAnonSmall(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 256 MiB")
	}
	out, err := startChild(t, "rss", filepath.Join(t.TempDir(), "img")).Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	kb := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 {
			kb[f[0]], _ = strconv.Atoi(f[1])
		}
	}
	t.Logf("%v (kB)", kb)
	if a, ok := kb["RssAnon:"]; !ok || a > 32<<10 {
		t.Errorf("RssAnon %d kB after writing a 256 MiB image, want under 32 MiB", a)
	}
	if kb["RssFile:"]+kb["RssShmem:"] < 200<<10 {
		t.Errorf("RssFile %d kB: the image does not seem to be mapped", kb["RssFile:"])
	}
}
