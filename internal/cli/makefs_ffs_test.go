package cli

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// ffsSource makes a source directory with files older and newer than
// 1600000000, a subdirectory, a symbolic link, a hard link and a file of
// more than UFS_NDADDR blocks.
func ffsSource(t *testing.T) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "src")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(src, "d", "e"), 0o755))
	must(os.WriteFile(filepath.Join(src, "old.txt"), []byte("old\n"), 0o644))
	must(os.WriteFile(filepath.Join(src, "d", "big"), bytes.Repeat([]byte("0123456789abcdef"), 40000), 0o600))
	must(os.WriteFile(filepath.Join(src, "d", "e", "new.txt"), []byte("new\n"), 0o644))
	must(os.Link(filepath.Join(src, "old.txt"), filepath.Join(src, "d", "hard")))
	must(os.Symlink("../old.txt", filepath.Join(src, "d", "link")))
	old := time.Unix(1500000000, 0)
	must(os.Chtimes(filepath.Join(src, "old.txt"), old, old))
	return src
}

// TestMakefsFFSMatchesLibrary builds images through the command line and
// through ffs.Build and ffs.WriteFile with the Options a Go caller would
// write for it, and checks that the bytes are the same.
func TestMakefsFFSMatchesLibrary(t *testing.T) {
	t.Parallel()
	src := ffsSource(t)
	stamp := filepath.Join(t.TempDir(), "stamp")
	if err := os.WriteFile(stamp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stampTime := time.Unix(1650000000, 0)
	if err := os.Chtimes(stamp, stampTime, stampTime); err != nil {
		t.Fatal(err)
	}
	t16 := time.Unix(1600000000, 0)
	for _, c := range []struct {
		name string
		args []string
		sde  string // SOURCE_DATE_EPOCH
		o    ffs.Options
	}{
		{"T", []string{"-T", "1600000000"}, "", ffs.Options{Timestamp: t16}},
		{"T-file", []string{"-T", stamp}, "", ffs.Options{Timestamp: stampTime}},
		{"SOURCE_DATE_EPOCH", nil, "1600000000", ffs.Options{Timestamp: t16, ClampTimes: true}},
		{"T-over-SOURCE_DATE_EPOCH", []string{"-T", "1600000000"}, "1", ffs.Options{Timestamp: t16}},
		{"version2", []string{"-o", "version=2", "-T", "1600000000"}, "", ffs.Options{Version: 2, Timestamp: t16}},
		{"version2-SOURCE_DATE_EPOCH", []string{"-o", "version=2"}, "1600000000",
			ffs.Options{Version: 2, Timestamp: t16, ClampTimes: true}},
		{"version2-options", []string{"-o", "version=2,bsize=8192,fsize=1024,minfree=0,label=FIX,softupdates=1,optimization=space",
			"-s", "4m", "-B", "be", "-T", "1600000000"}, "",
			ffs.Options{Version: 2, BSize: 8192, FSize: 1024, MinFree: new(0), Label: "FIX", SoftUpdates: true, Optimization: "space",
				Size: 4 << 20, ByteOrder: binary.BigEndian, Timestamp: t16}},
		{"debian-version1", []string{"-o", "compat=debian", "-s", "2m", "-T", "1600000000"}, "",
			ffs.Options{Compat: ffs.CompatDebian, Size: 2 << 20, Timestamp: t16}},
		{"debian-version2", []string{"-o", "compat=debian,version=2,density=4096", "-s", "2m", "-T", "1600000000"}, "",
			ffs.Options{Compat: ffs.CompatDebian, Version: 2, Density: 4096, Size: 2 << 20, Timestamp: t16}},
		{"debian-SOURCE_DATE_EPOCH", []string{"-o", "compat=debian,version=2", "-s", "2m"}, "1600000000",
			ffs.Options{Compat: ffs.CompatDebian, Version: 2, Size: 2 << 20, Timestamp: t16, ClampTimes: true}},
		{"sizes", []string{"-M", "1m", "-b", "10%", "-f", "50", "-R", "64k", "-O", "4096", "-S", "1024", "-T", "1600000000"}, "",
			ffs.Options{MinSize: 1 << 20, FreeBlocksPct: 10, FreeFiles: 50, Roundup: 64 << 10, Offset: 4096, SectorSize: 1024, Timestamp: t16}},
		{"free-bytes", []string{"-o", "version=2,maxbpg=64,avgfilesize=4096,avgfpdir=8,extent=65536,maxbpcg=512", "-b", "100k", "-f", "10%", "-T", "1600000000"}, "",
			ffs.Options{Version: 2, MaxBPG: 64, AvgFileSize: 4096, AvgFPDir: 8, Extent: 65536, MaxBPCG: 512, FreeBlocks: 100 << 10, FreeFilesPct: 10, Timestamp: t16}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var stderr bytes.Buffer
			e := &env{Stdout: new(bytes.Buffer), Stderr: &stderr, Dir: dir, Getenv: func(k string) string {
				if k == fstree.SourceDateEpochEnv {
					return c.sde
				}
				return ""
			}}
			args := append(append([]string{"makefs", "-t", "ffs"}, c.args...), "cli.img", src)
			if code := runMain(e, args); code != 0 {
				t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
			}
			cli, err := os.ReadFile(filepath.Join(dir, "cli.img"))
			if err != nil {
				t.Fatal(err)
			}
			built, err := ffs.Build(fstree.Dir(src), &c.o)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(cli, built) {
				t.Errorf("%s and ffs.Build with %+v differ (%d and %d bytes)", strings.Join(args[1:], " "), c.o, len(cli), len(built))
			}
			path := filepath.Join(dir, "lib.img")
			if err := ffs.WriteFile(path, fstree.Dir(src), &c.o); err != nil {
				t.Fatal(err)
			}
			if file, err := os.ReadFile(path); err != nil || !bytes.Equal(cli, file) {
				t.Errorf("%s and ffs.WriteFile differ (%v)", strings.Join(args[1:], " "), err)
			}
		})
	}
}

