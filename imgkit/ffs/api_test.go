package ffs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// mapTree is a small fstest.MapFS: two files whose times are before and
// after t1600, and a directory.
var (
	t1500 = time.Unix(1500000000, 0).UTC()
	t1600 = time.Unix(1600000000, 0).UTC()
	t1700 = time.Unix(1700000000, 0).UTC()
)

func mapTree() fstest.MapFS {
	return fstest.MapFS{
		"old.txt":   {Data: []byte("old\n"), ModTime: t1500},
		"d/new.txt": {Data: bytes.Repeat([]byte("new\n"), 3000), ModTime: t1700},
		"d":         {Mode: fs.ModeDir | 0o755, ModTime: t1500},
	}
}

// writerAtBuffer is an io.WriterAt over a byte slice that grows.
type writerAtBuffer struct{ b []byte }

func (w *writerAtBuffer) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(w.b) {
		w.b = append(w.b, make([]byte, end-len(w.b))...)
	}
	return copy(w.b[off:], p), nil
}

// TestOutputsAgree checks that WriteFile (in both cache modes), Write and
// Build make the same bytes, with and without an offset, and that Write
// says the size and overwrites every byte of its writer.
func TestOutputsAgree(t *testing.T) {
	t.Parallel()
	for _, o := range []Options{
		{Version: 1, Timestamp: t1600},
		{Version: 2, Timestamp: t1600, ClampTimes: true, Offset: 4096},
		{Version: 2, Compat: CompatDebian, Timestamp: t1600, Size: 1 << 20},
	} {
		name := fmt.Sprintf("v%d-offset%d-compat%d-clamp%v", o.Version, o.Offset, o.Compat, o.ClampTimes)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			built, err := Build(fstree.FS(mapTree()), &o)
			if err != nil {
				t.Fatal(err)
			}
			for _, mode := range []bcache.Mode{bcache.ModeMmap, bcache.ModeCopy} {
				x := o
				x.Cache = &bcache.Options{Mode: mode}
				path := filepath.Join(t.TempDir(), "x.img")
				if err := WriteFile(path, fstree.FS(mapTree()), &x); err != nil {
					t.Fatal(err)
				}
				file, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(file, built) {
					t.Errorf("WriteFile (%v) and Build differ", mode)
				}
			}
			w := &writerAtBuffer{b: bytes.Repeat([]byte{0xff}, len(built))}
			n, err := Write(w, fstree.FS(mapTree()), &o)
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(len(built)) || !bytes.Equal(w.b, built) {
				t.Errorf("Write: %d bytes, equal %v; want %d, the bytes of Build", n, bytes.Equal(w.b, built), len(built))
			}
			if !bytes.Equal(built[:o.Offset], make([]byte, o.Offset)) {
				t.Error("the bytes before Options.Offset are not zero")
			}
			if _, err := NewReader(bytes.NewReader(built[o.Offset:]), int64(len(built))-o.Offset); err != nil {
				t.Errorf("the file system after the offset: %v", err)
			}
		})
	}
}

