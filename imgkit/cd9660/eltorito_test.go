package cd9660

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

func TestParseBootOptionAppliesToLastImage(t *testing.T) {
	t.Parallel()
	var o Options
	for _, it := range []string{"B=i386;a.img", "no-emul-boot", "bootimage=efi;b;c.img",
		"hard-disk-boot", "no-boot", "boot-load-segment=0x7C0", "platformid=efi", "C", "G=gen", "bootimagedir=boot"} {
		key, value, _ := strings.Cut(it, "=")
		if err := ParseOption(&o, key, value); err != nil {
			t.Fatalf("%s: %v", it, err)
		}
	}
	b := o.Boot
	want := Boot{
		Images: []BootImage{
			{System: "i386", File: "a.img", Media: MediaNoEmulation},
			// The file name is all after the first semicolon.
			{System: "efi", File: "b;c.img", Media: MediaHardDisk, NoBoot: true, LoadSegment: 0x7c0, PlatformID: "efi"},
		},
		ImageDir:     "boot",
		GenericImage: "gen",
		CHRPBoot:     true,
	}
	if !slices.Equal(b.Images, want.Images) || b.ImageDir != want.ImageDir || b.GenericImage != want.GenericImage || b.CHRPBoot != want.CHRPBoot {
		t.Errorf("got %+v, want %+v", b, want)
	}
	if err := ParseOption(&o, "chrp-boot", "0"); err != nil || o.Boot.CHRPBoot {
		t.Errorf("chrp-boot=0: error %v, CHRPBoot %v", err, o.Boot.CHRPBoot)
	}
}

func TestParseBootOptionErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		opts string
		want error
	}{
		{"bootimage=", ErrOption},
		{"bootimage=a.img", ErrOption},
		{"bootimage=arm;a.img", ErrOption},
		{"bootimage=I386;a.img", ErrOption},
		{"no-emul-boot", ErrOption},
		{"hard-disk-boot", ErrOption},
		{"no-boot", ErrOption},
		{"platformid=efi", ErrOption},
		{"boot-load-segment=7c0", ErrOption},
		{"B=i386;a,boot-load-segment=", ErrOption},
		{"B=i386;a,boot-load-segment=zz", ErrOption},
		{"B=i386;a,boot-load-segment=10000", ErrOption},
		{"B=i386;a,boot-load-segment=+7c0", ErrOption},
		{"B=i386;a,boot-load-segment=0x", ErrOption},
		{"B=i386;a,platformid=x86", ErrOption},
		{"B=i386;a,platformid=", ErrOption},
		{"bootimagedir=", ErrOption},
		{"bootimagedir=a-b", ErrOption},
		{"bootimagedir=ABCDEFGHIJKLM", ErrOption},
		{"chrp-boot=2", ErrOption},
		{"generic-bootimage=", ErrOption},
	} {
		var o Options
		var err error
		for _, it := range strings.Split(c.opts, ",") {
			key, value, _ := strings.Cut(it, "=")
			if err = ParseOption(&o, key, value); err != nil {
				break
			}
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.opts, err, c.want)
		}
	}
}

// TestBootErrorsAsFreeBSD checks that the options this package refuses
// are those FreeBSD's makefs refuses (it exits 1), except the two it
// only warns about: a load segment that is not a number (makefs loads at
// 0) and a platform other than efi (makefs keeps the system's).
func TestBootErrorsAsFreeBSD(t *testing.T) {
	t.Parallel()
	dir := makeBootDir(t, map[string]bootFile{"a.img": {size: 3000}, "big.img": {size: 32769}})
	for _, c := range []struct {
		opts    string
		refused bool // by makefs
	}{
		{"no-emul-boot,bootimage=i386;a.img", true},
		{"bootimage=arm;a.img", true},
		{"bootimage=a.img", true},
		{"bootimage=i386;missing.img", true},
		{"generic-bootimage=big.img", true},
		{"bootimagedir=a-b", true},
		{"bootimagedir=ABCDEFGHIJKLM", true},
		{"bootimage=i386;a.img,chrp-boot=2", true},
		{"bootimage=i386;a.img,boot-load-segment=", true},
		{"bootimage=i386;a.img,boot-load-segment=zz", false},
		{"bootimage=i386;a.img,platformid=x86", false},
	} {
		cmd := exec.Command(tooltest.Need(t, "freebsd-makefs"), "-t", "cd9660", "-o", c.opts, "out.iso", "tree")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if refused := err != nil; refused != c.refused {
			t.Errorf("%s: makefs refused it: %v, want %v\n%s", c.opts, refused, c.refused, out)
		}
		if err := bootOptionsError(dir, c.opts); err == nil {
			t.Errorf("%s: accepted", c.opts)
		}
	}
}

// bootOptionsError is the first error of parsing opts, checking the Boot
// and reading its files in dir.
func bootOptionsError(dir, opts string) error {
	b, err := checkedBootOptions(dir, opts)
	if err != nil {
		return err
	}
	if _, err := b.imageSizes(); err != nil {
		return err
	}
	_, err = b.genericImage()
	return err
}

