package makefs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
)

// inputsOptions is the Options type of the format of TestFSTypeInputs:
// two file options and a time.
type inputsOptions struct {
	Art       string
	Extra     []string
	Timestamp time.Time
}

// TestFSTypeInputs checks that Command.OptionInputs gives the files a
// format's Files says an Options value reads, resolved against the
// command's folder and after Flags, whatever the options' keys or field
// names, that an option setting the Common Timestamp is reported, and that
// a bad option is the error Run would give.
func TestFSTypeInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	f := FSType[inputsOptions]{
		Name: "test-inputs",
		Help: func() []fsopt.Option {
			return []fsopt.Option{{Key: "art", Field: "Art"}, {Key: "extra", Letter: "e", Field: "Extra"}, {Key: "when", Field: "Timestamp"}}
		},
		ParseOption: func(o *inputsOptions, key, value string) error {
			switch key {
			case "art":
				o.Art = value
			case "extra", "e":
				o.Extra = append(o.Extra, value)
			case "when":
				o.Timestamp = time.Unix(1, 0)
			default:
				return errTestOption
			}
			return nil
		},
		ErrOption: errTestOption,
		Common:    func(o *inputsOptions) Common { return Common{Timestamp: &o.Timestamp} },
		Flags: func(c *Command, o *inputsOptions) error {
			if o.Art != "" {
				o.Art = "art/" + o.Art // where the type looks for it
			}
			return nil
		},
		Files: func(o *inputsOptions) []string {
			if o.Art == "" {
				return o.Extra
			}
			return append([]string{o.Art}, o.Extra...)
		},
		WriteFile: func(string, fstree.Source, *inputsOptions) error { return nil },
	}
	RegisterFSType(f)
	t.Cleanup(func() { unregister(f.Name) })
	inputs := func(opts ...string) (OptionInputs, error) {
		args := []string{"-t", f.Name}
		for _, o := range opts {
			args = append(args, "-o", o)
		}
		c, err := Parse(append(args, "out.img", "src"), dir, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		return c.OptionInputs()
	}
	got, err := inputs("e=/abs/one", "art=a.bin", "extra=two")
	want := OptionInputs{Files: []string{filepath.Join(dir, "art", "a.bin"), "/abs/one", filepath.Join(dir, "two")}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("OptionInputs = %+v, %v; want %+v", got, err, want)
	}
	if got, err := inputs("when"); err != nil || !got.Timestamp || len(got.Files) != 0 {
		t.Errorf("OptionInputs(when) = %+v, %v; want Timestamp", got, err)
	}
	if _, err := inputs("bogus=1"); !strings.Contains(err.Error(), `unknown option "bogus" for -t test-inputs`) {
		t.Errorf("OptionInputs(bogus) error %v", err)
	}
	var ue *UsageError
	if _, err := inputs("bogus=1"); !errors.As(err, &ue) {
		t.Errorf("OptionInputs(bogus) error %v is no *UsageError", err)
	}
}

// TestTypeInputs checks the files that the options of the registered types
// read, as the catalogue plans them: msdos's bootstrap (a bare name in
// /boot), cd9660's boot images and generic boot image; ffs has none, and
// its time option -T is no -o option. cd9660 -o compat=debian keeps the
// files' own times under -T (FileTimes).
func TestTypeInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	for _, tc := range []struct {
		args []string
		want OptionInputs
	}{
		{[]string{"-t", "msdos", "-o", "bootstrap=./b.bin"}, OptionInputs{Files: []string{filepath.Join(dir, "b.bin")}}},
		{[]string{"-t", "msdos", "-o", "B=boot1"}, OptionInputs{Files: []string{"/boot/boot1"}}},
		{[]string{"-t", "msdos", "-o", "timestamp=5"}, OptionInputs{Timestamp: true}},
		{[]string{"-t", "cd9660", "-o", "bootimage=i386;cd.bin,no-emul-boot,bootimage=efi;/e.img,G=mbr.bin"},
			OptionInputs{Files: []string{filepath.Join(dir, "cd.bin"), "/e.img", filepath.Join(dir, "mbr.bin")}}},
		{[]string{"-t", "ffs", "-o", "version=2"}, OptionInputs{}},
		{[]string{"-t", "cd9660", "-o", "compat=debian", "-T", "0"}, OptionInputs{FileTimes: true}},
		{[]string{"-t", "cd9660", "-o", "compat=debian"}, OptionInputs{}},
		{[]string{"-t", "cd9660", "-o", "rockridge", "-T", "0"}, OptionInputs{}},
		{[]string{"-t", "ffs", "-o", "compat=debian", "-T", "0"}, OptionInputs{}},
	} {
		c, err := Parse(append(tc.args, "out.img", "src"), dir, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.OptionInputs()
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: OptionInputs = %+v, %v; want %+v", tc.args, got, err, tc.want)
		}
	}
}