// TestNilOptions checks that nil options are the zero Options.
func TestNilOptions(t *testing.T) {
	t.Parallel()
	a, err := Build(fstree.FS(mapTree()), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(fstree.FS(mapTree()), &Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("nil Options and &Options{} differ")
	}
	if _, err := Build(nil, nil); !errors.Is(err, ErrParams) {
		t.Errorf("Build(nil, nil) = %v, want ErrParams", err)
	}
}

// fieldValue returns the value of a field that Fields describes.
func fieldValue(t *testing.T, fields []describe.Field, path, name string) string {
	t.Helper()
	for _, f := range fields {
		if f.Path == path && f.Name == name {
			return f.Value
		}
	}
	t.Fatalf("no field %s %s", path, name)
	return ""
}

// TestTimestamp checks the one time rule: Timestamp sets every time of
// the tree, or with ClampTimes bounds them, and is fs_time, cg_time and
// fs_id[0] either way; without it the tree's times stay and fs_time is
// the latest modification time.
func TestTimestamp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name         string
		ts           time.Time
		clamp        bool
		oldMt, newMt time.Time
		volume       time.Time
	}{
		{"set", t1600, false, t1600, t1600, t1600},
		{"clamp", t1600, true, t1500, t1600, t1600},
		{"clamp-later", t1700.Add(time.Hour), true, t1500, t1700, t1700.Add(time.Hour)},
		{"none", time.Time{}, false, t1500, t1700, t1700},
		{"none-clamp", time.Time{}, true, t1500, t1700, t1700},
	} {
		for _, v := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s-v%d", c.name, v), func(t *testing.T) {
				t.Parallel()
				img, err := Build(fstree.FS(mapTree()), &Options{Version: v, Timestamp: c.ts, ClampTimes: c.clamp})
				if err != nil {
					t.Fatal(err)
				}
				f, err := NewReader(bytes.NewReader(img), int64(len(img)))
				if err != nil {
					t.Fatal(err)
				}
				for name, want := range map[string]time.Time{"old.txt": c.oldMt, "d/new.txt": c.newMt} {
					in, err := f.Inode(name)
					if err != nil {
						t.Fatal(err)
					}
					if !in.Mtime.Equal(want) || !in.Atime.Equal(want) {
						t.Errorf("%s: mtime %v, atime %v; want %v", name, in.Mtime, in.Atime, want)
					}
				}
				fields, err := Fields(bytes.NewReader(img), int64(len(img)))
				if err != nil {
					t.Fatal(err)
				}
				sec := fmt.Sprintf("(%d)", c.volume.Unix())
				fsTime, cgTime := "fs_time", "cg_time"
				if v == 1 {
					fsTime, cgTime = "fs_old_time", "cg_old_time"
				}
				if got := fieldValue(t, fields, "superblock", fsTime); !strings.HasSuffix(got, sec) {
					t.Errorf("%s %s, want %v", fsTime, got, c.volume)
				}
				if got := fieldValue(t, fields, "cylinder group 0", cgTime); !strings.HasSuffix(got, sec) {
					t.Errorf("%s %s, want %v", cgTime, got, c.volume)
				}
				id0, err := strconv.ParseInt(strings.Fields(fieldValue(t, fields, "superblock", "fs_id[0]"))[0], 0, 64)
				if err != nil || id0 != c.volume.Unix() {
					t.Errorf("fs_id[0] %d (%v), want %d", id0, err, c.volume.Unix())
				}
			})
		}
	}
}

