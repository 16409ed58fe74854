package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestMsdosCLIMatchesLibrary builds images through the command line and
// through msdos.Build and msdos.WriteFile with the equivalent Options, and
// checks that the bytes are the same: the library needs nothing the
// command adds, the time rule of -T and SOURCE_DATE_EPOCH included.
func TestMsdosCLIMatchesLibrary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	sde := time.Unix(1600000000, 0).UTC()
	for i, f := range []struct {
		name string
		mode os.FileMode
		age  time.Duration // before SOURCE_DATE_EPOCH; negative is after it
	}{
		{"README.TXT", 0o644, time.Hour},
		{"A long name.txt", 0o644, -time.Hour},
		{"ro.bin", 0o444, 24 * time.Hour},
		{"sub/deeper/new file.c", 0o644, -48 * time.Hour},
		{"sub/old.dat", 0o644, 1000 * time.Hour},
	} {
		p := filepath.Join(src, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, bytes.Repeat([]byte{byte('a' + i)}, 700*(i+1)), f.mode); err != nil {
			t.Fatal(err)
		}
		mt := sde.Add(-f.age + 1500*time.Millisecond) // an odd second, hundredths too
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"sub/deeper", "sub", "."} {
		if err := os.Chtimes(filepath.Join(src, d), sde.Add(time.Hour), sde.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	// The subtests read the tree at once: atimes at their mtimes, some
	// before SOURCE_DATE_EPOCH (which keeps them), would move at the first
	// read, and the FAT access date with them.
	tooltest.PinTimes(t, src, time.Time{})
	ts := time.Unix(1500000000, 0).UTC()
	for _, c := range []struct {
		name string
		args []string
		sde  string // SOURCE_DATE_EPOCH
		o    msdos.Options
	}{
		{"plain -T", []string{"-T", "1500000000"}, "", msdos.Options{Timestamp: ts}},
		{"SOURCE_DATE_EPOCH", nil, "1600000000", msdos.Options{Timestamp: sde, ClampTimes: true}},
		{"-T over SOURCE_DATE_EPOCH", []string{"-T", "1500000000", "-o", "L=Label"}, "1600000000",
			msdos.Options{Timestamp: ts, VolumeLabel: "Label"}},
		{"-o timestamp", []string{"-o", "timestamp=1500000000,volume_label=TS"}, "1600000000",
			msdos.Options{Timestamp: ts, VolumeLabel: "TS"}},
		{"label and ids", []string{"-T", "1500000000", "-o", "volume_label=Fixture,volume_id=305419896,OEM_string=MSWIN4.1"}, "",
			msdos.Options{Timestamp: ts, VolumeLabel: "Fixture", VolumeID: new(uint32(0x12345678)), OEMString: new("MSWIN4.1")}},
		{"floppy FAT12", []string{"-s", "1440k", "-o", "F=12,L=FLOPPY,c=2"}, "1600000000",
			msdos.Options{Size: 1440 << 10, FATType: 12, VolumeLabel: "FLOPPY", SectorsPerCluster: 2, Timestamp: sde, ClampTimes: true}},
		{"offset and hidden sectors", []string{"-T", "1500000000", "-O", "64k", "-s", "2m", "-o", "hidden_sectors=128,media_descriptor=248"}, "",
			msdos.Options{Timestamp: ts, Offset: 64 << 10, Size: 2 << 20, HiddenSectors: new(uint32(128)), MediaDescriptor: 0xf8}},
		{"4K sectors FAT16", []string{"-S", "4096", "-s", "20m", "-o", "fat_type=16"}, "1600000000",
			msdos.Options{BytesPerSector: 4096, Size: 20 << 20, FATType: 16, Timestamp: sde, ClampTimes: true}},
		{"FAT32 minimum size", []string{"-T", "1500000000", "-M", "40m", "-o", "fat_type=32,sectors_per_cluster=1,num_FAT=1"}, "",
			msdos.Options{Timestamp: ts, MinSize: 40 << 20, FATType: 32, SectorsPerCluster: 1, NumFATs: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			var stderr bytes.Buffer
			e := &env{Dir: dir, Stdout: new(bytes.Buffer), Stderr: &stderr, Getenv: func(k string) string {
				if k == "SOURCE_DATE_EPOCH" {
					return c.sde
				}
				return ""
			}}
			img := filepath.Join(out, "cli.img")
			args := append(append([]string{"makefs", "-t", "msdos"}, c.args...), img, "src")
			if code := runMain(e, args); code != 0 {
				t.Fatalf("%q: exit %d: %s", args, code, stderr.String())
			}
			cli, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			o := c.o
			lib, err := msdos.Build(fstree.Dir(src), &o)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(cli, lib) {
				t.Errorf("%q and msdos.Build with %+v differ (%d and %d bytes)", args, c.o, len(cli), len(lib))
			}
			o = c.o
			file := filepath.Join(out, "lib.img")
			if err := msdos.WriteFile(file, fstree.Dir(src), &o); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(file); err != nil || !bytes.Equal(cli, b) {
				t.Errorf("%q and msdos.WriteFile with %+v differ (%v)", args, c.o, err)
			}
		})
	}
}

// TestMsdosErrorWords checks that the library's errors name Options fields
// and that the command says the same in its flags.
func TestMsdosErrorWords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "a"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args      []string
		o         msdos.Options
		lib, cli  string
		wantUsage bool
	}{
		{[]string{"-s", "8m", "-o", "fat_type=16"}, msdos.Options{Size: 8 << 20, FATType: 16},
			"at this size Options.SectorsPerCluster = 2 would do", "at this size -o sectors_per_cluster=2 would do", false},
		{[]string{"-s", "8m", "-o", "fat_type=32"}, msdos.Options{Size: 8 << 20, FATType: 32},
			"bytes with Options.SectorsPerCluster = 1", "bytes with -o sectors_per_cluster=1", false},
		{[]string{"-o", "b=4096,c=8"}, msdos.Options{BlockSize: 4096, SectorsPerCluster: 8},
			"cannot give both Options.BlockSize and Options.SectorsPerCluster", "cannot give both block_size and sectors_per_cluster", false},
		{[]string{"-o", "F=32,e=512"}, msdos.Options{FATType: 32, DirectoryEntries: 512},
			"Options.DirectoryEntries is not a legal FAT32 option", "makefs: msdos: directory_entries is not a legal FAT32 option", false},
		{[]string{"-M", "2m", "-m", "1m"}, msdos.Options{MinSize: 2 << 20, MaxSize: 1 << 20},
			"Options.MinSize (2097152) is larger than Options.MaxSize (1048576)", "-M (2097152) is larger than -m (1048576)", false},
	} {
		o := c.o
		_, err := msdos.Build(fstree.Dir(filepath.Join(dir, "src")), &o)
		if err == nil || !strings.Contains(err.Error(), c.lib) {
			t.Errorf("msdos.Build with %+v: error %v, want %q", c.o, err, c.lib)
		}
		var stderr bytes.Buffer
		e := &env{Dir: dir, Stdout: new(bytes.Buffer), Stderr: &stderr}
		args := append(append([]string{"makefs", "-t", "msdos"}, c.args...), "out.img", "src")
		code := runMain(e, args)
		if msg := stderr.String(); code != 1 || !strings.Contains(msg, c.cli) || strings.Contains(msg, "Options.") {
			t.Errorf("%q: exit %d, stderr %q; want exit 1 and %q", args, code, msg, c.cli)
		}
	}
}
