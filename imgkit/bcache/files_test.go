package bcache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// filesFixture writes n source files of varied sizes (some empty, some over
// the 1 MiB copy buffer) and returns a batch that lays them out back to back
// from offset 4096 of an image, with the image bytes the batch must give.
func filesFixture(t *testing.T, n int) ([]FileCopy, []byte) {
	t.Helper()
	dir := t.TempDir()
	var batch []FileCopy
	off := int64(4096)
	for i := range n {
		size := int64(i*i*37) % 9000
		if i == 3 {
			size = bulkSize + 12345
		}
		p := make([]byte, size)
		for j := range p {
			p[j] = byte(i*31 + j*7)
		}
		path := filepath.Join(dir, fmt.Sprintf("f%03d", i))
		if err := os.WriteFile(path, append(p, "trailing bytes not copied"...), 0o644); err != nil {
			t.Fatal(err)
		}
		batch = append(batch, FileCopy{Off: off, N: size, Path: path})
		off += size + int64(i%3)*512
	}
	want := make([]byte, off+4096)
	for _, fc := range batch {
		data, err := os.ReadFile(fc.Path)
		if err != nil {
			t.Fatal(err)
		}
		copy(want[fc.Off:], data[:fc.N])
	}
	return batch, want
}

// withPad returns a copy of batch whose files each pad up to the next one,
// so that CopyFiles may copy runs of them with one write.
func withPad(batch []FileCopy) []FileCopy {
	b := append([]FileCopy(nil), batch...)
	for i := 0; i+1 < len(b); i++ {
		b[i].Pad = b[i+1].Off - b[i].Off - b[i].N
	}
	return b
}

func buildFiles(t *testing.T, path string, size int64, opts *Options, batch []FileCopy) (int, error) {
	t.Helper()
	im, err := Create(path, size, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer im.Abort()
	i, err := im.CopyFiles(batch)
	if err != nil {
		return i, err
	}
	if err := im.Commit(); err != nil {
		t.Fatal(err)
	}
	return -1, nil
}

// TestCopyFiles checks that a batch gives the same bytes as the model in
// both modes, through the concurrent path (host paths), the sequential one
// (Open functions, or a Bulk other than pwrite), and with one worker.
func TestCopyFiles(t *testing.T) {
	batch, want := filesFixture(t, 60)
	viaOpen := make([]FileCopy, len(batch))
	for i, fc := range batch {
		path := fc.Path
		viaOpen[i] = FileCopy{Off: fc.Off, N: fc.N, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
	}
	out := filepath.Join(t.TempDir(), "img")
	for _, m := range modes {
		for _, c := range []struct {
			name  string
			bulk  Bulk
			batch []FileCopy
		}{
			{"paths", BulkAuto, batch},
			{"paths-pad", BulkAuto, withPad(batch)},
			{"paths-pwrite", BulkPwrite, batch},
			{"paths-read", BulkRead, batch},
			{"open", BulkAuto, viaOpen},
		} {
			for _, w := range []int{1, copyWorkers} {
				old := copyWorkers
				copyWorkers = w
				i, err := buildFiles(t, out, int64(len(want)), &Options{Mode: m, Bulk: c.bulk}, c.batch)
				copyWorkers = old
				if err != nil {
					t.Fatalf("%v/%s/%d workers: file %d: %v", m, c.name, w, i, err)
				}
				got, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if d := firstDiff(got, want); d >= 0 {
					t.Errorf("%v/%s/%d workers: differs from the model at byte %#x", m, c.name, w, d)
				}
			}
		}
	}
}

// TestCopyFilesErrors checks that the failure reported is the one of the
// lowest index, whatever the scheduling, and that errors are those of
// CopyFrom: a missing file, a short file (ErrShortSrc), a range outside the
// image (ErrRange, before anything is copied).
func TestCopyFilesErrors(t *testing.T) {
	batch0, want := filesFixture(t, 40)
	size := int64(len(want))
	out := filepath.Join(t.TempDir(), "img")
	for _, batch := range [][]FileCopy{batch0, withPad(batch0)} {
		testCopyFilesErrors(t, batch, size, out)
	}
}

func testCopyFilesErrors(t *testing.T, batch []FileCopy, size int64, out string) {
	for _, m := range modes {
		for run := range 20 {
			b := append([]FileCopy(nil), batch...)
			b[17].Path += ".missing"
			b[33].Path = batch[1].Path // shorter than b[33].N
			i, err := buildFiles(t, out, size, &Options{Mode: m}, b)
			if i != 17 || !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%v run %d: failure at %d: %v, want 17 and a missing file", m, run, i, err)
			}
			b[17] = batch[17]
			if i, err := buildFiles(t, out, size, &Options{Mode: m}, b); i != 33 || !errors.Is(err, ErrShortSrc) {
				t.Fatalf("%v run %d: failure at %d: %v, want 33 and ErrShortSrc", m, run, i, err)
			}
		}
		b := append([]FileCopy(nil), batch...)
		b[25].Off = size - 1
		if i, err := buildFiles(t, out, size, &Options{Mode: m}, b); i != 25 || !errors.Is(err, ErrRange) {
			t.Errorf("%v: failure at %d: %v, want 25 and ErrRange", m, i, err)
		}
		b[20].Path += ".missing"
		if i, err := buildFiles(t, out, size, &Options{Mode: m}, b); i != 20 || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%v: failure at %d: %v, want 20 and a missing file", m, i, err)
		}
	}
}

