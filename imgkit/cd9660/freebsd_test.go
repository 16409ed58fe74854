package cd9660

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// These tests compare the writer with FreeBSD's own makefs -t cd9660
// (freebsd-makefs, a Linux port of FreeBSD's code) byte for byte, on trees
// whose readdir order tooltest.RunSorted makes bytewise, with -T so that
// every time is fixed. No byte is masked.

// fbsdStamp is the -T time of every comparison: 2023-11-14 22:13:20 UTC.
const fbsdStamp = 1700000000

// identityCases are the trees and -o options whose images must equal
// freebsd-makefs's.
// Options fixturegen has and makefs has not are in extra, given to the
// writer only.
var identityCases = []struct {
	tree  string
	opts  []string
	extra []string
}{
	{"basic", nil, nil},
	{"basic", []string{"isolevel=1"}, nil},
	{"basic", []string{"isolevel=2"}, nil},
	{"basic", []string{"rockridge"}, nil},
	{"basic", []string{"rockridge", "isolevel=1"}, nil},
	{"basic", []string{"R", "l=1"}, nil},
	{"basic", []string{"allow-multidot"}, nil},
	{"basic", []string{"allow-multidot", "rockridge"}, nil},
	{"basic", []string{"omit-trailing-period"}, nil},
	{"basic", []string{"omit-trailing-period", "isolevel=1"}, nil},
	{"basic", []string{"allow-lowercase"}, nil},
	{"basic", []string{"allow-illegal-chars"}, nil},
	{"basic", []string{"allow-max-name"}, nil},
	{"basic", []string{"allow-deep-trees"}, nil},
	{"basic", []string{"no-trailing-padding"}, nil},
	{"basic", []string{"rockridge=0"}, nil},
	{"basic", []string{"keep-bad-images", "verbose=0"}, nil},
	{"basic", []string{"label=Fixture_Vol", "applicationid=fixturegen test", "publisher=The Publisher",
		"preparer=prep", "volumeid=SET 1"}, nil},
	{"basic", []string{"L=lower", "A=A", "P=P", "p=p", "V=V"}, nil},
	{"links", nil, nil},
	{"links", []string{"rockridge"}, nil},
	{"links", []string{"rockridge", "isolevel=1"}, nil},
	{"longlink", nil, nil},
	{"longname", nil, nil},
	{"many", nil, nil},
	{"collide", []string{"isolevel=1"}, nil},
	{"collide", []string{"isolevel=1", "rockridge"}, nil},
	{"many", []string{"rockridge"}, nil},
	{"many", []string{"isolevel=1"}, nil},
	{"deep9", []string{"allow-deep-trees"}, nil},
	{"deep9", []string{"rockridge"}, []string{"relocate-deep-trees"}},
	{"deep15", []string{"allow-deep-trees"}, nil},
	{"deep15", []string{"allow-deep-trees", "isolevel=1"}, nil},
	{"deep15", []string{"rockridge"}, []string{"relocate-deep-trees"}},
}

// fbsdOptions turns -o items into the writer's Options, with the -T time.
func fbsdOptions(t *testing.T, items []string) *Options {
	t.Helper()
	o := &Options{Timestamp: time.Unix(fbsdStamp, 0).UTC()}
	for _, it := range items {
		k, v, _ := strings.Cut(it, "=")
		if err := ParseOption(o, k, v); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

// freebsdImage runs freebsd-makefs -t cd9660 on dir with the -o items and
// returns the image.
func freebsdImage(t *testing.T, dir string, items []string) []byte {
	t.Helper()
	img := filepath.Join(t.TempDir(), "freebsd.iso")
	args := []string{"-t", "cd9660", "-T", "1700000000"}
	for _, it := range items {
		args = append(args, "-o", it)
	}
	tooltest.RunSorted(t, "", "freebsd-makefs", append(args, img, dir)...)
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ourImage writes dir with the -o items through WriteFile and returns the
// image and its layout.
func ourImage(t *testing.T, dir string, items []string) ([]byte, *volume) {
	t.Helper()
	o := fbsdOptions(t, items)
	img := filepath.Join(t.TempDir(), "fixturegen.iso")
	if err := WriteFile(img, fstree.Dir(dir), o); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	v, err := prepare(fstree.Dir(dir), o)
	if err != nil {
		t.Fatal(err)
	}
	return b, v
}

// TestFreeBSDNoPadding compares the images of no-trailing-padding=0, the
// one value that leaves the padding out: freebsd-makefs then zeroes the
// last sector of the volume, which holds the last file's contents or the
// continuation areas, when it writes its "padding"; fixturegen keeps
// them. The last sector is masked, and must hold data in fixturegen's.
func TestFreeBSDNoPadding(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "freebsd-makefs")
	for _, opts := range [][]string{{"no-trailing-padding=0"}, {"no-trailing-padding=0", "rockridge"}} {
		t.Run(strings.Join(opts, ","), func(t *testing.T) {
			t.Parallel()
			dir := makeTree(t, "basic")
			want := freebsdImage(t, dir, opts)
			got, v := ourImage(t, dir, opts)
			last := got[len(got)-SectorSize:]
			if !bytes.ContainsFunc(last, func(r rune) bool { return r != 0 }) {
				t.Errorf("the last sector is zero")
			}
			masked := append(slices.Clip(got[:len(got)-SectorSize]), make([]byte, SectorSize)...)
			if d := explainDiff(v, want, masked); d != "" {
				t.Errorf("freebsd-makefs and fixturegen differ: %s", d)
			}
		})
	}
}

// TestFreeBSDIdentity compares the images of every identity case.
func TestFreeBSDIdentity(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "freebsd-makefs")
	for k, c := range identityCases {
		if !tooltest.ShortSample(k, 3) {
			continue // -short (CI's race run): every third case; the run without -short, all
		}
		name := c.tree + "/" + strings.Join(c.opts, ",")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := makeTree(t, c.tree)
			want := freebsdImage(t, dir, c.opts)
			got, v := ourImage(t, dir, append(c.opts, c.extra...))
			if d := explainDiff(v, want, got); d != "" {
				t.Errorf("freebsd-makefs and fixturegen differ: %s", d)
			}
		})
	}
}
