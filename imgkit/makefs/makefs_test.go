package makefs

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// noEnv is an empty environment, so that the tests do not depend on the
// SOURCE_DATE_EPOCH or FIXTUREGEN_CACHE of the process.
func noEnv(string) string { return "" }

func TestParseSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"0", 0},
		{"1", 1},
		{"1440k", 1440 * 1024},
		{"2b", 1024},
		{"10m", 10 << 20},
		{"1g", 1 << 30},
		{"2t", 2 << 40},
		{"3w", 12},
		{"512x2880", 512 * 2880},
		{"512*4", 2048},
		{"2x3x4", 24},
		{"2kx3", 6144},
		{"1bx1k", 512 * 1024},
		{"0x10", 0}, // decimal only: 0 times 10, as strsuftoll reads it
		{"007", 7},
		{"9223372036854775807", math.MaxInt64},
	} {
		got, err := ParseSize(tc.in, 0, math.MaxInt64)
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{
		"", "k", "-1", "1 ", "1K", "1M", "1kk", "1q", "1x", "x1", "1xx2", "1.5m",
		"0x1f", "9223372036854775808", "8589934592g", "4611686018427387904x2", "1x%",
	} {
		if got, err := ParseSize(in, 0, math.MaxInt64); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.Mkdir(src, 0o755)
	os.Mkdir(filepath.Join(dir, "extra"), 0o755)
	os.WriteFile(filepath.Join(dir, "spec"), nil, 0o644)
	a, err := Parse([]string{
		"-t", "msdos", "-o", "fat_type=16,volume_label=X", "-o", "floppy", "-s", "1440k", "-O", "1b",
		"-b", "10%", "-f", "100", "-B", "big", "-S4096", "-T", "1700000000", "-F", "spec", "-xZD",
		"out.img", "src", "extra",
	}, dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if a.Type != "msdos" || a.Size != 1440*1024 || a.MinSize != a.Size || a.MaxSize != a.Size ||
		a.Offset != 512 || a.FreeBlocksPct != 10 || a.FreeFiles != 100 || a.ByteOrder != binary.BigEndian ||
		a.SectorSize != 4096 || !a.Exclude || !a.Sparse || a.Dups != 1 {
		t.Errorf("parsed %+v", a)
	}
	if !a.Timestamp.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("Timestamp = %v", a.Timestamp)
	}
	if a.Image != filepath.Join(dir, "out.img") || a.Spec != filepath.Join(dir, "spec") ||
		len(a.Dirs) != 2 || a.Dirs[0] != src || a.Manifest != "" {
		t.Errorf("paths: image %s spec %s dirs %q manifest %q", a.Image, a.Spec, a.Dirs, a.Manifest)
	}
	want := []Option{{"fat_type", "16", true}, {"volume_label", "X", true}, {"floppy", "", false}}
	if len(a.Opts) != len(want) {
		t.Fatalf("Opts = %+v", a.Opts)
	}
	for i := range want {
		if a.Opts[i] != want[i] {
			t.Errorf("Opts[%d] = %+v, want %+v", i, a.Opts[i], want[i])
		}
	}

	// A regular file in place of the directory is a manifest.
	a, err = Parse([]string{"out.img", "spec", "src"}, dir, noEnv)
	if err != nil || a.Manifest != filepath.Join(dir, "spec") || len(a.Dirs) != 1 {
		t.Errorf("manifest: %+v, %v", a, err)
	}
	// -T with a file takes its modification time.
	stamp := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	os.Chtimes(filepath.Join(dir, "spec"), stamp, stamp)
	a, err = Parse([]string{"-T", "spec", "out.img", "src"}, dir, noEnv)
	if err != nil || !a.Timestamp.Equal(stamp) {
		t.Errorf("-T file: %v, %v", a.Timestamp, err)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	for _, tc := range []struct {
		args  []string
		want  string // in the message
		usage bool
	}{
		{[]string{"-s", "10q", "i", "src"}, "-s 10q: invalid size", true},
		{[]string{"-s", "0", "i", "src"}, "-s 0: must be between 1", true},
		{[]string{"-m", "k", "i", "src"}, "-m k:", true},
		{[]string{"-M", "", "i", "src"}, "-M :", true},
		{[]string{"-O", "-1", "i", "src"}, "-O -1:", true},
		{[]string{"-R", "1x", "i", "src"}, "-R 1x:", true},
		{[]string{"-S", "4294967296", "i", "src"}, "-S 4294967296: must be between", true},
		{[]string{"-b", "100%", "i", "src"}, "-b 100%: percentage", true},
		{[]string{"-f", "lots", "i", "src"}, "-f lots:", true},
		{[]string{"-B", "middle", "i", "src"}, "-B middle: invalid byte order", true},
		{[]string{"-d", "zz", "i", "src"}, "-d zz:", true},
		{[]string{"-o", "a,,b", "i", "src"}, "-o a,,b: empty option", true},
		{[]string{"-T", "yesterday", "i", "src"}, "-T yesterday:", true},
		{[]string{"-q", "i", "src"}, "unknown option -q", true},
		{[]string{"i", "src", "-s"}, `cannot stat "-s"`, false},
		{[]string{"-s"}, "option -s requires an argument", true},
		{[]string{"i"}, "missing image-file or directory", true},
		{[]string{}, "missing image-file or directory", true},
		{[]string{"-x", "i", "src"}, "-x requires -F", true},
		{[]string{"i", "nosuch"}, `cannot stat "nosuch": no such file or directory`, false},
		{[]string{"i", "src", "nosuch"}, `cannot stat "nosuch"`, false},
		{[]string{"i", "src", "file"}, `"file": not a directory`, false},
	} {
		_, err := Parse(tc.args, dir, noEnv)
		if err == nil {
			t.Errorf("makefs %q: no error", tc.args)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "makefs: ") {
			t.Errorf("makefs %q: error %q, want it to contain %q", tc.args, err, tc.want)
		}
		_, isUsage := err.(*UsageError)
		if isUsage != tc.usage {
			t.Errorf("makefs %q: usage error = %v, want %v", tc.args, isUsage, tc.usage)
		}
	}
}

func TestTree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"one/a/x", "one/b", "two/a/y", "two/c/z", "three/b"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(f), 0o644)
	}
	late := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(filepath.Join(dir, "one", "b"), late, late)
	sde := ""
	getenv := func(k string) string {
		if k == "SOURCE_DATE_EPOCH" {
			return sde
		}
		return ""
	}
	a, err := Parse([]string{"out.img", "one", "two"}, dir, getenv)
	if err != nil {
		t.Fatal(err)
	}
	sde = "1000000000"
	tr, err := a.Tree(nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	tr.Walk(func(p string, n *fstree.Node) error {
		paths = append(paths, p)
		return nil
	})
	if g, w := strings.Join(paths, " "), ". a a/x a/y b c c/z"; g != w {
		t.Errorf("merged tree %q, want %q", g, w)
	}
	if n := tr.Lookup("c/z"); n == nil || n.Parent != tr.Lookup("c") || tr.Lookup("c").Parent != tr.Root {
		t.Errorf("parents not set after merge")
	}
	if n := tr.Root.Nlink; n != 4 {
		t.Errorf("root Nlink = %d, want 4 (2 + a, c)", n)
	}
	if b := tr.Lookup("b"); !b.Mtime.Equal(time.Unix(1000000000, 0)) {
		t.Errorf("SOURCE_DATE_EPOCH did not clamp: mtime %v", b.Mtime)
	}

	// -T wins over SOURCE_DATE_EPOCH.
	a, _ = Parse([]string{"-T", "5", "out.img", "one"}, dir, getenv)
	if tr, err = a.Tree(nil); err != nil || !tr.Lookup("b").Mtime.Equal(time.Unix(5, 0)) {
		t.Errorf("-T 5: %v", err)
	}

	a, _ = Parse([]string{"out.img", "one", "three"}, dir, getenv)
	if _, err := a.Tree(nil); err == nil || !strings.Contains(err.Error(), `cannot merge file "`+filepath.Join(dir, "three", "b")+`" with the file already there`) {
		t.Errorf("conflicting merge: %v", err)
	}
	sde = "soon"
	a, _ = Parse([]string{"out.img", "one"}, dir, getenv)
	if _, err := a.Tree(nil); err == nil || !strings.Contains(err.Error(), `SOURCE_DATE_EPOCH="soon"`) {
		t.Errorf("bad SOURCE_DATE_EPOCH: %v", err)
	}
}
