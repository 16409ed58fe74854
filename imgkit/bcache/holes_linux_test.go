package bcache

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// sparseSource writes an 8 MiB file with holes in dir: three runs of
// data, the rest holes. It skips the test where the file system keeps no
// holes.
func sparseSource(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	want := make([]byte, 8<<20)
	r := rand.New(rand.NewPCG(14, 4))
	for _, run := range [][2]int{{1 << 20, 5000}, {3<<20 + 100, 2<<20 - 100}, {8<<20 - 10, 10}} {
		for i := run[0]; i < run[0]+run[1]; i++ {
			want[i] = byte(r.Uint32() | 1)
		}
	}
	path := filepath.Join(dir, "sparse")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(int64(len(want))); err != nil {
		t.Fatal(err)
	}
	for _, run := range [][2]int{{1 << 20, 5000}, {3<<20 + 100, 2<<20 - 100}, {8<<20 - 10, 10}} {
		if _, err := f.WriteAt(want[run[0]:run[0]+run[1]], int64(run[0])); err != nil {
			t.Fatal(err)
		}
	}
	if allocated(t, path) >= int64(len(want)) {
		tooltest.Missing(t, dir+" keeps no holes")
	}
	return path, want
}

// allocated returns the bytes the file at path takes on disk.
func allocated(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Blocks * 512
}

// TestHolesSameBytes copies a source with holes into images in the three
// modes (the file modes with every Bulk), over ranges fresh and ranges already written, with CopyFiles,
// CopyFrom (from an offset of the source) and ZeroRange, and checks that
// every mode gives the bytes of a plain copy, and that in the image files
// the holes stayed holes: the image takes about the source's data on
// disk, not the 14 MiB of zeros and data that a plain copy writes (14,344
// KiB before holes were skipped; with the hole made zero nowhere, the
// bytes under the holes differ in mmap and memory modes).
func TestHolesSameBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, data := sparseSource(t, dir)
	const size = 32 << 20
	model := make([]byte, size)
	type config struct {
		mode Mode
		bulk Bulk
	}
	var configs []config
	for _, b := range []Bulk{BulkAuto, BulkRead, BulkCopyFileRange, BulkMapSource} {
		configs = append(configs, config{ModeMmap, b}, config{ModeCopy, b})
	}
	for i, c := range append(configs, config{ModeMemory, BulkAuto}) {
		mode := c.mode
		var im *Image
		var err error
		out := filepath.Join(dir, "img-"+strconv.Itoa(i))
		if mode == ModeMemory {
			im, err = CreateMemory(size, nil)
		} else {
			im, err = Create(out, size, &Options{Mode: mode, Bulk: c.bulk})
		}
		if err != nil {
			t.Fatal(err)
		}
		defer im.Abort()
		clear(model)
		copySparse(t, im, src, data, model)
		if err := im.Commit(); err != nil {
			t.Fatal(err)
		}
		got := im.Bytes()
		if mode != ModeMemory {
			if got, err = os.ReadFile(out); err != nil {
				t.Fatal(err)
			}
			if a := allocated(t, out); a > 6<<20 {
				t.Errorf("%v, Bulk %d: the image takes %d KiB on disk, want at most 6 MiB: holes were written", mode, c.bulk, a>>10)
			}
		}
		if !bytes.Equal(got, model) {
			i := 0
			for i < len(got) && got[i] == model[i] {
				i++
			}
			t.Errorf("%v, Bulk %d: the image differs from a plain copy first at byte %#x", mode, c.bulk, i)
		}
	}
}

