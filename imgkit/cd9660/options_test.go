package cd9660

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

func TestParseOption(t *testing.T) {
	t.Parallel()
	o := &Options{}
	for _, kv := range [][2]string{{"R", ""}, {"l", "1"}, {"D", "1"}, {"m", "0"}, {"o", ""}, {"label", "my_vol"},
		{"A", "app id"}, {"P", "pub"}, {"p", "prep"}, {"V", "set"}, {"no-trailing-padding", "0"}, {"v", "2"},
		{"joliet", ""}, {"relocate-deep-trees", ""}, {"K", ""}, {"i", ""}, {"a", ""}, {"allow-lowercase", ""}, {"archimedes", ""}} {
		if err := ParseOption(o, kv[0], kv[1]); err != nil {
			t.Fatalf("%s=%s: %v", kv[0], kv[1], err)
		}
	}
	want := Options{RockRidge: true, ISOLevel: 1, AllowDeepTrees: true, OmitTrailingPeriod: true, Label: "MY_VOL",
		ApplicationID: "APP ID", Publisher: "PUB", Preparer: "PREP", VolumeSetID: "SET", NoTrailingPadding: true, Verbose: 2,
		Joliet: true, RelocateDeepTrees: true, KeepBadImages: true, AllowIllegalChars: true, AllowMaxName: true,
		AllowLowercase: true, Archimedes: true}
	if !reflect.DeepEqual(*o, want) {
		t.Errorf("options %+v, want %+v", *o, want)
	}
	if err := ParseOption(o, "no-trailing-padding", ""); err != nil || o.NoTrailingPadding {
		t.Errorf("no-trailing-padding without a value: %v, NoTrailingPadding %v (makefs keeps the padding)", err, o.NoTrailingPadding)
	}
	for _, kv := range [][2]string{{"nosuch", ""}, {"isolevel", "0"}, {"isolevel", "0x2"}, {"R", "2"},
		{"label", strings.Repeat("A", 33)}, {"label", "a-b"}, {"A", "tab\there"}, {"verbose", "3"}, {"", ""}} {
		if err := ParseOption(o, kv[0], kv[1]); !errors.Is(err, ErrOption) {
			t.Errorf("%s=%s: error %v, want ErrOption", kv[0], kv[1], err)
		}
	}
	if len(OptionHelp()) != len(optionTable()) || OptionHelp()[0].Key != "allow-deep-trees" {
		t.Errorf("OptionHelp %v", OptionHelp())
	}
}

func TestOptionsCheck(t *testing.T) {
	t.Parallel()
	tree := tooltest.NestedTree(1)
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{ISOLevel: 4}, "Options.ISOLevel 4"},
		{Options{ISOLevel: 1, AllowMultidot: true}, "Options.AllowMultidot requires"},
		{Options{Label: "no.dots"}, "Options.Label"},
		{Options{Publisher: "caf\xe9"}, "Options.Publisher"},
	} {
		if _, err := Build(tree, &c.o); !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want ErrParams naming %q", c.o, err, c.want)
		}
	}
	if _, err := Build(nil, nil); !errors.Is(err, ErrParams) {
		t.Errorf("no source: %v", err)
	}
}

