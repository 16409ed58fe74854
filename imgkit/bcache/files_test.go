package bcache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// buildTarget copies batch into a new image of tg and commits it. It returns
// the image's bytes, or the index and error of the failed file.
func buildTarget(t *testing.T, tg testTarget, size int64, opts *Options, batch []FileCopy) ([]byte, int, error) {
	t.Helper()
	return buildTargetWorkers(t, tg, size, opts, batch, copyWorkers)
}

// buildTargetWorkers is buildTarget copying with at most workers
// goroutines, so that tests need not change copyWorkers.
func buildTargetWorkers(t *testing.T, tg testTarget, size int64, opts *Options, batch []FileCopy, workers int) ([]byte, int, error) {
	t.Helper()
	im, err := tg.open(t, size, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer im.Abort()
	if i, err := im.copyFiles(batch, workers); err != nil {
		return nil, i, err
	}
	if err := im.Commit(); err != nil {
		t.Fatal(err)
	}
	return im.result(t), -1, nil
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
// both modes and in memory, through the concurrent path (host paths), the
// sequential one (Open functions, or a Bulk other than pwrite), and with one
// worker.
func TestCopyFiles(t *testing.T) {
	t.Parallel()
	batch, want := filesFixture(t, 60)
	viaOpen := make([]FileCopy, len(batch))
	for i, fc := range batch {
		path := fc.Path
		viaOpen[i] = FileCopy{Off: fc.Off, N: fc.N, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
	}
	for _, tg := range targets {
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
				got, i, err := buildTargetWorkers(t, tg, int64(len(want)), &Options{Bulk: c.bulk}, c.batch, w)
				if err != nil {
					t.Fatalf("%s/%s/%d workers: file %d: %v", tg.name, c.name, w, i, err)
				}
				if d := firstDiff(got, want); d >= 0 {
					t.Errorf("%s/%s/%d workers: differs from the model at byte %#x", tg.name, c.name, w, d)
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
	t.Parallel()
	batch0, want := filesFixture(t, 40)
	size := int64(len(want))
	for _, batch := range [][]FileCopy{batch0, withPad(batch0)} {
		testCopyFilesErrors(t, batch, size)
	}
}

func testCopyFilesErrors(t *testing.T, batch []FileCopy, size int64) {
	for _, tg := range targets {
		for run := range 20 {
			b := append([]FileCopy(nil), batch...)
			b[17].Path += ".missing"
			b[33].Path = batch[1].Path // shorter than b[33].N
			_, i, err := buildTarget(t, tg, size, nil, b)
			if i != 17 || !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%s run %d: failure at %d: %v, want 17 and a missing file", tg.name, run, i, err)
			}
			b[17] = batch[17]
			if _, i, err := buildTarget(t, tg, size, nil, b); i != 33 || !errors.Is(err, ErrShortSrc) {
				t.Fatalf("%s run %d: failure at %d: %v, want 33 and ErrShortSrc", tg.name, run, i, err)
			}
		}
		b := append([]FileCopy(nil), batch...)
		b[25].Off = size - 1
		if _, i, err := buildTarget(t, tg, size, nil, b); i != 25 || !errors.Is(err, ErrRange) {
			t.Errorf("%s: failure at %d: %v, want 25 and ErrRange", tg.name, i, err)
		}
		b[20].Path += ".missing"
		if _, i, err := buildTarget(t, tg, size, nil, b); i != 20 || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: failure at %d: %v, want 20 and a missing file", tg.name, i, err)
		}
	}
}

// TestCopyFilesHeldBuffer checks that a batch with a buffer held is copied
// in a way the buffer sees, in both modes and in memory.
func TestCopyFilesHeldBuffer(t *testing.T) {
	t.Parallel()
	batch, want := filesFixture(t, 10)
	for _, tg := range targets {
		im := mustOpen(t, tg, int64(len(want)), nil)
		b, err := im.Bread(batch[3].Off, 8192)
		if err != nil {
			t.Fatal(err)
		}
		if i, err := im.CopyFiles(batch); err != nil {
			t.Fatalf("%s: file %d: %v", tg.name, i, err)
		}
		if !bytes.Equal(b.Data(), want[batch[3].Off:][:8192]) {
			t.Errorf("%s: the held buffer does not see the batch", tg.name)
		}
		im.Brelse(b)
		if err := im.Commit(); err != nil {
			t.Fatal(err)
		}
		if d := firstDiff(im.result(t), want); d >= 0 {
			t.Errorf("%s: differs from the model at byte %#x", tg.name, d)
		}
	}
}

// TestCopyFilesSrcOff checks that pieces of files taken from SrcOff on land
// where they should through every source kind: host paths (concurrent and
// one by one), Open returning a seeker, and Open returning a plain reader;
// and that a SrcOff past the end of the source is ErrShortSrc.
func TestCopyFilesSrcOff(t *testing.T) {
	t.Parallel()
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
	for name, open := range opens {
		for _, workers := range []int{1, 4} {
			for _, tg := range targets {
				b := append([]FileCopy(nil), batch...)
				if open != nil {
					for i := range b {
						b[i].Path, b[i].Open = "", open
					}
				}
				got, i, err := buildTargetWorkers(t, tg, size, nil, b, workers)
				if err != nil {
					t.Fatalf("%s/%d/%s: CopyFiles = %d, %v", name, workers, tg.name, i, err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s/%d/%s: image differs from the model", name, workers, tg.name)
				}
			}
		}
		b := []FileCopy{{Off: 0, N: 10, SrcOff: int64(len(src)) + 1, Path: path}}
		if open != nil {
			b[0].Path, b[0].Open = "", open
		}
		for _, tg := range targets {
			if _, _, err := buildTarget(t, tg, size, nil, b); !errors.Is(err, ErrShortSrc) {
				t.Errorf("%s/%s: SrcOff past the end: %v, want ErrShortSrc", name, tg.name, err)
			}
		}
	}
}

// TestCopyFilesPadSrcOff lays files out as the FFS writer does, each in
// pieces of whole blocks from SrcOff on, the last piece padded (Pad) to a
// fragment, some pieces right after each other and some with a gap of
// metadata between them, and checks that every target, in batch order and
// reversed, with one worker and four, gives the model's bytes: the memory
// targets the same as the file modes.
func TestCopyFilesPadSrcOff(t *testing.T) {
	t.Parallel()
	const blk, frag = 8192, 2048
	rng := rand.New(rand.NewPCG(7, 9))
	dir := t.TempDir()
	var batch []FileCopy
	var srcs [][]byte
	type span struct{ off, n int64 }
	gaps := []span{{0, 4096}}
	off := int64(4096)
	for i := range 12 {
		size := rng.Int64N(12 * frag)
		if i == 5 {
			size = bulkSize + 777
		}
		src := make([]byte, size)
		for j := range src {
			src[j] = byte(rng.UintN(255) + 1)
		}
		path := filepath.Join(dir, fmt.Sprint("f", i))
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		for srcOff := int64(0); srcOff < size; {
			n := min(size-srcOff, (1+rng.Int64N(4))*blk)
			var pad int64
			if srcOff+n == size {
				pad = (n+frag-1)/frag*frag - n
			}
			batch = append(batch, FileCopy{Off: off, N: n, SrcOff: srcOff, Pad: pad, Path: path})
			srcs = append(srcs, src[srcOff:srcOff+n])
			off += n + pad
			if rng.IntN(3) == 0 {
				g := span{off, frag * (1 + rng.Int64N(3))}
				gaps = append(gaps, g)
				off += g.n
			}
			srcOff += n
		}
	}
	gaps = append(gaps, span{off, 4096})
	size := off + 4096
	want := make([]byte, size)
	for _, g := range gaps {
		for j := range g.n {
			want[g.off+j] = byte(j*5) | 1
		}
	}
	for i, fc := range batch {
		copy(want[fc.Off:], srcs[i])
	}
	reversed := slices.Clone(batch)
	slices.Reverse(reversed)
	// The third order has every other gap in the batch as Data (an
	// indirect block's bytes, in the FFS writer), in its place by offset,
	// instead of written before.
	var withData []FileCopy
	inBatch := map[int64]bool{}
	for k, g := range gaps[1 : len(gaps)-1] {
		if k%2 == 0 {
			inBatch[g.off] = true
			withData = append(withData, FileCopy{Off: g.off, N: g.n, Data: want[g.off : g.off+g.n]})
		}
	}
	withData = append(withData, batch...)
	slices.SortFunc(withData, func(a, b FileCopy) int { return int(a.Off - b.Off) })
	for _, tg := range targets {
		for _, workers := range []int{1, 4} {
			for order, b := range [][]FileCopy{batch, reversed, withData} {
				im := mustOpen(t, tg, size, nil)
				for _, g := range gaps {
					if order == 2 && inBatch[g.off] {
						continue
					}
					if _, err := im.WriteAt(want[g.off:g.off+g.n], g.off); err != nil {
						t.Fatal(err)
					}
				}
				i, err := im.copyFiles(b, workers)
				if err != nil {
					t.Fatalf("%s/%d workers/order %d: file %d: %v", tg.name, workers, order, i, err)
				}
				if err := im.Commit(); err != nil {
					t.Fatal(err)
				}
				if d := firstDiff(im.result(t), want); d >= 0 {
					t.Errorf("%s/%d workers/order %d: differs from the model at byte %#x", tg.name, workers, order, d)
				}
			}
		}
	}
}

// TestCopyUnitsJoin checks that pieces of files from any offset of their
// source (SrcOff) and blocks of Data that follow each other make one unit,
// so one write, and that a Data of the wrong length is an error.
func TestCopyUnitsJoin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "src")
	src := bytes.Repeat([]byte("0123456789abcdef"), 1024)
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	ind := bytes.Repeat([]byte{0xa5}, 4096)
	batch := []FileCopy{
		{Off: 4096, N: 4096, Path: path},
		{Off: 8192, N: 4096, Data: ind},
		{Off: 12288, N: 8192, SrcOff: 4096, Path: path, Pad: 1000},
		{Off: 12288 + 8192 + 1000, N: 24, Path: path},
	}
	for _, tg := range targets {
		im := mustOpen(t, tg, 1<<16, nil)
		if u := im.copyUnits(im.inFile(batch)); len(u) != 1 || u[0] != [2]int{0, len(batch)} {
			t.Errorf("%s: units %v, want one of the whole batch", tg.name, u)
		}
		if _, err := im.copyFiles(batch, 4); err != nil {
			t.Fatalf("%s: %v", tg.name, err)
		}
		if err := im.Commit(); err != nil {
			t.Fatal(err)
		}
		want := make([]byte, 1<<16)
		copy(want[4096:], src[:4096])
		copy(want[8192:], ind)
		copy(want[12288:], src[4096:4096+8192])
		copy(want[12288+8192+1000:], src[:24])
		if d := firstDiff(im.result(t), want); d >= 0 {
			t.Errorf("%s: differs from the model at byte %#x", tg.name, d)
		}
		bad := mustOpen(t, tg, 1<<16, nil)
		for _, b := range [][]FileCopy{{{Off: 0, N: 10, Data: ind}}, {{Off: 0, N: 4, Path: path}, {Off: 4, N: 10, Data: ind}}} {
			if _, err := bad.copyFiles(b, 4); err == nil || !strings.Contains(err.Error(), "bytes of data for a copy of 10") {
				t.Errorf("%s: Data of %d bytes for 10: %v", tg.name, len(ind), err)
			}
		}
	}
}
