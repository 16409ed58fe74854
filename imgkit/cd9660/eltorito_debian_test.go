package cd9660

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestBootDebianIdentity compares compat=debian images with boot options
// with Debian's makefs's, whole, as TestDebianIdentity compares them
// (with its masks, none in the boot area), on every boot configuration
// of bootCases that Debian's makefs has: not those with the efi system,
// platformid or chrp-boot, which it refuses. With FIXTUREGEN_LONG=1
// each configuration is compared with and without Rock Ridge; by default
// one of the two, in turn.
func TestBootDebianIdentity(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "makefs")
	n := 0 // the cases run so far, which take the variants in turn (tooltest.Pick)
	for k, c := range bootCases {
		if !tooltest.ShortSample(k, 3) {
			continue // -short (CI's race run): every third case; the run without -short, all
		}
		if !debianHasBootOptions(c.opts) {
			continue
		}
		extras := tooltest.Pick(n, [][]string{nil, {"rockridge"}})
		n++
		for _, extra := range extras {
			t.Run(c.name+"/"+strings.Join(extra, ","), func(t *testing.T) {
				t.Parallel()
				files := makeBootDir(t, c.files)
				items := append(absBootOptions(files, c.opts), extra...)
				dir := makeTree(t, "basic")
				tooltest.PinTimes(t, dir, time.Unix(fbsdStamp, 0))
				img := filepath.Join(t.TempDir(), "debian.iso")
				args := []string{"-t", "cd9660"}
				for _, it := range items {
					args = append(args, "-o", it)
				}
				tooltest.RunSorted(t, "", "makefs", append(args, img, dir)...)
				want, err := os.ReadFile(img)
				must(t, err)
				got, v := ourImage(t, dir, append(items, "compat=debian"))
				for _, img := range [][]byte{want, got} {
					maskVolumeDates(img)
					maskClockRecords(v, img)
				}
				if d := explainDiff(v, want, got); d != "" {
					t.Errorf("Debian's makefs and fixturegen differ: %s", d)
				}
			})
		}
	}
}

// debianHasBootOptions reports whether Debian's makefs takes every boot
// option of opts.
func debianHasBootOptions(opts string) bool {
	for _, it := range strings.Split(opts, ",") {
		key, value, _ := strings.Cut(it, "=")
		if key == "platformid" || key == "chrp-boot" || key == "C" ||
			(key == "bootimage" || key == "B") && strings.HasPrefix(value, "efi;") {
			return false
		}
	}
	return true
}

// TestBootDebianRefuses checks that compat=debian refuses the boot
// options Debian's makefs does not have, naming the field.
func TestBootDebianRefuses(t *testing.T) {
	t.Parallel()
	dir := makeBootDir(t, map[string]bootFile{"a.img": {size: 3000}})
	for _, c := range []struct{ opts, field string }{
		{"bootimage=efi;a.img", "Options.Boot.Images[0].System"},
		{"bootimage=i386;a.img,bootimage=i386;a.img,platformid=efi", "Options.Boot.Images[1].PlatformID"},
		{"bootimage=i386;a.img,chrp-boot", "Options.Boot.CHRPBoot"},
	} {
		o := fbsdOptions(t, append(absBootOptions(dir, c.opts), "compat=debian"))
		_, err := Build(tooltest.NestedTree(1), o)
		if !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: error %v, want ErrParams naming %s", c.opts, err, c.field)
		}
	}
}
