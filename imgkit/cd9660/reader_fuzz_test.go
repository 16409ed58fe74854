package cd9660

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt/imgfmttest"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// The fuzz inputs are ISO images in a compact form, so that the committed
// seeds stay a few KiB each: the image from sector 16 on, its trailing
// zero bytes dropped and each run of zero bytes inside it written as a
// zero byte and the run's length less one (runs longer than 256 bytes are
// several runs). unpackImage puts the System Area back and pads the image
// with zeros to its Volume Space Size.

// maxFuzzImage bounds the image an input unpacks to.
const maxFuzzImage = 4 << 20

// packImage returns the compact form of image b.
func packImage(b []byte) []byte {
	b = bytes.TrimRight(b[systemAreaSectors*SectorSize:], "\x00")
	var out []byte
	for i := 0; i < len(b); {
		if b[i] != 0 {
			out = append(out, b[i])
			i++
			continue
		}
		j := i
		for j < len(b) && b[j] == 0 && j-i < 256 {
			j++
		}
		out = append(out, 0, byte(j-i-1))
		i = j
	}
	return out
}

// unpackImage returns the image that the compact form p stands for.
func unpackImage(p []byte) []byte {
	b := make([]byte, systemAreaSectors*SectorSize, systemAreaSectors*SectorSize+len(p))
	for i := 0; i < len(p) && len(b) < maxFuzzImage; i++ {
		if p[i] != 0 {
			b = append(b, p[i])
			continue
		}
		n := 1
		if i+1 < len(p) {
			i++
			n += int(p[i])
		}
		b = append(b, make([]byte, n)...)
	}
	if len(b) >= 32768+88 {
		if n, _ := get733(b[32768+80:]); int64(n)*SectorSize <= maxFuzzImage && int(n)*SectorSize > len(b) {
			b = append(b, make([]byte, int(n)*SectorSize-len(b))...)
		}
	}
	return b
}

// FuzzOpen opens arbitrary images and reads everything in them: every
// directory and file of each namespace, every link, the boot catalogue
// and the field description. Bad images must give errors, never panics,
// hangs or huge allocations.
//
// The seeds in testdata/fuzz/FuzzOpen are small images of xorriso (Rock
// Ridge, Joliet and El Torito; plain; two boot sections; zisofs and
// zisofs2 files), genisoimage (Rock Ridge and Joliet; Joliet alone) and
// both makefs (Rock Ridge with relocated directories); regenerate them
// with
//
//	FIXTUREGEN_WRITE_SEEDS=1 go test -run TestWriteFuzzSeeds ./imgkit/cd9660/
func FuzzOpen(f *testing.F) {
	imgfmttest.NoMinimize(f) // the seeds are images
	f.Fuzz(func(t *testing.T, p []byte) { fuzzOne(t, p) })
}

// fuzzOne is one run of FuzzOpen on the packed image p. Every error that
// wraps ErrFormat must be an *imgfmt.FormatError with a byte of the image
// or -1 as its Off.
func fuzzOne(t *testing.T, p []byte) {
	b := unpackImage(p)
	size := int64(len(b))
	check := func(err error) { imgfmttest.CheckFormatError(t, err, size, "cd9660", ErrFormat) }
	r := bytes.NewReader(b)
	fsys, err := NewReader(r, size)
	if err != nil {
		check(err)
		return
	}
	readAll(fsys, check)
	for _, ns := range []Namespace{ISO9660, Joliet} {
		v, err := fsys.View(ns)
		check(err)
		if err == nil {
			readAll(v, check)
		}
	}
	_, err = fsys.BootCatalog()
	check(err)
	_, err = Fields(r, size)
	check(err)
}

// readAll walks fsys and reads every file and link, handing each error
// to check.
func readAll(fsys *FS, check func(error)) {
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			check(err)
			return nil
		}
		_, err = fsys.Stat(p)
		check(err)
		_, err = fsys.Lstat(p)
		check(err)
		_, err = fsys.Entry(p)
		check(err)
		if d.Type()&fs.ModeSymlink != 0 {
			_, err = fsys.ReadLink(p)
			check(err)
		}
		if !d.IsDir() {
			check(readBounded(fsys, p))
		}
		return nil
	})
}

// maxFuzzRead bounds the bytes FuzzOpen reads of one file: a zisofs file
// of a few KiB may stand for 4 GiB of zeros.
const maxFuzzRead = 16 << 20

// readBounded reads the file p whole with ReadFile when it is small, and
// its first maxFuzzRead bytes otherwise.
func readBounded(fsys *FS, p string) error {
	if fi, err := fsys.Stat(p); err == nil && fi.Size() <= maxFuzzRead {
		_, err := fsys.ReadFile(p)
		return err
	}
	fl, err := fsys.Open(p)
	if err != nil {
		return err
	}
	defer fl.Close()
	_, err = io.CopyN(io.Discard, fl, maxFuzzRead)
	if err == io.EOF {
		err = nil
	}
	return err
}

// TestPackImage checks that unpackImage inverts packImage.
func TestPackImage(t *testing.T) {
	t.Parallel()
	img := make([]byte, 20*SectorSize)
	copy(img[32768:], "\x01CD001\x01\x00\x00\x00x")
	put733(img[32768+80:], 20)
	img[32768+3000] = 7
	if got := unpackImage(packImage(img)); !bytes.Equal(got, img) {
		t.Errorf("unpackImage(packImage(img)) differs from img (%d bytes, want %d)", len(got), len(img))
	}
}

