package mkimg

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// TestProgress checks that Options.Progress counts the bytes written into
// the disk, on a file and in memory: at least the partition file's bytes,
// and no more than the disk's size plus the metadata written over zeros.
func TestProgress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	part := filepath.Join(dir, "part.bin")
	data := make([]byte, 300000)
	for i := range data {
		data[i] = byte(i%251 + 1)
	}
	if err := os.WriteFile(part, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"file", "memory"} {
		var n progress.Meter
		o := &Options{Scheme: "gpt", Partitions: []Partition{{Type: "efi", File: part}}, Progress: &n}
		var size int64
		if target == "file" {
			disk := filepath.Join(dir, "disk.img")
			if err := WriteFile(disk, o); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(disk)
			if err != nil {
				t.Fatal(err)
			}
			size = fi.Size()
		} else {
			b, err := Build(o)
			if err != nil {
				t.Fatal(err)
			}
			size = int64(len(b))
		}
		if got := n.Count(); got < int64(len(data)) || got > size {
			t.Errorf("%s: Progress = %d, want from the partition's %d bytes to the disk's %d", target, got, len(data), size)
		}
	}
}
