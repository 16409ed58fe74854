package vdisk

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDiskHasData checks HasData on a disk in memory and on a sparse
// file whose first run of data holds only zeros: a range is data exactly
// when one of its bytes is other than zero, wherever the file's holes are.
func TestDiskHasData(t *testing.T) {
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
	for _, d := range []*Disk{NewDisk(bytes.NewReader(disk), size), NewFileDisk(f, size, nil, nil)} {
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
			got, err := d.HasData(c.off, c.n)
			if err != nil || got != c.want {
				t.Errorf("file %v: HasData(%d, %d) = %v, %v; want %v", !d.InMemory(), c.off, c.n, got, err, c.want)
			}
		}
	}
}
