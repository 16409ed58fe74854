package cli

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
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
	// The subtests read the tree at once: an atime at or before a file's
	// mtime would move at the first read (relatime), and old.txt's is
	// before SOURCE_DATE_EPOCH, which keeps it, so one build of a subtest
	// saw 2017 and the next the clamped time of the read.
	tooltest.PinTimes(t, src, time.Time{})
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
