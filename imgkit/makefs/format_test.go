package makefs

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
)

// testOptions is the Options type of the test format of TestRegisterFSType.
type testOptions struct {
	Label      string
	Size       int64
	Timestamp  time.Time
	ClampTimes bool
	Cache      *bcache.Options
	Warn       io.Writer
}

var errTestOption = errors.New("test: bad option")

// TestRegisterFSType registers a type as a new format would, by its option
// table, its flags and its WriteFile, and checks what FSType's Write does
// for it: the -o options in order, a hint for a key, the global flags, the
// time rule, the cache mode, the warnings writer, the tree and the prefix
// of WriteFile's errors.
func TestRegisterFSType(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src", "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	var got *testOptions
	var names []string
	f := FSType[testOptions]{
		Name: "test-format",
		Help: func() []fsopt.Option { return []fsopt.Option{{Key: "label", Field: "Label"}} },
		ParseOption: func(o *testOptions, key, value string) error {
			if key != "label" {
				return errTestOption
			}
			o.Label = value
			return nil
		},
		ErrOption: errTestOption,
		Hints:     map[string]string{"mode": "want mode=a or mode=b"},
		Common: func(o *testOptions) Common {
			return Common{Timestamp: &o.Timestamp, ClampTimes: &o.ClampTimes, Cache: &o.Cache, Warn: &o.Warn}
		},
		Flags: func(c *Command, o *testOptions) error { o.Size = c.Size; return nil },
		WriteFile: func(path string, src fstree.Source, o *testOptions) error {
			got = o
			tree, err := src.Tree(nil)
			if err != nil {
				return err
			}
			for _, n := range tree.Root.Children {
				names = append(names, n.Name)
			}
			if o.Label == "fail" {
				return errors.New("test: Options.Label = fail")
			}
			return nil
		},
	}
	getenv := func(k string) string {
		return map[string]string{fstree.SourceDateEpochEnv: "1000", bcache.EnvMode: "mmap"}[k]
	}
	RegisterFSType(f) // Parse checks that -t names a registered type
	t.Cleanup(func() { unregister(f.Name) })
	run := func(args ...string) error {
		c, err := Parse(append(append([]string{"-t", "test-format"}, args...), "out.img", "src"), dir, getenv)
		if err != nil {
			t.Fatal(err)
		}
		return f.write(c, io.Discard)
	}
	if err := run("-o", "label=x,label=y", "-s", "4k"); err != nil {
		t.Fatal(err)
	}
	if got.Label != "y" || got.Size != 4096 || !got.Timestamp.Equal(time.Unix(1000, 0)) || !got.ClampTimes ||
		got.Cache == nil || got.Cache.Mode != bcache.ModeMmap || got.Warn != io.Discard || strings.Join(names, ",") != "d" {
		t.Errorf("options %+v, tree %v", got, names)
	}
	var ue *UsageError
	if err := run("-o", "mode=c"); !errors.As(err, &ue) || err.Error() != "makefs: -o mode=c: want mode=a or mode=b" {
		t.Errorf("hinted key: %v", err)
	}
	if err := run("-o", "nosuch"); !errors.As(err, &ue) ||
		err.Error() != `makefs: -o nosuch: unknown option "nosuch" for -t test-format (keys: label; -o help describes them)` {
		t.Errorf("unknown key: %v", err)
	}
	if err := run("-o", "label=fail"); err == nil || err.Error() != "makefs: test: Options.Label = fail" {
		t.Errorf("WriteFile error: %v", err)
	}
	var buf bytes.Buffer
	c, err := Parse([]string{"-t", "test-format", "-o", "label=fail", "out.img", "src"}, dir, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(&buf, nil); err == nil || err.Error() != "makefs: test: -o label=fail" {
		t.Errorf("Run reworded error: %v", err)
	}
}

// TestFSTypeWithoutCommon checks that an FSType whose Options has none of
// the Common fields, and no Flags, still builds: the options are parsed
// and WriteFile gets the tree.
func TestFSTypeWithoutCommon(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	type bare struct{ Label string }
	var got *bare
	f := FSType[bare]{
		Name:        "test-bare",
		ParseOption: func(o *bare, key, value string) error { o.Label = value; return nil },
		WriteFile: func(path string, src fstree.Source, o *bare) error {
			if _, err := src.Tree(nil); err != nil {
				return err
			}
			got = o
			return nil
		},
	}
	RegisterFSType(f) // Parse checks that -t names a registered type
	t.Cleanup(func() { unregister(f.Name) })
	c, err := Parse([]string{"-t", "test-bare", "-o", "label=x", "out.img", "src"}, dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.write(c, nil); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Label != "x" {
		t.Errorf("options %+v", got)
	}
}
