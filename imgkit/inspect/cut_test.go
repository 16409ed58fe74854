package inspect

import (
	"bytes"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/cd9660"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// TestCutFileSystems checks the FAT, FFS and ISO 9660 readers on an image
// cut short, as blkid and fsck read one: the tree is listed as far as the
// image goes, describe.Warnings says how large the volume is and the
// image, a file whose data lies past the cut fails to read with an error
// wrapping imgfmt.ErrTruncated (no zeros, no short file), and a file
// before the cut reads whole.
func TestCutFileSystems(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("0123456789abcdef"), 40<<10) // 640 KiB
	src := fstree.FS(fstest.MapFS{
		"A.TXT":   {Data: []byte("first\n"), Mode: 0o644, ModTime: t0},
		"ZZZ.BIN": {Data: big, Mode: 0o644, ModTime: t0},
	})
	build := map[string]func() ([]byte, error){
		"msdos":  func() ([]byte, error) { return msdos.Build(src, &msdos.Options{Size: 1440 << 10, Timestamp: t0}) },
		"ffs":    func() ([]byte, error) { return ffs.Build(src, &ffs.Options{Timestamp: t0}) },
		"cd9660": func() ([]byte, error) { return cd9660.Build(src, &cd9660.Options{Timestamp: t0}) },
	}
	for name, b := range build {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			img, err := b()
			if err != nil {
				t.Fatal(err)
			}
			cut := img[:len(img)*2/5]
			fsys, kind, err := Open(bytes.NewReader(cut), int64(len(cut)))
			if err != nil || kind.Name != name {
				t.Fatalf("Open: %v, %v", kind, err)
			}
			items, err := List(fsys, kind)
			if err != nil || len(items) != 2 {
				t.Fatalf("List: %d items, %v", len(items), err)
			}
			if w := strings.Join(describe.Warnings(fsys), "; "); !strings.Contains(w, "ends past the image's end") {
				t.Errorf("warnings %q", w)
			}
			if got, err := fs.ReadFile(fsys, "A.TXT"); string(got) != "first\n" {
				t.Errorf("A.TXT: %q, %v", got, err)
			}
			if _, err := fs.ReadFile(fsys, "ZZZ.BIN"); !errors.Is(err, imgfmt.ErrTruncated) {
				t.Errorf("ZZZ.BIN past the cut: %v; want imgfmt.ErrTruncated", err)
			}
		})
	}
}
