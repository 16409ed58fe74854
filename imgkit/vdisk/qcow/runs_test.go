package qcow

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
)

// TestQCOWRescan checks that the container of runs found again (past
// qcowMaxRuns) is the same bytes as that of the runs kept, of a disk in
// memory and of one in a file. It changes qcowMaxRuns, so it does not
// run in parallel.
func TestQCOWRescan(t *testing.T) {
	// not parallel: it lowers the package variable qcowMaxRuns
	const size = 8 << 20
	raw := make([]byte, size)
	for _, off := range []int64{0, 200 << 10, 1 << 20, 3<<20 + 7, 5<<20 - 1} {
		copy(raw[off:], "a run of data")
	}
	write := func(f Format, d *vdisk.Disk) []byte {
		p := &vdisk.Params{SectorSize: 512, BlockSize: 512, Heads: 1, SectorsPerTrack: 1, Sectors: size / 512}
		n, w, err := f.Write(p, d)
		if err != nil {
			t.Fatal(err)
		}
		im, err := imgfmt.WriteImage(imgfmt.ToMemory(), n, nil, w)
		if err != nil {
			t.Fatal(err)
		}
		return im.Bytes()
	}
	for _, f := range []Format{{Version: 1}, {Version: 2}} {
		build := func() ([]byte, []byte) {
			name := filepath.Join(t.TempDir(), "raw")
			if err := os.WriteFile(name, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			fd, err := os.OpenFile(name, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			d := vdisk.NewFileDisk(fd, size, nil, nil)
			defer d.Close()
			return write(f, vdisk.NewDisk(bytes.NewReader(raw), size)), write(f, d)
		}
		wantMem, wantFile := build()
		saved := qcowMaxRuns
		qcowMaxRuns = 1
		gotMem, gotFile := build()
		qcowMaxRuns = saved
		if !bytes.Equal(gotMem, wantMem) || !bytes.Equal(gotFile, wantFile) || !bytes.Equal(wantMem, wantFile) {
			t.Errorf("-f %s: the container of runs found again differs from that of runs kept (memory %v, file %v)", f.Name(), bytes.Equal(gotMem, wantMem), bytes.Equal(gotFile, wantFile))
		}
	}
}
