package ffs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// memoryChildEnv makes the test binary, run again by
// TestMemoryAtAnySize, build the image and report its memory.
const memoryChildEnv = "FFS_MEMORY_AT_ANY_SIZE"

// memoryBound is what the writer may take from the system besides the
// mapped image, whatever the image's size (see Memory in DETAILS.md).
const memoryBound = 64 << 20

// TestMemoryAtAnySize builds with WriteFile, in a child process (so that
// no other test's heap counts), a 4 TiB UFS2 image holding a 256 GiB
// sparse file, and checks that the Go runtime took less than memoryBound
// from the system (runtime.MemStats.Sys: heap, stacks and the runtime's
// own, whatever was freed since; the image is mapped outside it). Before
// the cylinder groups were packed and indirect blocks written as the file
// was laid out, the same build took 243 MB for the groups alone and 8
// MiB per GiB of file for its indirect blocks.
func TestMemoryAtAnySize(t *testing.T) {
	if dir := os.Getenv(memoryChildEnv); dir != "" {
		memoryChild(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("lays out a 256 GiB file in a 4 TiB image")
	}
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(src, "big"))
	if err != nil {
		t.Fatal(err)
	}
	err = f.Truncate(256 << 30)
	if err == nil {
		_, err = f.WriteAt([]byte("data in the middle"), 100<<30)
	}
	f.Close()
	if err != nil {
		tooltest.Missing(t, "no 256 GiB sparse file here: "+err.Error())
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestMemoryAtAnySize$")
	cmd.Env = append(os.Environ(), memoryChildEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	sys, heap := memoryReport(t, string(out))
	t.Logf("runtime.MemStats.Sys %d KiB, HeapSys %d KiB", sys>>10, heap>>10)
	if sys >= memoryBound {
		t.Errorf("the writer took %d MiB from the system for a 4 TiB image, want under %d MiB", sys>>20, memoryBound>>20)
	}
}

// memoryChild builds the image of dir/src in dir/img and prints the
// runtime's memory statistics.
func memoryChild(t *testing.T, dir string) {
	err := WriteFile(filepath.Join(dir, "img"), fstree.Dir(filepath.Join(dir, "src")), &Options{Version: 2, Size: 4 << 40})
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("memory: sys %d heap %d\n", ms.Sys, ms.HeapSys)
}

// memoryReport finds the child's "memory:" line in out.
func memoryReport(t *testing.T, out string) (sys, heap int64) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 5 && f[0] == "memory:" {
			sys, _ = strconv.ParseInt(f[2], 10, 64)
			heap, _ = strconv.ParseInt(f[4], 10, 64)
			return sys, heap
		}
	}
	t.Fatalf("no memory report from the child:\n%s", out)
	return 0, 0
}
