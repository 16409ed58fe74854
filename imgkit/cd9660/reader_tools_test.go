package cd9660

import (
	"io/fs"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// listing returns the paths of fsys, without ".", sorted.
func listing(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	var out []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != "." {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// toolListing runs a reader and returns the paths it lists, cleaned by
// clean (which drops a line by returning ""), sorted.
func toolListing(t *testing.T, clean func(string) string, name string, args ...string) ([]string, error) {
	t.Helper()
	out, err := exec.Command(tooltest.Need(t, name), args...).Output()
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, l := range strings.Split(string(out), "\n") {
		if p := clean(l); p != "" {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return paths, nil
}

// withoutMoved drops the rr_moved directory (the reader hides it) from a
// listing.
func withoutMoved(paths []string) []string {
	return slices.DeleteFunc(paths, func(p string) bool {
		top, _, _ := strings.Cut(p, "/")
		return strings.EqualFold(strings.TrimPrefix(top, "."), "rr_moved")
	})
}

// TestOtherReaders compares the reader's listings of each tool's image
// with those of other readers: xorriso (-find) and bsdtar list the Rock
// Ridge tree, 7z the Joliet one. bsdtar refuses the makefs images of this
// tree, whose relocated directories it cannot connect (NetBSD's makefs
// writes no RE entries) or whose continuation areas it rejects; the test
// checks that it still does, so that a fixed bsdtar is noticed.
func TestOtherReaders(t *testing.T) {
	t.Parallel()
	bsdtarFails := map[string]bool{"makefs": true, "freebsd-makefs": true}
	for _, tool := range isoTools {
		t.Run(tool.name, func(t *testing.T) {
			t.Parallel()
			src := makeSource(t, testFiles())
			addSpecials(t, src)
			img := makeImage(t, tool, src)
			f := openBytesFile(t, img)
			rr := listing(t, f)
			got, err := toolListing(t, func(l string) string {
				return strings.TrimPrefix(strings.Trim(l, "'"), "/")
			}, "xorriso", "-indev", img, "-find", "/")
			compareListing(t, "xorriso -find", withoutMoved(got), rr, err)
			got, err = toolListing(t, func(l string) string {
				return strings.TrimSuffix(strings.TrimPrefix(l, "./"), "/")
			}, "bsdtar", "-tf", img)
			if bsdtarFails[tool.name] {
				if err == nil && slices.Equal(withoutMoved(slices.DeleteFunc(got, func(p string) bool { return p == "." })), rr) {
					t.Errorf("bsdtar now reads %s's image: drop it from bsdtarFails", tool.name)
				}
			} else {
				compareListing(t, "bsdtar -tf", slices.DeleteFunc(got, func(p string) bool { return p == "." }), rr, err)
			}
			j, err := f.View(Joliet)
			if err != nil {
				return // makefs writes no Joliet volume
			}
			got, err = toolListing(t, func(l string) string {
				p, ok := strings.CutPrefix(l, "Path = ")
				if !ok || p == img {
					return ""
				}
				return p
			}, "7z", "l", "-slt", img)
			compareListing(t, "7z l", got, listing(t, j), err)
		})
	}
}

// openBytesFile opens the image file img.
func openBytesFile(t *testing.T, img string) *FS {
	t.Helper()
	rc, err := OpenReader(img)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close() })
	return &rc.FS
}

// compareListing reports how a reader's listing differs from the FS's.
func compareListing(t *testing.T, reader string, got, want []string, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", reader, err)
		return
	}
	if !slices.Equal(got, want) {
		for _, p := range got {
			if !slices.Contains(want, p) {
				t.Errorf("%s lists %q, the reader does not", reader, p)
			}
		}
		for _, p := range want {
			if !slices.Contains(got, p) {
				t.Errorf("the reader lists %q, %s does not", p, reader)
			}
		}
	}
}
