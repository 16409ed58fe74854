package msdos

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// expectedPaths lists the slash paths of the source files under dir.
func expectedPaths(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out
}

// compareTree checks that fsys holds exactly the source tree under dir:
// names, contents, directory structure and (when checkTimes) mtimes to 2 s.
func compareTree(t *testing.T, fsys fs.FS, dir string, checkTimes, checkRO bool) {
	t.Helper()
	want := expectedPaths(t, dir)
	var got []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." {
			got = append(got, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking image: %v", err)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("image paths differ from source:\n got %q\nwant %q", got, want)
	}
	for _, p := range want {
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		fi, err := fs.Stat(fsys, p)
		if err != nil {
			t.Fatal(err)
		}
		if st.IsDir() != fi.IsDir() {
			t.Errorf("%s: dir %v, want %v", p, fi.IsDir(), st.IsDir())
			continue
		}
		if checkTimes {
			if d := st.ModTime().Sub(fi.ModTime()); d < 0 || d >= 2*time.Second {
				t.Errorf("%s: mtime %v, source %v", p, fi.ModTime(), st.ModTime())
			}
		}
		if st.IsDir() {
			continue
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			t.Fatal(err)
		}
		src, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if !bytes.Equal(b, src) {
			t.Errorf("%s: contents differ (%d bytes, want %d)", p, len(b), len(src))
		}
		if ro := st.Mode()&0o200 == 0; checkRO && ro != (fi.Mode()&0o200 == 0) {
			t.Errorf("%s: read-only %v, want %v", p, !ro, ro)
		}
	}
}

func openImage(t testing.TB, img string) *FS {
	t.Helper()
	rc, err := OpenReader(img)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close() })
	return &rc.FS
}