// TestOpenReader checks that OpenReader reads an image file as NewReader reads
// its bytes, and that Close closes the file.
func TestOpenReader(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.img")
	if err := WriteFile(path, fstree.FS(mapTree()), &Options{Version: 2, Timestamp: t1600}); err != nil {
		t.Fatal(err)
	}
	rc, err := OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(rc, "old.txt", "d/new.txt"); err != nil {
		t.Error(err)
	}
	if got, err := fs.ReadFile(rc, "old.txt"); err != nil || string(got) != "old\n" {
		t.Errorf("old.txt: %q, %v", got, err)
	}
	if rc.Version() != 2 {
		t.Errorf("version %d", rc.Version())
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.ReadFile("old.txt"); err == nil {
		t.Error("ReadFile after Close works")
	}
	if _, err := OpenReader(filepath.Join(t.TempDir(), "nosuch.img")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	text := filepath.Join(t.TempDir(), "text")
	os.WriteFile(text, bytes.Repeat([]byte("not an image\n"), 10000), 0o644)
	if _, err := OpenReader(text); !errors.Is(err, ErrFormat) {
		t.Errorf("text file: %v, want ErrFormat", err)
	}
}

// makefsKeys are the fs-options of makefs -t ffs: those of FreeBSD's
// makefs(8), maxbpf (another name for maxbpg) and compat.
var makefsKeys = []string{"version", "bsize", "fsize", "density", "minfree", "maxbpg", "maxbpf", "avgfilesize",
	"avgfpdir", "extent", "maxbpcg", "optimization", "label", "softupdates", "compat"}

// optionLetters are the one-letter keys of FreeBSD's ffs option table
// (ffs.c, ffs_prep_opts).
var optionLetters = map[string]string{
	"bsize": "b", "fsize": "f", "density": "d", "minfree": "m", "maxbpg": "M", "avgfilesize": "a",
	"avgfpdir": "n", "extent": "x", "maxbpcg": "g", "version": "v", "optimization": "o", "label": "l",
	"softupdates": "s",
}

// TestOptionSyntax checks that ParseOption reads values as makefs does:
// one-letter keys as their long ones, numbers with makefs's suffixes and
// products in base 10, a numeric key without a value as 1.
func TestOptionSyntax(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		key, value string
		want       Options
	}{
		{"bsize", "32k", Options{BSize: 32768}},
		{"b", "64k", Options{BSize: 65536}},
		{"f", "4096", Options{FSize: 4096}},
		{"fsize", "2x512", Options{FSize: 1024}},
		{"density", "0100", Options{Density: 100}}, // base 10, not octal
		{"d", "8k", Options{Density: 8192}},
		{"M", "12", Options{MaxBPG: 12}},
		{"a", "4k", Options{AvgFileSize: 4096}},
		{"n", "8", Options{AvgFPDir: 8}},
		{"x", "128k", Options{Extent: 131072}},
		{"g", "1m", Options{MaxBPCG: 1 << 20}},
		{"v", "2", Options{Version: 2}},
		{"version", "", Options{Version: 1}},
		{"o", "space", Options{Optimization: "space"}},
		{"l", "FIX", Options{Label: "FIX"}},
		{"s", "", Options{SoftUpdates: true}},
		{"softupdates", "1", Options{SoftUpdates: true}},
	} {
		var o Options
		if err := ParseOption(&o, c.key, c.value); err != nil {
			t.Errorf("%s=%s: %v", c.key, c.value, err)
			continue
		}
		if !reflect.DeepEqual(o, c.want) {
			t.Errorf("%s=%s: %+v, want %+v", c.key, c.value, o, c.want)
		}
	}
	for _, c := range [][2]string{{"bsize", "32q"}, {"m", "100"}, {"bsize", "0x1000"}, {"label", strings.Repeat("l", 32)}, {"o", ""}, {"q", "1"}} {
		var o Options
		if err := ParseOption(&o, c[0], c[1]); !errors.Is(err, ErrOption) || !reflect.DeepEqual(o, Options{}) {
			t.Errorf("%s=%s: %v, %+v; want ErrOption and no change", c[0], c[1], err, o)
		}
	}
	var o Options
	if err := ParseOption(&o, "m", "0"); err != nil || o.MinFree == nil || *o.MinFree != 0 {
		t.Errorf("m=0: %v, %v", err, o.MinFree)
	}
}

// TestOptionHelp checks that OptionHelp lists every key ParseOption
// accepts exactly once, that each sets the field it names, and that the
// defaults it gives are what the writer uses.
func TestOptionHelp(t *testing.T) {
	t.Parallel()
	help := OptionHelp()
	seen := map[string]int{}
	for _, h := range help {
		seen[h.Key]++
		if h.Field == "" || h.Default == "" || h.Usage == "" || h.Letter != optionLetters[h.Key] {
			t.Errorf("%s: %+v: want a field, a default, a usage and the letter %q", h.Key, h, optionLetters[h.Key])
		}
	}
	for _, k := range makefsKeys {
		if seen[k] != 1 {
			t.Errorf("OptionHelp lists %q %d times, want once", k, seen[k])
		}
	}
	if len(help) != len(makefsKeys) {
		t.Errorf("OptionHelp lists %d keys, want the %d of makefs -t ffs", len(help), len(makefsKeys))
	}
	if err := ParseOption(&Options{}, "nosuch", "1"); !errors.Is(err, ErrOption) {
		t.Errorf("unknown key: %v", err)
	}
	typ := reflect.TypeFor[Options]()
	for _, h := range help {
		// The key is accepted, and one of these values sets exactly the
		// field Field names.
		sf, ok := typ.FieldByName(h.Field)
		if !ok {
			t.Errorf("%s: Options has no field %s", h.Key, h.Field)
			continue
		}
		set := false
		for _, v := range []string{"1", "2", "4096", "space", "debian"} {
			var o Options
			err := ParseOption(&o, h.Key, v)
			if err != nil && strings.Contains(err.Error(), "unknown option") {
				t.Errorf("%s: ParseOption does not know it: %v", h.Key, err)
				break
			}
			if err != nil {
				continue
			}
			got := reflect.ValueOf(o)
			for i := range typ.NumField() {
				if changed := !got.Field(i).IsZero(); changed != (i == sf.Index[0]) {
					t.Errorf("%s=%s changes Options.%s: %v", h.Key, v, typ.Field(i).Name, changed)
				}
			}
			set = true
			break
		}
		if !set {
			t.Errorf("%s: no test value is accepted", h.Key)
		}
	}
}

// TestOptionDefaults builds an image with each option given its default,
// as OptionHelp says it (the leading value; FreeBSD's, and Debian's with
// compat=debian), and checks that the bytes are those of the image without
// the option.
func TestOptionDefaults(t *testing.T) {
	t.Parallel()
	checked := map[string]bool{}
	for _, h := range OptionHelp() {
		freebsd, debian, hasDebian := strings.Cut(h.Default, " (compat=debian: ")
		for _, c := range []struct {
			compat Compat
			def    string
		}{{CompatFreeBSD, freebsd}, {CompatDebian, map[bool]string{true: debian, false: freebsd}[hasDebian]}} {
			value, _, _ := strings.Cut(strings.TrimSuffix(c.def, ")"), ",")
			if strings.Contains(value, " ") || h.Key == "label" {
				continue // in words: "no limit", "bsize/4", "none" (no label)
			}
			if h.Key == "compat" {
				value = map[Compat]string{CompatFreeBSD: "freebsd", CompatDebian: "debian"}[c.compat]
			}
			base := Options{Compat: c.compat, Timestamp: t1600, Size: 1 << 20}
			with := base
			if err := ParseOption(&with, h.Key, value); err != nil {
				if _, nan := strconv.Atoi(value); nan == nil || h.Key == "optimization" {
					t.Errorf("%s: default %q: %v", h.Key, value, err)
				}
				continue
			}
			a, err := Build(fstree.FS(mapTree()), &base)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Build(fstree.FS(mapTree()), &with)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("compat %d: %s=%s, the default OptionHelp gives, changes the image", c.compat, h.Key, value)
			}
			checked[h.Key] = true
		}
	}
	for _, k := range []string{"version", "bsize", "fsize", "minfree", "avgfilesize", "avgfpdir", "optimization", "softupdates", "compat"} {
		if !checked[k] {
			t.Errorf("the default of %s was not checked", k)
		}
	}
}

