package msdos

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// writeErr builds a tree from files (plus extra setup) and returns the
// error Write gives; it checks that no image is left behind.
func writeErr(t *testing.T, files []srcFile, setup func(dir string), o *Options) error {
	t.Helper()
	dir := t.TempDir()
	makeSource(t, dir, files)
	if setup != nil {
		setup(dir)
	}
	tr, err := fstree.WalkDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	img := filepath.Join(out, "e.img")
	if err := os.WriteFile(img, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	werr := WriteFile(img, tr, o)
	if werr != nil {
		b, _ := os.ReadFile(img)
		if string(b) != "previous" {
			t.Errorf("a failed Write changed the existing image")
		}
		ents, _ := os.ReadDir(out)
		if len(ents) != 1 {
			t.Errorf("a failed Write left %d files behind", len(ents))
		}
	}
	return werr
}

func TestWriteErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		files  []srcFile
		setup  func(dir string)
		o      Options
		target error
		want   []string // substrings of the message
	}{
		{"case only", []srcFile{{name: "d/Foo.txt"}, {name: "d/foo.TXT"}}, nil, Options{}, ErrName,
			[]string{"d/Foo.txt and d/foo.TXT differ only by case"}},
		{"colon", []srcFile{{name: "a:b"}}, nil, Options{}, ErrName, []string{"a:b", "FAT forbids"}},
		{"star", []srcFile{{name: "x/a*b"}}, nil, Options{}, ErrName, []string{"x/a*b", `'*'`}},
		{"question", []srcFile{{name: "why?"}}, nil, Options{}, ErrName, []string{"why?"}},
		{"backslash", []srcFile{{name: `a\b`}}, nil, Options{}, ErrName, []string{`a\b`}},
		{"control", []srcFile{{name: "tab\there"}}, nil, Options{}, ErrName, []string{"tab"}},
		{"trailing dot", []srcFile{{name: "dir/name."}}, nil, Options{}, ErrName, []string{"dir/name.", "ends in a dot"}},
		{"4 GiB", nil, func(dir string) {
			f, _ := os.Create(filepath.Join(dir, "huge.bin"))
			f.Truncate(1 << 32)
			f.Close()
		}, Options{}, ErrFileTooBig, []string{"huge.bin", "4294967296 bytes", "4294967295"}},
		{"does not fit", []srcFile{{name: "big", size: 3 << 20}}, nil, Options{Size: 1 << 20}, ErrNoSpace,
			[]string{"needs", "clusters", "at least", "bytes is needed"}},
		{"metadata too big", []srcFile{{name: "a", size: 1}}, nil, Options{Size: 4096}, ErrParams,
			[]string{"exceeds", "at least"}},
		{"root full", manyFiles(600), nil, Options{}, ErrRootFull,
			[]string{"root directory needs", "holds 512", "raise Options.DirectoryEntries or use Options.FATType = 32"}},
		{"root full fat16", manyFiles(100), nil, Options{FATType: 16, DirectoryEntries: 64}, ErrRootFull,
			[]string{"holds 64"}},
		{"too few clusters", []srcFile{{name: "a"}}, nil, Options{FATType: 32, Size: 8 << 20}, ErrParams,
			[]string{"clusters is too few for FAT32", "65525 to 268435444", "bytes with Options.SectorsPerCluster = 1"}},
		// 8 MiB holds the tree, but the default cluster size (4 KiB at this
		// size) leaves too few clusters for FAT16: the way out is a smaller
		// cluster, not a larger image.
		{"cluster hint", []srcFile{{name: "a"}}, nil, Options{FATType: 16, Size: 8 << 20}, ErrParams,
			[]string{"too few for FAT16", "at this size Options.SectorsPerCluster = 2 would do"}},
		{"fat32 dirents", []srcFile{{name: "a"}}, nil, Options{FATType: 32, DirectoryEntries: 512}, ErrParams,
			[]string{"Options.DirectoryEntries is not a legal FAT32 option"}},
		{"info sector fat16", []srcFile{{name: "a"}}, nil, Options{FATType: 16, InfoSector: 1}, ErrParams,
			[]string{"Options.InfoSector is not a legal FAT12/16 option"}},
		{"block and spc", []srcFile{{name: "a"}}, nil, Options{BlockSize: 4096, SectorsPerCluster: 8}, ErrParams,
			[]string{"both Options.BlockSize and Options.SectorsPerCluster"}},
		{"bad label", []srcFile{{name: "a"}}, nil, Options{VolumeLabel: "a.b"}, ErrParams, []string{`Options.VolumeLabel "a.b"`}},
		{"long OEM", []srcFile{{name: "a"}}, nil, Options{OEMString: new("123456789")}, ErrParams, []string{`Options.OEMString "123456789"`}},
		{"media", []srcFile{{name: "a"}}, nil, Options{MediaDescriptor: 0x12}, ErrParams, []string{"Options.MediaDescriptor 0x12"}},
		{"negative", []srcFile{{name: "a"}}, nil, Options{NumFATs: -1}, ErrParams, []string{"Options.NumFATs is negative (-1)"}},
		{"min above max", []srcFile{{name: "a"}}, nil, Options{MinSize: 2 << 20, MaxSize: 1 << 20}, ErrParams,
			[]string{"Options.MinSize (2097152) is larger than Options.MaxSize (1048576)"}},
		{"no bootstrap", []srcFile{{name: "a"}}, nil, Options{Bootstrap: "./no/such/boot"}, nil, []string{"Options.Bootstrap: ", "no/such/boot"}},
		{"vanished source", []srcFile{{name: "gone", size: 10}}, nil, Options{}, nil, []string{"gone"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := c.o
			var err error
			if c.name == "vanished source" {
				dir := t.TempDir()
				makeSource(t, dir, c.files)
				tr, _ := fstree.WalkDir(dir, nil)
				os.Remove(filepath.Join(dir, "gone"))
				img := filepath.Join(t.TempDir(), "v.img")
				err = WriteFile(img, tr, &o)
				if _, serr := os.Stat(img); serr == nil {
					t.Error("image left behind")
				}
			} else {
				err = writeErr(t, c.files, c.setup, &o)
			}
			if err == nil {
				t.Fatal("no error")
			}
			if c.target != nil && !errors.Is(err, c.target) {
				t.Errorf("error %q is not %v", err, c.target)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			// The library speaks of Options fields, never of makefs's
			// command line.
			for _, o := range OptionHelp() {
				if strings.Contains(o.Key, "_") && strings.Contains(err.Error(), o.Key) {
					t.Errorf("error %q names the -o option %s, not Options.%s", err, o.Key, o.Field)
				}
			}
			if strings.Contains(err.Error(), "-o ") {
				t.Errorf("error %q names a command-line flag", err)
			}
		})
	}
}

