package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildNames checks, end to end, that fixturegen build refuses an
// output name that fixtures.sum could not hold, naming the manifest line,
// and writes no fixtures.sum; and that a manifest saved with a byte-order
// mark and CR LF endings, with a comment ending in '\', builds every entry.
func TestBuildNames(t *testing.T) {
	t.Parallel()
	run := buildRunner(t)
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":            "module m\n",
		"fixtures/manifest": "# two archives\n'a b.a': ar rcs 'a b.a' x.o\n",
		"fixtures/x.o":      "x\n",
	})
	code, stdout, stderr := run(root, "build")
	if code == 0 || !strings.Contains(stderr, `manifest:2: "a b.a": bad output name: holds a space, which separates the fields of fixtures.sum`) {
		t.Errorf("build: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "fixtures", "fixtures.sum")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("fixtures.sum written: %v", err)
	}
	writeFiles(t, root, map[string]string{
		"fixtures/manifest": "\ufeff# two archives \\\r\na.a: ar rcs a.a x.o\r\nb.a: ar rcs \\\r\n  b.a x.o\r\n",
	})
	code, stdout, stderr = run(root, "build")
	if code != 0 || !strings.Contains(stdout, "build: 2 built") {
		t.Errorf("build: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr = run(root, "verify"); code != 0 {
		t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
}
