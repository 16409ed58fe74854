package mkimg

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestRawDiskHasData checks hasData on a disk in memory and on a sparse
// file whose first run of data holds only zeros: a range is data exactly
// when one of its bytes is other than zero, wherever the file's holes are.
func TestRawDiskHasData(t *testing.T) {
	t.Parallel()
	const size = 8 << 20
	disk := make([]byte, size)
	disk[5<<20+7] = 1
	name := filepath.Join(t.TempDir(), "raw")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(make([]byte, 64<<10), 1<<20); err != nil { // stored zeros
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{1}, 5<<20+7); err != nil {
		t.Fatal(err)
	}
	for _, d := range []*rawDisk{
		{r: bytes.NewReader(disk), size: size, secsz: 512},
		{r: f, size: size, secsz: 512, file: f},
	} {
		for _, c := range []struct {
			off, n int64
			want   bool
		}{
			{0, size, true},
			{0, 5 << 20, false},
			{1 << 20, 4 << 20, false},
			{5 << 20, 8, true},
			{5<<20 + 8, 3 << 20, false},
			{5<<20 + 7, 1, true},
			{size, 4096, false},
		} {
			got, err := d.hasData(c.off, c.n)
			if err != nil || got != c.want {
				t.Errorf("file %v: hasData(%d, %d) = %v, %v; want %v", d.file != nil, c.off, c.n, got, err, c.want)
			}
		}
	}
}