// openImageFor opens the k-th image of a test (counting from 0) for
// fstest.TestFS, which reads each file in pieces of a byte or a few: the
// first, and with FIXTUREGEN_LONG=1 every one, through OpenReader, where
// each piece is a pread of the file (a system call, costly in a virtual
// machine); the others through NewReader over the file read a block at a
// time (tooltest.BlockReaderAt).
func openImageFor(t testing.TB, img string, k int) *FS {
	t.Helper()
	if k == 0 || tooltest.Long() {
		return openImage(t, img)
	}
	f, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := NewReader(tooltest.BlockReaderAt(f), fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

func TestReaderOwnImages(t *testing.T) {
	t.Parallel()
	for k, o := range []Options{{}, {FATType: 16}, {FATType: 32}, {BytesPerSector: 4096}, {FATType: 32, BytesPerSector: 4096, SectorsPerCluster: 2}} {
		dir, tr := buildTree(t, sampleFiles())
		img := writeImage(t, tr, &o)
		fsys := openImageFor(t, img, k)
		if err := fstest.TestFS(fsys, expectedPaths(t, dir)...); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
		compareTree(t, fsys, dir, true, true)
		if o.FATType != 0 && fsys.FATType() != o.FATType {
			t.Errorf("FAT type %d, want %d", fsys.FATType(), o.FATType)
		}
	}
}

func TestReaderEntry(t *testing.T) {
	t.Parallel()
	_, tr := buildTree(t, sampleFiles())
	img := writeImage(t, tr, &Options{VolumeLabel: "Lbl", VolumeID: new(uint32(0x12345678))})
	fsys := openImage(t, img)
	if fsys.Label() != "LBL" || fsys.VolumeID() != 0x12345678 {
		t.Errorf("label %q id %#x", fsys.Label(), fsys.VolumeID())
	}
	for _, c := range []struct {
		path, short string
		attr        uint8
		clusters    int
	}{
		{"README.TXT", "README.TXT", AttrArchive, 1},
		{"readme.md", "README.MD", AttrArchive, 10},
		{"A Long File Name.text", "ALONGF~1.TEX", AttrArchive, 137},
		{"empty", "EMPTY", AttrArchive, 0},
		{"ro.bin", "RO.BIN", AttrArchive | AttrReadOnly, 6},
		{"dir1", "DIR1", AttrDirectory, 1},
		{"dir1/x.y.z", "XY~1.Z", AttrArchive, 1},
		{"many/longfilename09.dat", "LONGF~10.DAT", AttrArchive, 13},
		{".hidden", "HIDDEN~1", AttrArchive, 1},
	} {
		e, err := fsys.Entry(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if e.ShortName != c.short || e.Attr != c.attr || len(e.Chain()) != c.clusters {
			t.Errorf("%s: short %q attr %#x chain %d, want %q %#x %d", c.path, e.ShortName, e.Attr, len(e.Chain()), c.short, c.attr, c.clusters)
		}
		if !e.Modified.Equal(e.Created.Truncate(2*time.Second)) && !e.IsDir() {
			t.Errorf("%s: created %v modified %v", c.path, e.Created, e.Modified)
		}
	}
	e, _ := fsys.Entry("README.TXT")
	if !e.Created.Equal(e.Modified) || e.Modified.Second()%2 != 0 {
		t.Errorf("odd-second mtime: created %v, modified %v; want both rounded down (DIR_CrtTimeTenth is 0, as makefs writes it)", e.Created, e.Modified)
	}
}

// mtoolsImage makes an image with mkfs.fat and fills it with mcopy -s.
func mtoolsImage(t *testing.T, dir string, mkfsArgs ...string) string {
	t.Helper()
	mkfs := tooltest.Need(t, "mkfs.fat")
	mcopy := tooltest.Need(t, "mcopy")
	img := filepath.Join(t.TempDir(), "mtools.img")
	args := append([]string{"-C"}, mkfsArgs...)
	kib := "4096"
	switch {
	case strings.Contains(strings.Join(mkfsArgs, " "), "32"):
		kib = "300000"
	case strings.Contains(strings.Join(mkfsArgs, " "), "16"):
		kib = "16384"
	}
	args = append(args, img, kib)
	if out, err := exec.Command(mkfs, args...).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.fat: %v\n%s", err, out)
	}
	ents, _ := os.ReadDir(dir)
	cmd := []string{"-i", img, "-s", "-p", "-m"}
	for _, e := range ents {
		cmd = append(cmd, filepath.Join(dir, e.Name()))
	}
	cmd = append(cmd, "::")
	c := exec.Command(mcopy, cmd...)
	c.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1", "LC_ALL=C.UTF-8")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("mcopy: %v\n%s", err, out)
	}
	return img
}

// bmpOnly drops names outside the Basic Multilingual Plane: mtools 4
// stores only UCS-2 and mangles them.
func bmpOnly(files []srcFile) []srcFile {
	var out []srcFile
	for _, f := range files {
		ok := true
		for _, r := range f.name {
			if r > 0xffff {
				ok = false
			}
		}
		if ok {
			out = append(out, f)
		}
	}
	return out
}

func TestReaderMtoolsImages(t *testing.T) {
	t.Parallel()
	for k, args := range [][]string{{"-F", "12"}, {"-F", "16"}, {"-F", "32", "-s", "1"}, {"-F", "32", "-S", "4096", "-s", "1"}} {
		t.Run(strings.Join(args, ""), func(t *testing.T) {
			t.Parallel()
			dir, _ := buildTree(t, bmpOnly(sampleFiles()))
			img := mtoolsImage(t, dir, args...)
			fsys := openImageFor(t, img, k)
			if err := fstest.TestFS(fsys, expectedPaths(t, dir)...); err != nil {
				t.Error(err)
			}
			compareTree(t, fsys, dir, true, false) // mcopy drops the read-only attribute
		})
	}
}

// corrupt writes a modified copy of img and opens it.
func corrupt(t *testing.T, img string, mod func(b []byte)) (*FS, error) {
	t.Helper()
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	mod(b)
	return NewReader(bytes.NewReader(b), int64(len(b)))
}

func TestReaderCorrupt(t *testing.T) {
	t.Parallel()
	_, tr := buildTree(t, sampleFiles())
	img := writeImage(t, tr, &Options{FATType: 16})
	fsys := openImage(t, img)
	ent, err := fsys.Entry("A Long File Name.text")
	if err != nil {
		t.Fatal(err)
	}
	g := fsys
	fatEntOff := func(c uint32) int64 { return g.fatOff + int64(c)*2 }
	for _, c := range []struct {
		name string
		mod  func(b []byte)
		open bool // the error comes at Open
	}{
		{"signature", func(b []byte) { b[510] = 0 }, true},
		{"bytes per sector", func(b []byte) { b[11], b[12] = 0, 3 }, true},
		{"sectors per cluster", func(b []byte) { b[13] = 3 }, true},
		{"no FATs", func(b []byte) { b[16] = 0 }, true},
		{"reserved", func(b []byte) { b[14], b[15] = 0, 0 }, true},
		{"too many sectors", func(b []byte) { b[19], b[20] = 0xff, 0xff }, true},
		{"fat size", func(b []byte) { b[22], b[23] = 0, 0 }, true},
		{"chain loop", func(b []byte) {
			c := ent.Chain()[5]
			le.PutUint16(b[fatEntOff(c):], uint16(ent.Chain()[2]))
		}, false},
		{"chain free", func(b []byte) {
			le.PutUint16(b[fatEntOff(ent.Chain()[3]):], 0)
		}, false},
		{"chain short", func(b []byte) {
			le.PutUint16(b[fatEntOff(ent.Chain()[3]):], 0xffff)
		}, false},
	} {
		f, err := corrupt(t, img, c.mod)
		if c.open {
			if err == nil || !errors.Is(err, ErrFormat) {
				t.Errorf("%s: Open error %v, want ErrFormat", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if _, err := f.ReadFile("A Long File Name.text"); err == nil || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: ReadFile error %v, want ErrFormat", c.name, err)
		}
	}
	// A directory whose chain loops onto itself.
	d, _ := fsys.Entry("many")
	f, err := corrupt(t, img, func(b []byte) { le.PutUint16(b[fatEntOff(d.Cluster):], uint16(d.Cluster)) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadDir("many"); err == nil {
		t.Error("ReadDir of a looping directory: no error")
	}
}

// TestReaderConcurrent reads one file and its Entry from several
// goroutines at once, as the FS documentation allows; run with -race it
// catches an Open or Entry that writes to the FS's shared entries.
func TestReaderConcurrent(t *testing.T) {
	t.Parallel()
	dir, tr := buildTree(t, sampleFiles())
	fsys := openImage(t, writeImage(t, tr, nil))
	const name = "A Long File Name.text"
	want, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for range cap(errs) {
		go func() {
			got, err := fsys.ReadFile(name)
			if err == nil && !bytes.Equal(got, want) {
				err = errors.New("contents differ from the source")
			}
			if err == nil {
				var e *Entry
				if e, err = fsys.Entry(name); err == nil && int64(len(e.Chain()))*fsys.ClusterSize() < e.Size {
					err = errors.New("Entry's chain is shorter than the file")
				}
			}
			errs <- err
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestReadSmallFAT32 checks that a FAT32 volume with fewer clusters than
// the FAT specification's 65525 (mkfs.fat -F 32 of a small device, as
// util-linux's small-fat32.img is) reads as FAT32, as Linux and fsck.fat
// read it, with a warning saying so, rather than as a FAT12 volume whose
// BPB_RootEntCnt is wrong.
func TestReadSmallFAT32(t *testing.T) {
	t.Parallel()
	mkfs := tooltest.Need(t, "mkfs.fat")
	img := filepath.Join(t.TempDir(), "small.img")
	if out, err := exec.Command(mkfs, "-F", "32", "-n", "SMALL", "-C", img, "2048").CombinedOutput(); err != nil {
		t.Fatalf("mkfs.fat: %v\n%s", err, out)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	if f.fatType != 32 {
		t.Errorf("read as FAT%d, want FAT32", f.fatType)
	}
	if w := f.Warnings(); len(w) != 1 || !strings.Contains(w[0], "read as FAT32, as Linux and fsck.fat read it") {
		t.Errorf("warnings %q, want one saying it is read as FAT32", w)
	}
	if ents, err := fs.ReadDir(f, "."); err != nil || len(ents) != 0 {
		t.Errorf("root: %v, %v; want an empty directory", ents, err)
	}
}