// checkedBootOptions reads makefs -o options into a Boot as the writer's
// option table does, with the file names made relative to dir, and
// checks it.
func checkedBootOptions(dir, opts string) (*Boot, error) {
	var o Options
	for _, it := range strings.Split(opts, ",") {
		key, value, _ := strings.Cut(it, "=")
		if err := ParseOption(&o, key, value); err != nil {
			return nil, fmt.Errorf("option %s: %w", it, err)
		}
	}
	b := o.Boot
	for i := range b.Images {
		b.Images[i].File = filepath.Join(dir, b.Images[i].File)
	}
	if b.GenericImage != "" {
		b.GenericImage = filepath.Join(dir, b.GenericImage)
	}
	if err := b.check(); err != nil {
		return nil, err
	}
	return &b, nil
}

func TestBootCheckNamesFields(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		boot Boot
		want string
	}{
		{Boot{Images: []BootImage{{System: "i386"}, {System: "arm"}}}, "Options.Boot.Images[1].System"},
		{Boot{Images: []BootImage{{System: "efi", PlatformID: "x86"}}}, "Options.Boot.Images[0].PlatformID"},
		{Boot{Images: []BootImage{{System: "efi", Media: 7}}}, "Options.Boot.Images[0].Media"},
		{Boot{ImageDir: "a/b"}, "Options.Boot.ImageDir"},
	} {
		if err := c.boot.check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %s", c.boot, err, c.want)
		}
	}
	dir := t.TempDir()
	b := Boot{Images: []BootImage{{System: "i386", File: dir}}}
	if _, err := b.imageSizes(); !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), "Options.Boot.Images[0].File") {
		t.Errorf("a directory as boot image: %v", err)
	}
	b = Boot{GenericImage: filepath.Join(dir, "missing")}
	if _, err := b.genericImage(); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "Options.Boot.GenericImage") {
		t.Errorf("a missing generic boot image: %v", err)
	}
}

func TestValidationEntryChecksum(t *testing.T) {
	t.Parallel()
	for _, platform := range []byte{etPlatformX86, etPlatformPPC, etPlatformMac, etPlatformEFI} {
		var e catalogEntry
		putValidationEntry(&e, platform)
		var sum uint16
		for i := 0; i < len(e); i += 2 {
			sum += binary.LittleEndian.Uint16(e[i:])
		}
		if sum != 0 || e.headerID()[0] != etHeaderValidation || e.platformID()[0] != platform || string(e.keyBytes()) != "\x55\xaa" {
			t.Errorf("platform %#x: entry %x sums to %#x", platform, e, sum)
		}
	}
}

func TestPlanBootLimits(t *testing.T) {
	t.Parallel()
	mac := make([]BootImage, 60)
	for i := range mac {
		mac[i] = BootImage{System: "macppc"}
	}
	sizes := make([]int64, 62)
	if _, err := planBoot(&Boot{Images: mac}, sizes, 19, SectorSize, false); err != nil {
		t.Errorf("60 Mac images: %v", err)
	}
	if _, err := planBoot(&Boot{Images: append(mac, BootImage{System: "mac68k"})}, sizes, 19, SectorSize, false); !errors.Is(err, ErrParams) {
		t.Errorf("61 Mac images: %v, want ErrParams", err)
	}
	ppc := make([]BootImage, 2020)
	for i := range ppc {
		ppc[i] = BootImage{System: "powerpc"}
	}
	if _, err := planBoot(&Boot{Images: ppc[:2019]}, make([]int64, 2019), 19, SectorSize, false); err != nil {
		t.Errorf("2019 powerpc images: %v", err)
	}
	if _, err := planBoot(&Boot{Images: ppc}, make([]int64, 2020), 19, SectorSize, false); !errors.Is(err, ErrParams) {
		t.Errorf("2020 powerpc images: %v, want ErrParams", err)
	}
	huge := []int64{1 << 42}
	if _, err := planBoot(&Boot{Images: []BootImage{{System: "i386"}}}, huge, 19, SectorSize, false); !errors.Is(err, ErrParams) {
		t.Errorf("a 4 TiB image: %v, want ErrParams", err)
	}
	if p, err := planBoot(&Boot{}, nil, 19, SectorSize, false); p != nil || err != nil {
		t.Errorf("no images: plan %v, error %v", p, err)
	}
}

func TestOptionHelpHasBootOptions(t *testing.T) {
	t.Parallel()
	help := OptionHelp()
	if !slices.IsSortedFunc(help, func(a, b fsopt.Option) int { return strings.Compare(a.Key, b.Key) }) {
		t.Errorf("OptionHelp is not sorted: %v", help)
	}
	for _, b := range bootOptions {
		i := slices.IndexFunc(help, func(o fsopt.Option) bool { return o.Key == b.Key })
		if i < 0 || help[i].Field == "" || help[i].Usage == "" || help[i].Default == "" {
			t.Errorf("%s: in OptionHelp at %d: %+v", b.Key, i, b.Option)
		}
	}
}
