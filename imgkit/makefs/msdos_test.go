package makefs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

func TestMsdosOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	warn := new(bytes.Buffer)
	a, err := Parse([]string{"-t", "msdos", "-S", "4096", "-s", "20m", "-O", "64k", "-T", "86400",
		"-o", "F=16,volume_label=Lbl,A,B=boot/x", "out.img", "src"}, dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	o, err := msdosFSType.options(a, warn)
	if err != nil {
		t.Fatal(err)
	}
	if o.BytesPerSector != 4096 || o.FATType != 16 || o.VolumeLabel != "Lbl" || !o.Align || o.Offset != 64<<10 ||
		o.Size != 20<<20 || o.MinSize != 20<<20 || o.MaxSize != 20<<20 || !o.Timestamp.Equal(time.Unix(86400, 0)) || o.ClampTimes || o.Warn != warn ||
		o.Bootstrap != filepath.Join(dir, "boot/x") {
		t.Errorf("options %+v", o)
	}
	for _, c := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{"-S", "512", "-o", "S=4096"}, true, "inconsistent sector size: -S 512, -o bytes_per_sector=4096"},
		{[]string{"-o", "nosuch"}, true, `-o nosuch: unknown option "nosuch" for -t msdos (keys: OEM_string, align, `},
		{[]string{"-o", "nosuch=1"}, true, `, volume_id, volume_label; -o help describes them)`},
		{[]string{"-o", "F=11"}, true, `fat_type: "11": number out of range: 11 is not between 12 and 255`},
	} {
		a, err := Parse(append(append([]string{"-t", "msdos"}, c.args...), "out.img", "src"), dir, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		_, err = msdosFSType.options(a, warn)
		var ue *UsageError
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.As(err, &ue) != c.usage {
			t.Errorf("%v: error %v, want %q (usage %v)", c.args, err, c.want, c.usage)
		}
		if err != nil && !c.usage && !errors.Is(err, msdos.ErrParams) {
			t.Errorf("%v: %v is not ErrParams", c.args, err)
		}
	}
}

func TestReword(t *testing.T) {
	t.Parallel()
	help := func() []fsopt.Option {
		return []fsopt.Option{{Key: "sectors_per_cluster", Letter: "c", Field: "SectorsPerCluster"}, {Key: "offset", Field: "Offset"}}
	}
	base := fmt.Errorf("%w: raise Options.SectorsPerCluster, or Options.Size = 4096; Options.SectorsPerCluster = 4 (Options.Offset = 512). Options.Unknown, MyOptions.Size", msdos.ErrParams)
	err := reword(base, help)
	want := "msdos: impossible parameters: raise sectors_per_cluster, or -s 4096; -o sectors_per_cluster=4 (-O 512). Options.Unknown, MyOptions.Size"
	if err.Error() != want || !errors.Is(err, msdos.ErrParams) {
		t.Errorf("reword: %q (errors.Is %v), want %q", err, errors.Is(err, msdos.ErrParams), want)
	}
	u := usagef("makefs: Options.Timestamp")
	var ue *UsageError
	if err := reword(u, nil); err.Error() != "makefs: -T" || !errors.As(err, &ue) {
		t.Errorf("reword of a usage error: %v", err)
	}
	nested := func() []fsopt.Option {
		return []fsopt.Option{{Key: "bootimage", Field: "Boot.Images"}, {Key: "platformid", Field: "Boot.Images[].PlatformID"}}
	}
	for in, want := range map[string]string{
		"Options.Boot.Images[1].File boot.img: no such file": "bootimage boot.img: no such file",
		"Options.Boot.Images[0].PlatformID = x: not efi":     "-o platformid=x: not efi",
		"Options.Boot.Other":                                 "Options.Boot.Other",
	} {
		if err := reword(errors.New(in), nested); err.Error() != want {
			t.Errorf("reword(%q) = %q, want %q", in, err, want)
		}
	}
	plain := errors.New("no fields here")
	if reword(plain, help) != plain || reword(nil, help) != nil {
		t.Error("reword changed an error that names no field")
	}
}
