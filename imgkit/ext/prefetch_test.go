package ext

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// prefetchTree writes n files of size bytes each (a few of them bigger
// than a read chunk) to a new folder and returns its walked tree.
func prefetchTree(t *testing.T, n int) (string, *fstree.Tree) {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		size := 3000 + i
		if i%10 == 9 {
			size = 8*readChunk + 4096*i
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", i)), bytes.Repeat([]byte{byte(i + 1)}, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := fstree.Dir(dir).Tree(nil)
	if err != nil {
		t.Fatal(err)
	}
	return dir, tree
}

// settled waits for the goroutines started since base to end, reporting
// whether they did.
func settled(base int) bool {
	for range 100 {
		if runtime.NumGoroutine() <= base {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// TestWriteSourceChanged checks the errors of files that changed after
// the walk, read ahead of the layout (the prefetcher) as the layout would
// have read them: one removed is named with its error, one cut short is
// "file shorter than its size", and a layout that fails first (out of
// space) stops the reads. No goroutine is left running, and no file
// open (those opened ahead of the reads are closed too).
func TestWriteSourceChanged(t *testing.T) {
	// not parallel: it counts the goroutines running and the files open
	base, fds := runtime.NumGoroutine(), openFiles()
	dir, tree := prefetchTree(t, 60)
	if err := os.Remove(filepath.Join(dir, "f041")); err != nil {
		t.Fatal(err)
	}
	_, err := Build(tree, &Options{Type: "ext4", Size: 64 << 20})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "f041") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a file removed after the walk: %v, want one line naming f041 wrapping fs.ErrNotExist", err)
	}

	// a host file cut short reads as holes past its end (SEEK_DATA), as
	// mke2fs reads it; an fs.FS file has no holes
	fsys := fstest.MapFS{}
	for i := range 60 {
		fsys[fmt.Sprintf("f%03d", i)] = &fstest.MapFile{Data: bytes.Repeat([]byte{byte(i + 1)}, 1000+readChunk*(i%3))}
	}
	if tree, err = fstree.FS(fsys).Tree(nil); err != nil {
		t.Fatal(err)
	}
	fsys["f040"].Data = fsys["f040"].Data[:readChunk/2]
	_, err = Build(tree, &Options{Type: "ext2", Size: 64 << 20})
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "f040") || !strings.Contains(err.Error(), "shorter than its size") {
		t.Errorf("a file cut short after the walk: %v, want f040 shorter than its size", err)
	}

	_, tree = prefetchTree(t, 60)
	if _, err := Build(tree, &Options{Type: "ext4", Size: 8 << 20}); !errors.Is(err, ErrNoSpace) {
		t.Errorf("a tree too large: %v, want ErrNoSpace", err)
	}
	if !settled(base) {
		t.Errorf("%d goroutines running, %d before", runtime.NumGoroutine(), base)
	}
	if n := openFiles(); n != fds {
		t.Errorf("%d files open, %d before", n, fds)
	}
}

// openFiles returns how many descriptors the process has open, -1
// where /proc/self/fd does not list them.
func openFiles() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// TestPrefetchOrder checks that a layout asking for another file than
// the one read next gets an error, not another file's bytes, and that
// stop ends the reads.
func TestPrefetchOrder(t *testing.T) {
	t.Parallel()
	_, tree := prefetchTree(t, 12)
	// a data writer a prefetcher: one stopped keeps the chunks it took
	writer := func() *dataWriter {
		im, err := bcache.CreateMemory(1<<20, nil)
		if err != nil {
			t.Fatal(err)
		}
		dw := newDataWriter(im, make([]byte, dataBuffers*readChunk))
		t.Cleanup(func() { dw.close() })
		return dw
	}
	p := newPrefetcher(tree.Root, 1024, writer().free)
	if _, _, err := p.open(tree.Root.Children[1]); !errors.Is(err, errPrefetchOrder) {
		t.Errorf("the second file asked for first: %v, want errPrefetchOrder", err)
	}
	p.stop()

	dw := writer()
	p = newPrefetcher(tree.Root, 1024, dw.free)
	defer p.stop()
	first := tree.Root.Children[0]
	regs, _, err := p.open(first)
	if err != nil || len(regs) != 1 || regs[0] != [2]int64{0, first.Size} {
		t.Fatalf("the first file's regions %v (%v), want [0 %d]", regs, err, first.Size)
	}
	buf, k, err := p.piece(dw, first, 0, int(first.Size))
	if k != len(buf) || len(buf) != int(first.Size) || err != nil || buf[0] != 1 || buf[k-1] != 1 {
		t.Fatalf("the first file read %d of %d bytes (%v), want %d bytes of 1", k, len(buf), err, first.Size)
	}
	if _, _, err := p.piece(dw, first, 0, int(first.Size)); !errors.Is(err, errPrefetchOrder) {
		t.Errorf("a piece past the first file's last: %v, want errPrefetchOrder", err)
	}
}

// TestZeroSector checks the sectors probe looks for: 512 bytes of zeros
// from a multiple of 512, or the last part of one.
func TestZeroSector(t *testing.T) {
	t.Parallel()
	data := func(n int) []byte { return bytes.Repeat([]byte{1}, n) }
	for _, c := range []struct {
		b    []byte
		want bool
	}{
		{data(1), false},
		{data(5000), false},
		{make([]byte, 3), true},
		{append(data(512), make([]byte, 10)...), true},              // a last part sector
		{append(data(100), make([]byte, 900)...), true},             // [512, 1000)
		{append(append(data(10), make([]byte, 1000)...), 1), false}, // no whole sector of zeros
		{append(append(data(1), make([]byte, 1023)...), 1), true},   // [512, 1024)
		{append(make([]byte, 8), data(504)...), false},              // zeros first, then data
	} {
		if got := zeroSector(c.b); got != c.want {
			t.Errorf("zeroSector of %d bytes: %v, want %v", len(c.b), got, c.want)
		}
	}
}

// TestWriteSmallSparseFiles compares ext4 images of files under a
// readChunk with holes between runs of data with the reference: the
// prefetcher reads such files whole before asking for their regions,
// and must find the holes all the same, or the I/O model's
// s_kbytes_written differs from mke2fs's (it does when every such file
// is taken as dense).
func TestWriteSmallSparseFiles(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	dir := filepath.Join(t.TempDir(), "src")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 12 {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("f%02d", i)))
		if err != nil {
			t.Fatal(err)
		}
		size := 1 + r.Int64N(readChunk)
		for at := int64(0); at < size; at += 4096 * (1 + r.Int64N(8)) {
			if r.IntN(2) == 0 {
				b := make([]byte, min(1+r.Int64N(40000), size-at))
				for j := range b {
					b[j] = byte(1 + r.IntN(255))
				}
				if _, err := f.WriteAt(b, at); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := errors.Join(f.Truncate(size), f.Close()); err != nil {
			t.Fatal(err)
		}
	}
	for _, bs := range []int{1024, 4096} {
		t.Run(fmt.Sprint(bs), func(t *testing.T) {
			t.Parallel()
			sameAsReference(t, dir, "16M", Options{Type: "ext4", BlockSize: bs, Size: 16 << 20}, "-t", "ext4", "-b", fmt.Sprint(bs))
		})
	}
}