// TestWriteFuzzSeeds regenerates the FuzzOpen seed corpus when
// FIXTUREGEN_WRITE_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	// not parallel: it rewrites the committed corpus under testdata, which other tests read.
	if os.Getenv("FIXTUREGEN_WRITE_SEEDS") != "1" {
		t.Skip("set FIXTUREGEN_WRITE_SEEDS=1 to rewrite testdata/fuzz/FuzzOpen")
	}
	base := []srcFile{
		{name: "a", size: 3, mode: 0o644},
		{name: "d/", mode: 0o755},
		{name: "d/b", size: 2, mode: 0o600},
		{name: "l", link: "d/b"},
	}
	long := append(slices.Clone(base), srcFile{name: strings.Repeat("n", 120), size: 1, mode: 0o644})
	deep := append(slices.Clone(base), srcFile{name: "1/2/3/4/5/6/7/8/9/f", size: 1, mode: 0o644})
	// Files of 100 KiB and of 33 KiB of the pattern compress, in blocks
	// of 32 KiB, to a few hundred bytes.
	zisofs := append(slices.Clone(base), srcFile{name: "z", size: 100 << 10, mode: 0o644}, srcFile{name: "y", size: 33 << 10, mode: 0o644})
	dir := filepath.Join("testdata", "fuzz", "FuzzOpen")
	os.MkdirAll(dir, 0o755)
	type seed struct {
		files []srcFile
		args  []string
	}
	seeds := map[string]seed{
		"xorriso":       {long, []string{"xorriso", "-as", "mkisofs", "-quiet", "-R", "-J", "-no-pad", "-b", "boot.img", "-no-emul-boot", "-o"}},
		"xorriso-plain": {base, []string{"xorriso", "-as", "mkisofs", "-quiet", "-no-pad", "-o"}},
		"xorriso-sections": {base, []string{"xorriso", "-as", "mkisofs", "-quiet", "-no-pad", "-b", "boot.img", "-no-emul-boot",
			"-eltorito-alt-boot", "-e", "efi.img", "-no-emul-boot", "-o"}},
		"xorriso-zisofs": {zisofs, []string{"xorriso", "-zisofs", "block_size=32k", "-set_filter_r", "--zisofs", "/", "--", "-commit"}},
		"xorriso-zisofs2": {zisofs, []string{"xorriso", "-zisofs", "version_2=on:block_size_v2=64k:susp_z2=on",
			"-set_filter_r", "--zisofs", "/", "--", "-commit"}},
		"genisoimage-joliet": {base, []string{"genisoimage", "-quiet", "-J", "-o"}},
		"genisoimage":        {base, []string{"genisoimage", "-quiet", "-R", "-J", "-o"}},
		"makefs":             {deep, []string{"makefs", "-t", "cd9660", "-o", "rockridge"}},
		"freebsd-makefs":     {deep, []string{"freebsd-makefs", "-t", "cd9660", "-o", "rockridge", "-o", "bootimage=i386;boot.img", "-o", "no-emul-boot"}},
	}
	for name, sd := range seeds {
		args := sd.args
		tooltest.Need(t, args[0])
		src := makeSource(t, sd.files)
		addSpecials(t, src)
		// Boot images of zeros pack to a few bytes.
		os.WriteFile(filepath.Join(src, "boot.img"), make([]byte, 2048), 0o644)
		os.WriteFile(filepath.Join(src, "efi.img"), make([]byte, 2048), 0o644)
		img := filepath.Join(t.TempDir(), "s.iso")
		for i, a := range args {
			// makefs takes the boot image's host path.
			args[i] = strings.Replace(a, "bootimage=i386;boot.img", "bootimage=i386;"+filepath.Join(src, "boot.img"), 1)
		}
		cmd := exec.Command(args[0], append(args[1:], img, src)...)
		if strings.HasPrefix(name, "xorriso-zisofs") {
			// Only xorriso's own commands compress files.
			cmd = exec.Command(args[0], append([]string{"-outdev", img, "-map", src, "/"}, args[1:]...)...)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		b, err := os.ReadFile(img)
		if err != nil {
			t.Fatal(err)
		}
		seed := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", packImage(b))
		if err := os.WriteFile(filepath.Join(dir, name), []byte(seed), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: image %d bytes, corpus file %d bytes", name, len(b), len(seed))
	}
}

// TestFuzzSeeds checks that every committed seed unpacks to an image that
// opens and whose whole tree reads without an error.
func TestFuzzSeeds(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzOpen", "*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no seeds: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lit, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "go test fuzz v1\n[]byte(")
		if !ok || !strings.HasSuffix(lit, ")") {
			continue // a regression input of another shape
		}
		packed, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		img := unpackImage([]byte(packed))
		fsys, err := NewReader(bytes.NewReader(img), int64(len(img)))
		if err != nil {
			if strings.HasPrefix(filepath.Base(p), "crash-") {
				continue
			}
			t.Errorf("%s: %v", p, err)
			continue
		}
		err = fs.WalkDir(fsys, ".", func(q string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				_, err = fs.ReadFile(fsys, q)
			}
			return err
		})
		if err != nil && !strings.HasPrefix(filepath.Base(p), "crash-") {
			t.Errorf("%s: %v", p, err)
		}
	}
}