// TestDeepTree checks the depth rule: a directory at level 9 is an error
// naming its path unless allow-deep-trees or Rock Ridge; level 8 is fine.
func TestDeepTree(t *testing.T) {
	t.Parallel()
	if _, err := Build(tooltest.NestedTree(7), nil); err != nil {
		t.Errorf("7 directories: %v", err)
	}
	_, err := Build(tooltest.NestedTree(8), nil)
	if !errors.Is(err, ErrDeepTree) || !strings.Contains(err.Error(), "d/d/d/d/d/d/d/d: a directory at level 9") {
		t.Errorf("8 directories: error %v", err)
	}
	for _, o := range []Options{{AllowDeepTrees: true}, {RockRidge: true}, {RockRidge: true, RelocateDeepTrees: true}} {
		if _, err := Build(tooltest.NestedTree(20), &o); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// TestFileTooBig checks that a file of 4 GiB is an error naming it.
func TestFileTooBig(t *testing.T) {
	t.Parallel()
	root := &fstree.Node{Name: ".", Type: fstree.TypeDir, Mode: 0o755, Nlink: 2}
	root.Children = []*fstree.Node{{Name: "huge", Type: fstree.TypeFile, Mode: 0o644, Size: 1 << 32, Parent: root, Nlink: 1}}
	_, err := Build(&fstree.Tree{Root: root}, nil)
	if !errors.Is(err, ErrFileTooBig) || !strings.Contains(err.Error(), "huge") {
		t.Errorf("error %v", err)
	}
}

// TestEntryPoints checks that WriteFile, Write and Build make the same
// image, that Write reports its size, and that a failed WriteFile leaves
// an existing file as it was.
func TestEntryPoints(t *testing.T) {
	t.Parallel()
	dir := makeTree(t, "links")
	o := &Options{RockRidge: true, Joliet: true, Timestamp: time.Unix(fbsdStamp, 0)}
	built, err := Build(fstree.Dir(dir), o)
	must(t, err)
	var w writerAt
	n, err := Write(&w, fstree.Dir(dir), o)
	must(t, err)
	path := filepath.Join(t.TempDir(), "img.iso")
	must(t, WriteFile(path, fstree.Dir(dir), o))
	file, err := os.ReadFile(path)
	must(t, err)
	if n != int64(len(built)) || !bytes.Equal(w.b, built) || !bytes.Equal(file, built) {
		t.Errorf("Build (%d bytes), Write (%d, reports %d) and WriteFile (%d) differ", len(built), len(w.b), n, len(file))
	}
	if err := WriteFile(path, tooltest.NestedTree(9), nil); !errors.Is(err, ErrDeepTree) {
		t.Fatalf("deep tree: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, built) {
		t.Error("a failed WriteFile changed the existing image")
	}
}

// writerAt is an io.WriterAt over a growing buffer.
type writerAt struct{ b []byte }

func (w *writerAt) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(w.b) {
		w.b = append(w.b, make([]byte, end-len(w.b))...)
	}
	return copy(w.b[off:], p), nil
}

// TestFreeBSDDeviations checks that the cases where fixturegen writes
// what the readers accept instead of makefs's bytes do differ, and where
// they first do: the deep tree without relocation is smaller (no
// RR_MOVED), the tree with a long name larger (its continuation areas
// take a sector after each directory), and the long symlink target's SL
// entries move the root's continuation area.
func TestFreeBSDDeviations(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "freebsd-makefs")
	for _, c := range []struct{ tree, where string }{
		{"deep15", "Volume Space Size byte 0: 0x2b and 0x2a"},
		{"longname", "Volume Space Size byte 0: 0x1b and 0x1c"},
		{"longlink", `directory ., record ".", System Use entry 2 (CE)`},
	} {
		t.Run(c.tree, func(t *testing.T) {
			t.Parallel()
			dir := makeTree(t, c.tree)
			want := freebsdImage(t, dir, []string{"rockridge"})
			got, v := ourImage(t, dir, []string{"rockridge"})
			d := explainDiff(v, want, got)
			if d == "" || !strings.Contains(d, c.where) {
				t.Errorf("difference %q, want %q", d, c.where)
			}
		})
	}
}

// TestSocketSkipped checks that a socket is left out with a warning, as
// makefs's walk leaves it out, and that the rest of the tree is written.
func TestSocketSkipped(t *testing.T) {
	t.Parallel()
	root := &fstree.Node{Name: ".", Type: fstree.TypeDir, Mode: 0o755, Nlink: 2}
	root.Children = []*fstree.Node{
		{Name: "file", Type: fstree.TypeFile, Mode: 0o644, Parent: root, Nlink: 1},
		{Name: "sock", Type: fstree.TypeSocket, Mode: 0o755, Parent: root, Nlink: 1},
	}
	var warn bytes.Buffer
	img, err := Build(&fstree.Tree{Root: root}, &Options{Warn: &warn})
	must(t, err)
	if !strings.Contains(warn.String(), "skipping socket sock") {
		t.Errorf("warnings %q", warn.String())
	}
	if !bytes.Contains(img, []byte("FILE.;1")) || bytes.Contains(img, []byte("SOCK")) {
		t.Error("the image does not hold FILE.;1 alone")
	}
}

// TestCompatOption checks that -o compat sets the Compat enum, that its
// String is the -o value again, and that an unknown value is refused.
func TestCompatOption(t *testing.T) {
	t.Parallel()
	for _, c := range []Compat{CompatFreeBSD, CompatDebian} {
		var o Options
		o.Compat = 7
		if err := ParseOption(&o, "compat", c.String()); err != nil || o.Compat != c {
			t.Errorf("compat=%s: %v, Compat %d", c, err, o.Compat)
		}
	}
	var o Options
	if err := ParseOption(&o, "compat", "netbsd"); !errors.Is(err, ErrOption) {
		t.Errorf("compat=netbsd: %v, want ErrOption", err)
	}
	if _, err := Build(fstree.FS(fstest.MapFS{"a": {}}), &Options{Compat: 2}); !errors.Is(err, ErrParams) {
		t.Errorf("Compat 2: %v, want ErrParams", err)
	}
}
