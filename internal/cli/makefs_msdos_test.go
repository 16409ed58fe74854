package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

func TestMsdosOptions(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	e := &env{Dir: dir, Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer)}
	a, err := parseMakefsArgs(e, []string{"-t", "msdos", "-S", "4096", "-s", "20m", "-O", "64k", "-T", "86400",
		"-o", "F=16,volume_label=Lbl,A,B=boot/x", "out.img", "src"})
	if err != nil {
		t.Fatal(err)
	}
	o, err := msdosOptions(a)
	if err != nil {
		t.Fatal(err)
	}
	if o.BytesPerSector != 4096 || o.FATType != 16 || o.VolumeLabel != "Lbl" || !o.Align || o.Offset != 64<<10 ||
		o.Size != 20<<20 || o.MinSize != 20<<20 || o.MaxSize != 20<<20 || !o.Timestamp.Equal(time.Unix(86400, 0)) || o.ClampTimes || o.Warn != e.Stderr ||
		o.Bootstrap != filepath.Join(dir, "boot/x") {
		t.Errorf("options %+v", o)
	}
	for _, c := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{"-S", "512", "-o", "S=4096"}, true, "inconsistent sector size: -S 512, -o bytes_per_sector=4096"},
		{[]string{"-o", "nosuch"}, true, `-o nosuch: msdos: bad option: unknown msdos option "nosuch"`},
		{[]string{"-o", "F=11"}, true, "fat_type 11"},
	} {
		a, err := parseMakefsArgs(e, append(append([]string{"-t", "msdos"}, c.args...), "out.img", "src"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = msdosOptions(a)
		var ue *usageError
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.As(err, &ue) != c.usage {
			t.Errorf("%v: error %v, want %q (usage %v)", c.args, err, c.want, c.usage)
		}
		if err != nil && !c.usage && !errors.Is(err, msdos.ErrParams) {
			t.Errorf("%v: %v is not ErrParams", c.args, err)
		}
	}
}
