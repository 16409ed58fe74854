package tooltest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFirstDiff compares sparse files whose data and holes lie in
// different places: explicit zeros equal a hole, a byte in one file's
// data or past the other's data is found, and a size difference is one;
// FirstDiffBytes finds the same differences from the first file's bytes.
func TestFirstDiff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, size int64, pieces map[int64][]byte) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for off, b := range pieces {
			if _, err := f.WriteAt(b, off); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const size = 64 << 20
	data := []byte("data")
	base := write("base", size, map[int64][]byte{0: data, 40 << 20: data})
	baseBytes := make([]byte, size)
	copy(baseBytes, data)
	copy(baseBytes[40<<20:], data)
	for _, c := range []struct {
		name   string
		size   int64
		pieces map[int64][]byte
		want   int64
	}{
		{"same", size, map[int64][]byte{0: data, 40 << 20: data}, -1},
		{"zeros for a hole", size, map[int64][]byte{0: data, 8 << 20: make([]byte, 3<<20), 40 << 20: data}, -1},
		{"in a hole of the other", size, map[int64][]byte{0: data, 20<<20 + 7: {1}, 40 << 20: data}, 20<<20 + 7},
		{"missing data", size, map[int64][]byte{0: data}, 40 << 20},
		{"changed data", size, map[int64][]byte{0: data, 40 << 20: []byte("dada")}, 40<<20 + 2},
		{"last byte", size, map[int64][]byte{0: data, 40 << 20: data, size - 1: {9}}, size - 1},
		{"shorter", size - 1, map[int64][]byte{0: data, 40 << 20: data}, size - 1},
	} {
		other := write(c.name, c.size, c.pieces)
		for _, pair := range [][2]string{{base, other}, {other, base}} {
			if got, err := FirstDiff(pair[0], pair[1]); err != nil || got != c.want {
				t.Errorf("%s: FirstDiff = %d, %v; want %d", c.name, got, err, c.want)
			}
		}
		if got, err := FirstDiffBytes(other, baseBytes); err != nil || got != c.want {
			t.Errorf("%s: FirstDiffBytes = %d, %v; want %d", c.name, got, err, c.want)
		}
	}
	if _, err := FirstDiff(base, filepath.Join(dir, "nosuch")); err == nil {
		t.Error("FirstDiff of a missing file: no error")
	}
	if _, err := FirstDiffBytes(filepath.Join(dir, "nosuch"), baseBytes); err == nil {
		t.Error("FirstDiffBytes of a missing file: no error")
	}
	if got, err := FirstDiffBytes(base, append(baseBytes, 0)); err != nil || got != size {
		t.Errorf("FirstDiffBytes with a byte more: %d, %v; want %d", got, err, size)
	}
}
