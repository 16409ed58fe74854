package mkimg

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQCOWRescan writes qcow and qcow2 containers of a disk of several
// data runs with qcowMaxRuns at 1, so that the runs are found again as
// the tables and the data are written, and checks them against those of
// the runs kept, in memory and through a file. It changes qcowMaxRuns,
// so it does not run in parallel (parallel tests start after it).
func TestQCOWRescan(t *testing.T) {
	// not parallel: it lowers the package variable qcowMaxRuns, which the
	// parallel tests, paused until it returns, read
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{0, 200 << 10, 1 << 20, 3<<20 + 7, 5<<20 - 1} {
		if _, err := f.WriteAt([]byte("a run of data"), off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	for _, format := range []string{"qcow", "qcow2"} {
		args := strings.Fields("-f " + format + " -s gpt -p freebsd-ufs:=runs -p efi::1m")
		build := func() ([]byte, []byte) {
			o := parseIn(t, dir, args)
			name := filepath.Join(t.TempDir(), "d")
			if err := WriteFile(name, o); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			return mustBuild(t, o), b
		}
		wantMem, wantFile := build()
		saved := qcowMaxRuns
		qcowMaxRuns = 1
		gotMem, gotFile := build()
		qcowMaxRuns = saved
		if !bytes.Equal(gotMem, wantMem) || !bytes.Equal(gotFile, wantFile) || !bytes.Equal(wantMem, wantFile) {
			t.Errorf("-f %s: the container of runs found again differs from that of runs kept (memory %v, file %v)", format, bytes.Equal(gotMem, wantMem), bytes.Equal(gotFile, wantFile))
		}
	}
}
