package mkimg

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// checkReproducible writes args, a command line without -y, with
// WriteFile and Build in each of two directories of inputs' files, and
// fails t unless the four disks are the same bytes; it returns the disk.
func checkReproducible(t *testing.T, args []string) []byte {
	t.Helper()
	var disks [][]byte
	for range 2 {
		dir := t.TempDir()
		inputs(t, dir)
		o := parseIn(t, dir, args)
		disks = append(disks, writeFileBytes(t, o), mustBuild(t, o))
	}
	for i, d := range disks[1:] {
		if !bytes.Equal(d, disks[0]) {
			t.Fatalf("%s in directory %d differs from WriteFile in directory 1", []string{"WriteFile", "Build"}[(i+1)%2], (i+1)/2+1)
		}
	}
	return disks[0]
}

// checkRefused checks that WriteFile refuses the command line line with
// one line wrapping is and saying want, and leaves nothing in the
// output's directory.
func checkRefused(t *testing.T, line string, is error, want string) {
	t.Helper()
	dir := t.TempDir()
	o, err := Parse(strings.Fields(line))
	if err != nil {
		t.Fatal(err)
	}
	err = WriteFile(filepath.Join(dir, "disk.img"), o)
	if !errors.Is(err, is) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("%s: got %v, want one line wrapping %v saying %q", line, err, is, want)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%s: left behind: %v", line, left)
	}
}
