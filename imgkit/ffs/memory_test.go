package ffs

import (
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// TestMemoryBudget checks that an image whose bookkeeping would exceed the
// Go memory limit is refused before anything is allocated, and that the
// estimate is of the bounded bookkeeping: a 4 TiB UFS2 image fits 64 MiB
// (the estimate of every group unpacked refused it). It sets the process's
// memory limit, so it does not run in parallel.
func TestMemoryBudget(t *testing.T) {
	// not parallel: it sets the process's memory limit.
	old := debug.SetMemoryLimit(4 << 20)
	defer debug.SetMemoryLimit(old)
	img := filepath.Join(t.TempDir(), "big.img")
	err := WriteFile(img, fstree.FS(fstest.MapFS{"a": {Data: []byte("x")}}), &Options{Size: 1 << 40})
	if !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), "MiB of memory to build, more than the 4 MiB available") {
		t.Errorf("1 TiB with a limit of 4 MiB: error %v", err)
	}
	if _, serr := os.Stat(img); err != nil && serr == nil {
		t.Error("a refused image was left behind")
	}
	// What the bounded bookkeeping needs fits a limit the old estimate
	// (every group unpacked, 243 MB for 4 TiB of UFS2) did not. Laying
	// out 4 TiB is the slowest serial step under the race detector, so
	// -short (CI's race run) leaves it to the run without -short.
	if testing.Short() {
		return
	}
	debug.SetMemoryLimit(64 << 20)
	if err := WriteFile(img, fstree.FS(fstest.MapFS{"a": {Data: []byte("x")}}), &Options{Version: 2, Size: 4 << 40}); err != nil {
		t.Errorf("4 TiB of UFS2 with a limit of 64 MiB: %v", err)
	}
}
