package makefs

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// TestRunProgress checks that Command.Progress reaches the image writers
// of every type: the count of a build is the same in both cache modes,
// and at least every non-zero byte of the image (each was written) and
// the tree's file data.
func TestRunProgress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(filepath.Join(src, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("fixture"), 60000) // 420,000 bytes
	if err := os.WriteFile(filepath.Join(src, "d", "big"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "small"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"ffs", "msdos", "cd9660"} {
		counts := map[string]int64{}
		for _, mode := range []string{"mmap", "copy"} {
			getenv := func(k string) string {
				if k == "FIXTUREGEN_CACHE" {
					return mode
				}
				return ""
			}
			img := filepath.Join(dir, typ+"-"+mode+".img")
			c, err := Parse([]string{"-t", typ, "-T", "0", img, src}, dir, getenv)
			if err != nil {
				t.Fatal(err)
			}
			var n progress.Meter
			c.Progress = &n
			if err := c.Run(io.Discard, io.Discard); err != nil {
				t.Fatalf("%s, %s mode: %v", typ, mode, err)
			}
			b, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			nonZero := int64(len(b) - bytes.Count(b, []byte{0}))
			if n.Count() < nonZero || n.Count() < int64(len(data)) {
				t.Errorf("%s, %s mode: Progress = %d, below the image's %d non-zero bytes or the %d bytes of file data", typ, mode, n.Count(), nonZero, len(data))
			}
			counts[mode] = n.Count()
		}
		if counts["mmap"] != counts["copy"] {
			t.Errorf("%s: Progress = %d in mmap mode, %d in copy mode", typ, counts["mmap"], counts["copy"])
		}
	}
}