// copySparse writes, copies and zeroes into im as TestHolesSameBytes
// describes, the sparse file src holding data, and the same into model.
func copySparse(t *testing.T, im *Image, src string, data, model []byte) {
	t.Helper()
	write := func(b byte, off, n int) {
		if _, err := im.WriteAt(bytes.Repeat([]byte{b}, n), int64(off)); err != nil {
			t.Fatal(err)
		}
		copy(model[off:], bytes.Repeat([]byte{b}, n))
	}
	// Written before the copies, under holes of the source.
	write(0xaa, 16<<20+2<<20, 256<<10)
	write(0xbb, 4<<20+1<<20, 4096)
	write(0xcc, 30<<20, 8192)
	if i, err := im.CopyFiles([]FileCopy{{Off: 16 << 20, N: 8 << 20, Path: src}}); err != nil {
		t.Fatalf("%v: CopyFiles: file %d: %v", im.Mode(), i, err)
	}
	copy(model[16<<20:], data)
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err = f.Seek(1<<20, 0); err == nil {
		err = im.CopyFrom(4<<20, f, 6<<20)
	}
	f.Close()
	if err != nil {
		t.Fatalf("%v: CopyFrom: %v", im.Mode(), err)
	}
	copy(model[4<<20:], data[1<<20:7<<20])
	for _, z := range [][2]int64{{30<<20 + 1000, 2000}, {12 << 20, 1 << 20}} {
		if err := im.ZeroRange(z[0], z[1]); err != nil {
			t.Fatalf("%v: ZeroRange: %v", im.Mode(), err)
		}
		clear(model[z[0]:][:z[1]])
	}
}

// TestCopyFilesHoley copies a batch of small files with a source that has
// holes among them, in every target: the small files are copied by the
// workers and the sparse one after them by CopyFrom, with the bytes of a
// plain copy, the sparse file's holes left holes in the image files, and
// the failure reported the one of the lowest index, whichever part of the
// batch it is in.
func TestCopyFilesHoley(t *testing.T) {
	t.Parallel()
	batch0, want0 := filesFixture(t, 20)
	src, data := sparseSource(t, t.TempDir())
	const at = 10 // the sparse file's index
	sparseOff := (int64(len(want0)) + 4095) &^ 4095
	batch := append(append(append([]FileCopy(nil), batch0[:at]...), FileCopy{Off: sparseOff, N: int64(len(data)), Path: src}), batch0[at:]...)
	want := append(append(want0, make([]byte, sparseOff-int64(len(want0)))...), data...)
	size := int64(len(want))
	for _, tg := range targets {
		got, i, err := buildTargetWorkers(t, tg, size, nil, batch, 4)
		if err != nil {
			t.Fatalf("%s: file %d: %v", tg.name, i, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the image differs from a plain copy", tg.name)
		}
		for _, c := range []struct {
			missing []int
			want    int
		}{{[]int{3}, 3}, {[]int{15}, 15}, {[]int{15, 4}, 4}} {
			b := append([]FileCopy(nil), batch...)
			for _, m := range c.missing {
				b[m].Path += ".missing"
			}
			if _, i, err := buildTargetWorkers(t, tg, size, nil, b, 4); i != c.want || !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: files %v missing: failure at %d: %v, want %d", tg.name, c.missing, i, err, c.want)
			}
		}
		b := append([]FileCopy(nil), batch...)
		b[at].N++ // longer than the sparse file: ErrShortSrc at at, before the missing file
		b[15].Path += ".missing"
		if _, i, err := buildTargetWorkers(t, tg, size+1, nil, b, 4); i != at || !errors.Is(err, ErrShortSrc) {
			t.Errorf("%s: failure at %d: %v, want %d and ErrShortSrc", tg.name, i, err, at)
		}
	}
	out := filepath.Join(t.TempDir(), "img")
	im, err := Create(out, size, &Options{Mode: ModeCopy})
	if err != nil {
		t.Fatal(err)
	}
	defer im.Abort()
	if i, err := im.copyFiles(batch, 4); err != nil {
		t.Fatal(i, err)
	}
	if err := im.Commit(); err != nil {
		t.Fatal(err)
	}
	if a := allocated(t, out); a > 4<<20 {
		t.Errorf("the image takes %d KiB on disk, want at most 4 MiB: the sparse file's holes were written", a>>10)
	}
}