func manyFiles(n int) []srcFile {
	var out []srcFile
	for i := 0; i < n; i++ {
		out = append(out, srcFile{name: strings.Repeat("F", 1+i%7) + string(rune('0'+i/100%10)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10))})
	}
	return out
}

// TestNameTooLong uses an in-memory tree: Linux cannot hold a name of more
// than 255 bytes, but an mtree spec or an fs.FS can.
func TestNameTooLong(t *testing.T) {
	t.Parallel()
	root := &fstree.Node{Name: ".", Type: fstree.TypeDir, Mode: 0o755}
	for _, name := range []string{strings.Repeat("é", 255), strings.Repeat("é", 256), strings.Repeat("𝄞", 128)} {
		root.Children = []*fstree.Node{{Name: name, Type: fstree.TypeFile, Mode: 0o644, Parent: root}}
		tr := &fstree.Tree{Root: root}
		img := filepath.Join(t.TempDir(), "l.img")
		err := WriteFile(img, tr, nil)
		units := len([]rune(name))
		if strings.HasPrefix(name, "𝄞") {
			units *= 2
		}
		if units <= 255 {
			if err != nil {
				t.Errorf("%d units: %v", units, err)
				continue
			}
			fsys := openImage(t, img)
			if _, err := fsys.Stat(name); err != nil {
				t.Errorf("%d units: %v", units, err)
			}
			fsckClean(t, img)
			continue
		}
		if !errors.Is(err, ErrName) || !strings.Contains(err.Error(), "UTF-16 units long; FAT allows 255") {
			t.Errorf("%d units: error %v", units, err)
		}
	}
}

// TestDirectoryLimit checks that a directory may hold 65536 32-byte
// entries, ".", ".." and long-name entries included, and that one more is
// an error naming the directory.
func TestDirectoryLimit(t *testing.T) {
	t.Parallel()
	tree := func(n int, long bool) fstest.MapFS {
		m := fstest.MapFS{}
		for i := range n {
			name := fmt.Sprintf("big/F%05d.TXT", i)
			if long {
				name = fmt.Sprintf("big/a long name %05d", i)
			}
			m[name] = &fstest.MapFile{}
		}
		return m
	}
	// 2 + 65534 short entries fill the directory exactly.
	img, err := Build(fstree.FS(tree(65534, false)), &Options{FATType: 16})
	if err != nil {
		t.Fatalf("65536 entries: %v", err)
	}
	fsys, err := NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	if ents, err := fs.ReadDir(fsys, "big"); err != nil || len(ents) != 65534 {
		t.Fatalf("ReadDir: %d entries, %v", len(ents), err)
	}
	for _, c := range []struct {
		n    int
		long bool
	}{{65535, false}, {32768, true}} {
		_, err := Build(fstree.FS(tree(c.n, c.long)), nil)
		if !errors.Is(err, ErrDirFull) || !strings.Contains(err.Error(), "big: the directory needs more than 65536 32-byte entries") {
			t.Errorf("%d entries (long names %v): error %v, want ErrDirFull naming big", c.n, c.long, err)
		}
	}
}
