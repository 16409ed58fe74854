package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
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
		{[]string{"-o", "F=11"}, true, `fat_type: "11": number out of range: 11 is not between 12 and 255`},
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

func TestReword(t *testing.T) {
	t.Parallel()
	help := func() []imgfmt.Option {
		return []imgfmt.Option{{Key: "sectors_per_cluster", Letter: "c", Field: "SectorsPerCluster"}, {Key: "offset", Field: "Offset"}}
	}
	base := fmt.Errorf("%w: raise Options.SectorsPerCluster, or Options.Size = 4096; Options.SectorsPerCluster = 4 (Options.Offset = 512). Options.Unknown, MyOptions.Size", msdos.ErrParams)
	err := reword(base, help)
	want := "msdos: impossible parameters: raise sectors_per_cluster, or -s 4096; -o sectors_per_cluster=4 (-O 512). Options.Unknown, MyOptions.Size"
	if err.Error() != want || !errors.Is(err, msdos.ErrParams) {
		t.Errorf("reword: %q (errors.Is %v), want %q", err, errors.Is(err, msdos.ErrParams), want)
	}
	u := usagef("makefs: Options.Timestamp")
	var ue *usageError
	if err := reword(u, nil); err.Error() != "makefs: -T" || !errors.As(err, &ue) {
		t.Errorf("reword of a usage error: %v", err)
	}
	plain := errors.New("no fields here")
	if reword(plain, help) != plain || reword(nil, help) != nil {
		t.Error("reword changed an error that names no field")
	}
}
