package cd9660_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/cd9660"
	"github.com/fixturegen/fixturegen/imgkit/makefs"
)

// TestDebianCommandLine checks that the makefs command line (-t cd9660
// -o compat=debian) makes the bytes WriteFile makes from the same options,
// which TestDebianIdentity compares with Debian's makefs: under -T, the
// files keep their own times, as Debian's makefs keeps them, with and
// without Rock Ridge and an mtree spec's time=. The files' modification
// time is 1700000000; -T is that, another time, or absent.
func TestDebianCommandLine(t *testing.T) {
	t.Parallel()
	for _, tree := range []string{"basic", "links"} {
		for _, items := range [][]string{{"compat=debian"}, {"compat=debian", "rockridge"}, {"compat=debian", "rockridge", "joliet"}} {
			for _, tr := range []struct {
				name  string
				stamp int64
				spec  bool
			}{
				{"T=mtime", 1700000000, false},
				{"T=other", 1600000000, false},
				{"noT", 0, false},
				{"spec,T=other", 1600000000, true},
				{"spec", 0, true},
			} {
				t.Run(tree+"/"+strings.Join(items, ",")+"/"+tr.name, func(t *testing.T) {
					t.Parallel()
					dir := cd9660.MakeTestTree(t, tree)
					spec := ""
					if tr.spec {
						spec = cd9660.WriteTimeSpec(t, dir, 1500000000)
					}
					want := cd9660.LibraryImage(t, dir, spec, tr.stamp, items)
					got := commandImage(t, dir, spec, tr.stamp, items)
					if !bytes.Equal(got, want) {
						i := 0
						for i < min(len(got), len(want)) && got[i] == want[i] {
							i++
						}
						t.Errorf("makefs -o %s and WriteFile differ from byte %#x (sizes %d and %d)", strings.Join(items, ","), i, len(got), len(want))
					}
				})
			}
		}
	}
}

// commandImage runs the makefs command line -t cd9660 on dir with the spec
// (when not ""), -T stamp (when not 0) and the -o items, and returns the
// image.
func commandImage(t *testing.T, dir, spec string, stamp int64, items []string) []byte {
	t.Helper()
	img := filepath.Join(t.TempDir(), "cmd.iso")
	args := cd9660.MakefsArgs(spec, stamp, items)
	c, err := makefs.Parse(append(args, img, dir), dir, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(nil, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
