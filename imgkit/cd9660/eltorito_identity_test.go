package cd9660

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestBootIdentity compares whole images with boot options with
// freebsd-makefs's, byte for byte, with and without Rock Ridge: every
// configuration of bootCases on the basic tree, the boot files outside
// the tree and named by absolute paths, which both read as given. With
// FIXTUREGEN_LONG=1 each configuration is compared with and without Rock
// Ridge; by default one of the two, in turn.
func TestBootIdentity(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "freebsd-makefs")
	n := 0 // the cases run so far, which take the variants in turn (tooltest.Pick)
	for k, c := range bootCases {
		if !tooltest.ShortSample(k, 3) {
			continue // -short (CI's race run): every third case; the run without -short, all
		}
		extras := tooltest.Pick(n, [][]string{nil, {"rockridge"}})
		n++
		for _, extra := range extras {
			t.Run(c.name+"/"+strings.Join(extra, ","), func(t *testing.T) {
				t.Parallel()
				files := makeBootDir(t, c.files)
				items := append(absBootOptions(files, c.opts), extra...)
				dir := makeTree(t, "basic")
				want := freebsdImage(t, dir, items)
				got, v := ourImage(t, dir, items)
				if d := explainDiff(v, want, got); d != "" {
					t.Errorf("freebsd-makefs and fixturegen differ: %s", d)
				}
			})
		}
	}
}

// TestBootImageInTree compares the images of a boot image that is also a
// file of the tree, as installers have it: it is written twice, as makefs
// writes it, once as the file's contents and once as the boot image.
func TestBootImageInTree(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "freebsd-makefs")
	dir := makeTree(t, "basic")
	items := []string{"bootimage=i386;" + filepath.Join(dir, "exact.bin"), "no-emul-boot", "rockridge"}
	want := freebsdImage(t, dir, items)
	got, v := ourImage(t, dir, items)
	if d := explainDiff(v, want, got); d != "" {
		t.Errorf("freebsd-makefs and fixturegen differ: %s", d)
	}
}

// absBootOptions splits opts into -o items with the boot files made
// absolute paths in dir.
func absBootOptions(dir, opts string) []string {
	var items []string
	for _, it := range strings.Split(opts, ",") {
		key, value, _ := strings.Cut(it, "=")
		switch key {
		case "bootimage", "B":
			sys, file, _ := strings.Cut(value, ";")
			it = key + "=" + sys + ";" + filepath.Join(dir, file)
		case "generic-bootimage", "G":
			it = key + "=" + filepath.Join(dir, value)
		}
		items = append(items, it)
	}
	return items
}

// TestBootEntryPoints checks that Build and Write make the bytes
// WriteFile makes with boot images and a generic boot image, and that a
// missing boot image fails before anything is written.
func TestBootEntryPoints(t *testing.T) {
	t.Parallel()
	files := makeBootDir(t, map[string]bootFile{"gen.img": {size: 3000}, "m.img": {size: 5000}, "f.img": {size: floppy144}})
	items := absBootOptions(files, "G=gen.img,bootimage=i386;f.img,bootimage=macppc;m.img,rockridge")
	dir := makeTree(t, "basic")
	want, _ := ourImage(t, dir, items)
	o := fbsdOptions(t, items)
	got, err := Build(fstree.Dir(dir), o)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("Build: error %v, same bytes as WriteFile: %v", err, bytes.Equal(got, want))
	}
	buf := make(sliceWriterAt, len(want))
	if n, err := Write(buf, fstree.Dir(dir), o); err != nil || n != int64(len(want)) || !bytes.Equal(buf, want) {
		t.Errorf("Write: %d bytes, error %v, same bytes as WriteFile: %v", n, err, bytes.Equal(buf, want))
	}
	o.Boot.Images[0].File = filepath.Join(files, "missing.img")
	target := filepath.Join(t.TempDir(), "out.iso")
	err = WriteFile(target, fstree.Dir(dir), o)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "Options.Boot.Images[0].File") {
		t.Errorf("a missing boot image: %v", err)
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed WriteFile left %s: %v", target, err)
	}
}