// TestFFSOptions checks how the command line becomes ffs.Options, and its
// errors for -o.
func TestFFSOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	sde := ""
	e := &env{Dir: dir, Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer), Getenv: func(k string) string {
		if k == fstree.SourceDateEpochEnv {
			return sde
		}
		return ""
	}}
	options := func(args ...string) (*ffs.Options, error) {
		a, err := parseMakefsArgs(e, append(append([]string{"-t", "ffs"}, args...), "out.img", "src"))
		if err != nil {
			t.Fatal(err)
		}
		return ffsOptions(a)
	}
	o, err := options("-o", "compat=debian,minfree=0,version=2", "-T", "86400", "-s", "1m", "-Z")
	if err != nil {
		t.Fatal(err)
	}
	if o.Compat != ffs.CompatDebian || o.MinFree == nil || *o.MinFree != 0 || o.Version != 2 || !o.Timestamp.Equal(time.Unix(86400, 0)) ||
		o.ClampTimes || o.Size != 1<<20 || !o.Sparse || o.Cache == nil || o.Warn != e.Stderr {
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
		{"bsize", `makefs: -o bsize: ffs: bad option: bsize="1": want a number from 4096 to 65536`},
		{"minfree=100", `makefs: -o minfree=100: ffs: bad option: minfree="100": want a number from 0 to 99`},
	} {
		_, err := options("-o", c.opt)
		var ue *usageError
		if err == nil || err.Error() != c.want || !errors.As(err, &ue) {
			t.Errorf("-o %s: %v, want the usage error %q", c.opt, err, c.want)
		}
	}
}

// TestFFSErrorWording checks both wordings of an error about the size:
// the library's, which names Options fields, and the command's, which
// names its flags.
func TestFFSErrorWording(t *testing.T) {
	t.Parallel()
	src := ffsSource(t)
	_, lib := ffs.Build(fstree.Dir(src), &ffs.Options{Size: 64 << 10, Timestamp: time.Unix(1, 0)})
	if lib == nil || !strings.HasSuffix(lib.Error(), "bytes (Options.Size = 65536 given)") {
		t.Fatalf("ffs.Build: %v, want Options.Size named", lib)
	}
	var stderr bytes.Buffer
	e := &env{Stdout: new(bytes.Buffer), Stderr: &stderr, Dir: t.TempDir()}
	if code := runMain(e, []string{"makefs", "-t", "ffs", "-s", "64k", "-T", "1", "out.img", src}); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	cli := strings.Replace(lib.Error(), "(Options.Size = 65536 given)", "(-s 65536 given)", 1)
	if got := stderr.String(); got != "fixturegen: makefs: "+cli+"\n" {
		t.Errorf("stderr %q, want the library's error in flags: %q", got, cli)
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
