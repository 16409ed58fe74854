package mkimg_test

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/imgkit/mkimg"
)

// TestQCOWReadBack checks that the readers see through a qcow or qcow2
// container as through a raw disk: OpenReader's table and partitions,
// the FAT and UFS file systems inside through the disk's FS, and
// inspect's listing of the partitions.
func TestQCOWReadBack(t *testing.T) {
	t.Parallel()
	fat, ufs := fatImage(t, "hello from qcow\n"), ufsImage(t)
	for _, format := range []string{"qcow", "qcow2"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			o := &mkimg.Options{
				Scheme: "gpt",
				Format: format,
				Partitions: []mkimg.Partition{
					{Type: "efi", Label: "ESP", File: writeFile(t, dir, "fat.img", fat)},
					{Type: "freebsd-ufs", File: writeFile(t, dir, "ufs.img", ufs)},
					{Type: "freebsd-swap", Size: 1 << 20},
				},
			}
			img := filepath.Join(dir, "disk."+format)
			if err := mkimg.WriteFile(img, o); err != nil {
				t.Fatal(err)
			}
			d, err := mkimg.OpenReader(img)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			tab := d.Table()
			if tab.Scheme != "gpt" || len(tab.Partitions) != 3 || len(tab.Problems) != 0 {
				t.Fatalf("table %s, %d partitions, problems %q", tab.Scheme, len(tab.Partitions), tab.Problems)
			}
			for i, want := range [][]byte{fat, ufs, make([]byte, 1<<20)} {
				sec, err := d.Partition(i + 1)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(sec)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("partition %d: %d bytes that are not the input's %d", i+1, len(got), len(want))
				}
			}
			raw, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			checkFATInside(t, format, &d.Disk, raw, "hello from qcow\n")
			if b, err := fs.ReadFile(d.FS(inspect.Detect), "p2/etc/motd"); string(b) != "welcome\n" {
				t.Errorf("p2/etc/motd: %q, %v", b, err)
			}
			var out strings.Builder
			if err := inspect.ListFile(&out, bytes.NewReader(raw), int64(len(raw))); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "HELLO.TXT") || !strings.Contains(out.String(), "motd") {
				t.Errorf("inspect.ListFile of the %s container lists no files inside:\n%s", format, out.String())
			}
		})
	}
}
