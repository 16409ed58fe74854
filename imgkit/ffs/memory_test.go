package ffs

import (
	"errors"
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// TestMemoryBudget checks that an image whose per-group bookkeeping would
// exceed the Go memory limit is refused before anything is allocated (fails
// without the check: a 1 TiB UFS1 image takes 600 MB to build, and on a
// machine with less the runtime dies with "fatal error: out of memory").
// It sets the process's memory limit, so it does not run in parallel.
func TestMemoryBudget(t *testing.T) {
	// not parallel: it sets the process's memory limit.
	old := debug.SetMemoryLimit(256 << 20)
	defer debug.SetMemoryLimit(old)
	_, err := Build(fstree.FS(fstest.MapFS{"a": {Data: []byte("x")}}), &Options{Size: 1 << 40})
	if !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), "MiB of memory to build, more than the 256 MiB available") {
		t.Errorf("1 TiB with a limit of 256 MiB: error %v", err)
	}
}
