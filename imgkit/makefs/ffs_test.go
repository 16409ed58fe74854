package makefs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// TestFFSOptions checks how the command line becomes ffs.Options, and its
// errors for -o.
func TestFFSOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	sde := ""
	getenv := func(k string) string {
		if k == fstree.SourceDateEpochEnv {
			return sde
		}
		return ""
	}
	warn := new(bytes.Buffer)
	options := func(args ...string) (*ffs.Options, error) {
		a, err := Parse(append(append([]string{"-t", "ffs"}, args...), "out.img", "src"), dir, getenv)
		if err != nil {
			t.Fatal(err)
		}
		return ffsFSType.options(a, warn)
	}
	o, err := options("-o", "compat=debian,minfree=0,version=2", "-T", "86400", "-s", "1m", "-Z")
	if err != nil {
		t.Fatal(err)
	}
	if o.Compat != ffs.CompatDebian || o.MinFree == nil || *o.MinFree != 0 || o.Version != 2 || !o.Timestamp.Equal(time.Unix(86400, 0)) ||
		o.ClampTimes || o.Size != 1<<20 || !o.Sparse || o.Cache == nil || o.Warn != warn {
		t.Errorf("options %+v", o)
	}
	// One-letter keys, makefs's numbers, and a numeric key without a
	// value meaning 1.
	// -s sets the minimum and maximum, which a later -M or -m changes.
	if o, err := options("-s", "40m", "-M", "6m"); err != nil || o.Size != 0 || o.MinSize != 6<<20 || o.MaxSize != 40<<20 {
		t.Errorf("-s 40m -M 6m: %+v, %v", o, err)
	}
	if o, err := options("-M", "6m", "-s", "40m"); err != nil || o.Size != 40<<20 || o.MinSize != 0 || o.MaxSize != 0 {
		t.Errorf("-M 6m -s 40m: %+v, %v", o, err)
	}
	// m=2x3 is a product (6), as makefs reads it, and 010 is ten.
	if o, err := options("-o", "b=32k,f=4k,v=2,s,m=2x3", "-o", "density=010"); err != nil || o.BSize != 32768 || o.FSize != 4096 ||
		o.Version != 2 || !o.SoftUpdates || o.Density != 10 || o.MinFree == nil || *o.MinFree != 6 {
		t.Errorf("-o b=32k,f=4k,v=2,s,m=2x3 -o density=010: %+v, %v", o, err)
	}
	if o, err := options(); err != nil || o.MinFree != nil || !o.Timestamp.IsZero() || o.ClampTimes {
		t.Errorf("no options: %+v, %v", o, err)
	}
	sde = "1000"
	if o, err := options(); err != nil || !o.Timestamp.Equal(time.Unix(1000, 0)) || !o.ClampTimes {
		t.Errorf("SOURCE_DATE_EPOCH=1000: %+v, %v", o, err)
	}
	sde = "soon"
	if _, err := options(); err == nil || !errors.Is(err, fstree.ErrTimestamp) {
		t.Errorf("SOURCE_DATE_EPOCH=soon: %v", err)
	}
	sde = ""
	for _, c := range []struct {
		opt  string
		want string
	}{
		{"compat=netbsd", "makefs: -o compat=netbsd: want compat=freebsd or compat=debian"},
		{"compat", "makefs: -o compat: want compat=freebsd or compat=debian"},
		{"bsize", `makefs: -o bsize: bsize="1": want a number from 4096 to 65536`},
		{"minfree=100", `makefs: -o minfree=100: minfree="100": want a number from 0 to 99`},
		{"nosuch=1", `makefs: -o nosuch=1: unknown option "nosuch" for -t ffs (keys: version, bsize, fsize, density, minfree, maxbpg, maxbpf, avgfilesize, avgfpdir, extent, maxbpcg, optimization, label, softupdates, compat; -o help describes them)`},
	} {
		_, err := options("-o", c.opt)
		var ue *UsageError
		if err == nil || err.Error() != c.want || !errors.As(err, &ue) {
			t.Errorf("-o %s: %v, want the usage error %q", c.opt, err, c.want)
		}
	}
}

// TestFFSReword checks what reword makes of the Options fields of ffs
// errors: the global flags, and the -o keys of ffs.OptionHelp (the first
// that sets a field: maxbpg, not its other name maxbpf).
func TestFFSReword(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"needs 163840 bytes (Options.Size = 65536 given)", "needs 163840 bytes (-s 65536 given)"},
		{"x (Options.MaxSize = 65536 given)", "x (-m 65536 given)"},
		{"more than makefs's estimate (give it with Options.Size)", "more than makefs's estimate (give it with -s)"},
		{"(raise Options.Size or lower Options.Density)", "(raise -s or lower density)"},
		{"Options.MinFree = 5, Options.MaxBPG = 9", "-o minfree=5, -o maxbpg=9"},
		{"Options.FreeFiles = 10 and Options.Roundup, Options.ByteOrder", "-f 10 and -R, -B"},
		{"Options.NoSuch = 1", "Options.NoSuch = 1"},
	} {
		base := fmt.Errorf("%w: %s", ffs.ErrNoSpace, c.in)
		err := reword(base, ffs.OptionHelp)
		if want := "ffs: no space: " + c.want; err.Error() != want {
			t.Errorf("%q: reworded %q, want %q", c.in, err.Error(), want)
		}
		if !errors.Is(err, ffs.ErrNoSpace) {
			t.Errorf("%q: %v does not wrap the library's error", c.in, err)
		}
	}
}