// TestCopyFilesHeldBuffer checks that a batch with a buffer held is copied
// in a way the buffer sees, in both modes.
func TestCopyFilesHeldBuffer(t *testing.T) {
	batch, want := filesFixture(t, 10)
	for _, m := range modes {
		im := create(t, filepath.Join(t.TempDir(), "img"), int64(len(want)), m)
		b, err := im.Bread(batch[3].Off, 8192)
		if err != nil {
			t.Fatal(err)
		}
		if i, err := im.CopyFiles(batch); err != nil {
			t.Fatalf("%v: file %d: %v", m, i, err)
		}
		if !bytes.Equal(b.Data(), want[batch[3].Off:][:8192]) {
			t.Errorf("%v: the held buffer does not see the batch", m)
		}
		im.Brelse(b)
		if err := im.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCopyFilesSrcOff checks that pieces of files taken from SrcOff on land
// where they should through every source kind: host paths (concurrent and
// one by one), Open returning a seeker, and Open returning a plain reader;
// and that a SrcOff past the end of the source is ErrShortSrc.
func TestCopyFilesSrcOff(t *testing.T) {
	dir := t.TempDir()
	src := make([]byte, bulkSize+5000)
	for i := range src {
		src[i] = byte(i*13 + i>>9)
	}
	path := filepath.Join(dir, "src")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	// The file in three pieces, written to the image in reverse order.
	pieces := [][2]int64{{0, 4096}, {4096, bulkSize}, {4096 + bulkSize, 904}}
	size := int64(len(src)) + 3*8192
	want := make([]byte, size)
	var batch []FileCopy
	off := int64(8192)
	for k := len(pieces) - 1; k >= 0; k-- {
		p := pieces[k]
		copy(want[off:], src[p[0]:p[0]+p[1]])
		batch = append(batch, FileCopy{Off: off, N: p[1], SrcOff: p[0], Path: path})
		off += p[1] + 512
	}
	opens := map[string]func() (io.ReadCloser, error){
		"path":   nil,
		"seeker": func() (io.ReadCloser, error) { return os.Open(path) },
		"reader": func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(src)), nil },
	}
	out := filepath.Join(t.TempDir(), "img")
	for name, open := range opens {
		for _, workers := range []int{1, 4} {
			for _, m := range modes {
				b := append([]FileCopy(nil), batch...)
				if open != nil {
					for i := range b {
						b[i].Path, b[i].Open = "", open
					}
				}
				old := copyWorkers
				copyWorkers = workers
				i, err := buildFiles(t, out, size, &Options{Mode: m}, b)
				copyWorkers = old
				if err != nil {
					t.Fatalf("%s/%d/%v: CopyFiles = %d, %v", name, workers, m, i, err)
				}
				got, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s/%d/%v: image differs from the model", name, workers, m)
				}
			}
		}
		b := []FileCopy{{Off: 0, N: 10, SrcOff: int64(len(src)) + 1, Path: path}}
		if open != nil {
			b[0].Path, b[0].Open = "", open
		}
		if _, err := buildFiles(t, out, size, nil, b); !errors.Is(err, ErrShortSrc) {
			t.Errorf("%s: SrcOff past the end: %v, want ErrShortSrc", name, err)
		}
	}
}
