package makefs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/cd9660"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

func TestCD9660Options(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	warn := new(bytes.Buffer)
	a, err := Parse([]string{"-t", "cd9660", "-T", "86400", "-s", "1m",
		"-o", "R,l=1,label=vol,joliet,no-trailing-padding=0", "out.iso", "src"}, dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	o, err := cd9660FSType.options(a, warn)
	if err != nil {
		t.Fatal(err)
	}
	if !o.RockRidge || o.ISOLevel != 1 || o.Label != "VOL" || !o.Joliet || !o.NoTrailingPadding || o.Size != 1<<20 ||
		!o.Timestamp.Equal(time.Unix(86400, 0)) || o.ClampTimes || o.Warn != warn {
		t.Errorf("options %+v", o)
	}
	a, err = Parse([]string{"-t", "cd9660", "-o", "bootimage=i386;boot/cd.img,generic-bootimage=mbr.img", "out.iso", "src"}, dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if o, err = cd9660FSType.options(a, warn); err != nil {
		t.Fatal(err)
	}
	if len(o.Boot.Images) != 1 || o.Boot.Images[0].File != filepath.Join(dir, "boot/cd.img") || o.Boot.GenericImage != filepath.Join(dir, "mbr.img") {
		t.Errorf("boot paths not resolved against %s: %+v", dir, o.Boot)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "nosuch"}, `-o nosuch: unknown option "nosuch" for -t cd9660 (keys: allow-deep-trees, allow-illegal-chars, `},
		{[]string{"-o", "nosuch"}, `, rockridge, verbose, volumeid; -o help describes them)`},
		{[]string{"-o", "isolevel=4"}, `isolevel: "4": number out of range`},
		{[]string{"-o", "rockridge=2"}, `rockridge: "2": number out of range`},
		{[]string{"-o", "label=a.b"}, `label: "a.b" must be at most 32 d-characters`},
	} {
		a, err := Parse(append(append([]string{"-t", "cd9660"}, c.args...), "out.iso", "src"), dir, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cd9660FSType.options(a, warn)
		var ue *UsageError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ue) {
			t.Errorf("%v: error %v, want a usage error with %q", c.args, err, c.want)
		}
	}
}

// TestCD9660Run builds an image through the command line and checks it
// is the one cd9660.Build makes, and that a tree too deep is an error
// that names the path and the -o key, leaving no image.
func TestCD9660Run(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(filepath.Join(src, "a/b/c/d/e/f/g/h"), 0o755)
	os.WriteFile(filepath.Join(src, "file.txt"), []byte("data"), 0o644)
	c, err := Parse([]string{"-t", "cd9660", "-T", "1000", "-o", "rockridge", "out.iso", "src"}, dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(nil, nil); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "out.iso"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := cd9660.Build(fstree.Dir(src), &cd9660.Options{RockRidge: true, Timestamp: time.Unix(1000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("makefs -t cd9660 and cd9660.Build differ")
	}
	c, err = Parse([]string{"-t", "cd9660", "deep.iso", "src"}, dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Run(nil, nil)
	if err == nil || !errors.Is(err, cd9660.ErrDeepTree) || !strings.Contains(err.Error(), "a/b/c/d/e/f/g/h") ||
		!strings.Contains(err.Error(), "allow-deep-trees") {
		t.Errorf("deep tree: error %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "deep.iso")); err == nil {
		t.Error("a failed build left deep.iso")
	}
}
