package ffs

import (
	"errors"
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// TestInMemoryBudget checks that Build and Write refuse an image that
// does not fit the memory limit, since they hold all of it in memory,
// while its bookkeeping alone fits. Before checkInMemory both allocated
// it: here 512 MiB past a 256 MiB limit, which the runtime allows; past
// what the system can give (FuzzOptions asked for a 16 GiB image with a
// large Options.Density; under an 8 GB address-space limit), the runtime
// died with "fatal error: out of memory". It sets the process's memory
// limit, so it does not run in parallel.
func TestInMemoryBudget(t *testing.T) {
	// not parallel: it sets the process memory limit, which every test shares.
	old := debug.SetMemoryLimit(256 << 20)
	defer debug.SetMemoryLimit(old)
	src := fstree.FS(fstest.MapFS{"a": {Data: []byte("x")}})
	o := &Options{Size: 512 << 20, Density: 1 << 30}
	check := func(fn string, err error) {
		t.Helper()
		if !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), "hold the image in memory") || !strings.Contains(err.Error(), "Options.Size") {
			t.Errorf("%s of 512 MiB with a limit of 256 MiB: error %v", fn, err)
		}
	}
	_, err := Build(src, o)
	check("Build", err)
	_, err = Write(&writerAtBuffer{}, src, o)
	check("Write", err)
}