// TestErrorsNameFields checks that errors about sizes name the Options
// fields to change, not makefs's flags.
func TestErrorsNameFields(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Size: 64 << 10}, `: the tree needs an image of at least \d+ bytes \(Options.Size = 65536 given\)$`},
		{Options{MaxSize: 64 << 10}, `: the tree needs an image of at least \d+ bytes \(Options.MaxSize = 65536 given\)$`},
		{Options{Size: 1000000}, `: Options.Size 1000000 is not a multiple of the block size 32768$`},
		{Options{MinSize: 1000000, MaxSize: 1000000}, `: Options.MinSize 1000000 rounded up to the block size 32768 exceeds Options.MaxSize 1000000$`},
		{Options{Compat: CompatDebian, BSize: 65536, FSize: 8192}, `: the tree needs an image of at least \d+ bytes, more than makefs's estimate \(give it with Options.Size\)$`},
	} {
		_, err := Build(fstree.FS(mapTree()), &c.o)
		if err == nil || !(errors.Is(err, ErrNoSpace) || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrParams)) || !regexp.MustCompile(c.want).MatchString(err.Error()) {
			t.Errorf("%+v: %v, want one matching %s", c.o, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), " -") {
			t.Errorf("%+v: %v names a flag", c.o, err)
		}
	}
	// The error of a geometry with too few inodes, which explainSize
	// replaces with the size needed whenever it finds one.
	tree, err := fstree.FS(mapTree()).Tree(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = prepare(tree, &Options{Version: 2, Density: 1 << 30, FreeFiles: 1000}, 0)
	if want := `: the image has \d+ free inodes; \d+ are required \(raise Options.Size or lower Options.Density\)$`; !errors.Is(err, ErrNoSpace) || !regexp.MustCompile(want).MatchString(err.Error()) {
		t.Errorf("too few inodes: %v, want one matching %s", err, want)
	}
}
