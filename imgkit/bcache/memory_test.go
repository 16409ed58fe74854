package bcache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A testTarget makes images of one kind: a file in one mode (Create), owned
// memory (CreateMemory) or memory committed to an io.WriterAt
// (CreateWriterAt). The tests that compare the kinds run over all of them.
type testTarget struct {
	name string
	mode Mode // what Image.Mode reports
	open func(t *testing.T, size int64, opts *Options) (*testImage, error)
}

// A testImage is an Image with a way to get at its bytes after Commit,
// wherever its target put them.
type testImage struct {
	*Image
	w *recWriter // CreateWriterAt: the writer; nil otherwise
	// result returns the image's bytes after a successful Commit.
	result func(t *testing.T) []byte
}

// Commit commits the image, after checking, for an io.WriterAt target still
// open, that nothing was written to the writer before.
func (ti *testImage) Commit() error {
	if ti.w != nil && ti.state == stateOpen && !ti.w.untouched() {
		return fmt.Errorf("the io.WriterAt was written before Commit: %d writes", len(ti.w.writes))
	}
	return ti.Image.Commit()
}

// fileTarget makes image files in mode m, each in a new temporary directory.
func fileTarget(m Mode) testTarget {
	return testTarget{name: m.String(), mode: m, open: func(t *testing.T, size int64, opts *Options) (*testImage, error) {
		var o Options
		if opts != nil {
			o = *opts
		}
		o.Mode = m
		im, err := Create(filepath.Join(t.TempDir(), "img"), size, &o)
		if err != nil {
			return nil, err
		}
		return &testImage{Image: im, result: func(t *testing.T) []byte {
			t.Helper()
			got, err := os.ReadFile(im.Name())
			if err != nil {
				t.Fatal(err)
			}
			return got
		}}, nil
	}}
}

var memoryTarget = testTarget{name: "memory", mode: ModeMemory, open: func(t *testing.T, size int64, opts *Options) (*testImage, error) {
	im, err := CreateMemory(size, opts)
	if err != nil {
		return nil, err
	}
	return &testImage{Image: im, result: func(t *testing.T) []byte {
		t.Helper()
		got := im.Bytes()
		if got == nil || int64(len(got)) != size {
			t.Fatalf("memory: Bytes after Commit holds %d bytes (nil %v), want %d", len(got), got == nil, size)
		}
		return got
	}}, nil
}}

// staleTail is how many bytes a writerAtTarget's writer holds past the
// image: Commit must not touch them.
const staleTail = 777

var writerAtTarget = testTarget{name: "writerat", mode: ModeMemory, open: func(t *testing.T, size int64, opts *Options) (*testImage, error) {
	w := &recWriter{failAt: -1}
	im, err := CreateWriterAt(w, size, opts)
	if err != nil {
		return nil, err
	}
	w.fill(size + staleTail) // once the size is known to be sane
	return &testImage{Image: im, w: w, result: func(t *testing.T) []byte {
		t.Helper()
		if b := im.Bytes(); b != nil {
			t.Errorf("writerat: Bytes after Commit holds %d bytes, want nil", len(b))
		}
		w.checkCovered(t, size)
		return w.buf[:size]
	}}, nil
}}

// targets lists every kind of image: the file modes of this system, memory,
// memory committed to an io.WriterAt, and images built in place in a
// section of the file modes' and memory's (section_test.go).
var targets = append(append(fileTargets(), memoryTarget, writerAtTarget), sectionTargets()...)

func fileTargets() []testTarget {
	var ts []testTarget
	for _, m := range modes {
		ts = append(ts, fileTarget(m))
	}
	return ts
}

// mustOpen opens an image of tg that the test's cleanup aborts.
func mustOpen(t *testing.T, tg testTarget, size int64, opts *Options) *testImage {
	t.Helper()
	im, err := tg.open(t, size, opts)
	if err != nil {
		t.Fatalf("%s: %v", tg.name, err)
	}
	// The cleanup lets go of the image once aborted: the testing package
	// keeps a finished subtest's cleanups reachable until its parent
	// ends, and with them every image they name, 2 MiB and more for each
	// of TestPropertyModesAgree's 200 seeds.
	t.Cleanup(func() {
		im.Abort()
		*im = testImage{}
	})
	return im
}

// A recWriter is an io.WriterAt over a byte slice that starts out full of
// stale bytes and records every write. It can fail the write that covers
// byte failAt: with err, having written the bytes before it, or, when err is
// nil and short is set, with a short count and no error.
type recWriter struct {
	buf    []byte
	stale  []byte     // buf as it was made
	writes [][2]int64 // offset and length of each write
	failAt int64
	err    error
	short  bool
}

func newRecWriter(n int64) *recWriter {
	w := &recWriter{failAt: -1}
	w.fill(n)
	return w
}

// fill gives w n stale bytes.
func (w *recWriter) fill(n int64) {
	w.buf = make([]byte, n)
	for i := range w.buf {
		w.buf[i] = 0x80 | byte(i*7)
	}
	w.stale = bytes.Clone(w.buf)
}

func (w *recWriter) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(w.buf)) || int64(len(p)) > int64(len(w.buf))-off {
		return 0, fmt.Errorf("recWriter: write [%#x, +%#x) outside %#x bytes", off, len(p), len(w.buf))
	}
	n, err := len(p), error(nil)
	if (w.err != nil || w.short) && off <= w.failAt && w.failAt < off+int64(len(p)) {
		n, err = int(w.failAt-off), w.err
	}
	copy(w.buf[off:], p[:n])
	w.writes = append(w.writes, [2]int64{off, int64(n)})
	return n, err
}

// untouched reports whether nothing was written to w.
func (w *recWriter) untouched() bool {
	return len(w.writes) == 0 && bytes.Equal(w.buf, w.stale)
}

// checkCovered checks that the writes covered [0, size) once, in order, in
// pieces of bulkSize (the last one shorter), and left the tail alone.
func (w *recWriter) checkCovered(t *testing.T, size int64) {
	t.Helper()
	var next int64
	for i, wr := range w.writes {
		if wr[0] != next || wr[1] <= 0 || wr[1] > bulkSize || wr[1] < bulkSize && i != len(w.writes)-1 {
			t.Fatalf("writerat: write %d is [%#x, +%#x) after %#x bytes (writes %v)", i, wr[0], wr[1], next, w.writes)
		}
		next += wr[1]
	}
	if next != size {
		t.Fatalf("writerat: the writes cover %#x bytes of %#x", next, size)
	}
	if !bytes.Equal(w.buf[size:], w.stale[size:]) {
		t.Fatal("writerat: Commit wrote past the end of the image")
	}
}

// TestMemoryBasic checks the life of the memory targets: zero-copy buffers
// as in mmap mode, fresh blocks zeroed over written bytes, Mode and Name,
// Bytes only after Commit, Abort after Commit a no-op.
func TestMemoryBasic(t *testing.T) {
	t.Parallel()
	for _, tg := range []testTarget{memoryTarget, writerAtTarget} {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			const size = 1<<20 + 1000
			im := mustOpen(t, tg, size, nil)
			if im.Mode() != ModeMemory || im.Name() != "" || im.Size() != size {
				t.Errorf("Mode %v, Name %q, Size %d; want memory, \"\", %d", im.Mode(), im.Name(), im.Size(), size)
			}
			want := make([]byte, size)
			b, err := im.Getblk(4096, 1024)
			if err != nil {
				t.Fatal(err)
			}
			copy(b.Data(), "zero-copy")
			im.Brelse(b) // the bytes stay, as in mmap mode
			copy(want[4096:], "zero-copy")
			if _, err := im.WriteAt([]byte("written"), 8192); err != nil {
				t.Fatal(err)
			}
			b, err = im.Getblk(8192, 512) // over written bytes: zeroed
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Data(), make([]byte, 512)) {
				t.Error("Getblk over written bytes is not zeroed")
			}
			if err := b.Grow(2048); err != nil {
				t.Fatal(err)
			}
			copy(b.Data()[2000:], "grown")
			copy(want[8192+2000:], "grown")
			if err := im.Bwrite(b); err != nil {
				t.Fatal(err)
			}
			b, err = im.Bread(4096, 16)
			if err != nil || string(b.Data()[:9]) != "zero-copy" {
				t.Fatalf("Bread: %v %q", err, b.Data())
			}
			im.Brelse(b)
			if err := im.CopyFrom(size-3, strings.NewReader("end"), 3); err != nil {
				t.Fatal(err)
			}
			copy(want[size-3:], "end")
			if im.Bytes() != nil {
				t.Error("Bytes before Commit is not nil")
			}
			if err := im.Commit(); err != nil {
				t.Fatal(err)
			}
			if i := firstDiff(im.result(t), want); i >= 0 {
				t.Errorf("image differs from the model at byte %#x", i)
			}
			if err := im.Abort(); err != nil {
				t.Errorf("Abort after Commit: %v", err)
			}
			if tg.name == "memory" && len(im.Bytes()) != size {
				t.Error("Abort after Commit dropped the bytes")
			}
			if _, err := im.Getblk(0, 512); !errors.Is(err, ErrClosed) {
				t.Errorf("Getblk after Commit: %v", err)
			}
			if err := im.Commit(); !errors.Is(err, ErrClosed) {
				t.Errorf("second Commit: %v", err)
			}
		})
	}
	t.Run("file", func(t *testing.T) {
		t.Parallel()
		for _, tg := range fileTargets() {
			im := mustOpen(t, tg, 4096, nil)
			if err := im.Commit(); err != nil {
				t.Fatal(err)
			}
			if b := im.Bytes(); b != nil {
				t.Errorf("%s: Bytes of an image file is not nil", tg.name)
			}
		}
	})
}

// TestMemoryIgnoresOptions checks that the file-only options (Mode, Sync,
// Perm, Bulk) and FIXTUREGEN_CACHE change nothing for the memory targets,
// even values that Create refuses.
func TestMemoryIgnoresOptions(t *testing.T) {
	// not parallel: t.Setenv (EnvMode).
	t.Setenv(EnvMode, "fast") // Create fails on it; the memory targets never read it
	src := filepath.Join(t.TempDir(), "src")
	if err := os.WriteFile(src, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tg := range []testTarget{memoryTarget, writerAtTarget} {
		for _, o := range []*Options{
			nil,
			{Mode: ModeMmap, Sync: true, Perm: 0o600, Bulk: BulkMapSource},
			{Mode: ModeCopy, Bulk: BulkCopyFileRange},
			{Mode: Mode(99), Bulk: Bulk(99)},
		} {
			im := mustOpen(t, tg, 8192, o)
			if im.Mode() != ModeMemory {
				t.Errorf("%s %+v: Mode %v", tg.name, o, im.Mode())
			}
			f, err := os.Open(src)
			if err != nil {
				t.Fatal(err)
			}
			f.Seek(2, io.SeekStart)
			err = im.CopyFrom(100, f, 5)
			pos, _ := f.Seek(0, io.SeekCurrent)
			f.Close()
			if err != nil || pos != 7 {
				t.Fatalf("%s %+v: CopyFrom(file): %v, source at %d, want 7", tg.name, o, err, pos)
			}
			if err := im.Commit(); err != nil {
				t.Fatal(err)
			}
			if got := im.result(t); string(got[100:105]) != "23456" {
				t.Errorf("%s %+v: CopyFrom wrote %q", tg.name, o, got[100:105])
			}
		}
	}
	if _, err := Create(filepath.Join(t.TempDir(), "img"), 8192, nil); !errors.Is(err, ErrMode) {
		t.Errorf("Create with %s=fast: %v, want ErrMode", EnvMode, err)
	}
	if _, err := Create(filepath.Join(t.TempDir(), "img"), 8192, &Options{Mode: ModeMemory}); !errors.Is(err, ErrMode) {
		t.Errorf("Create with ModeMemory: %v, want ErrMode", err)
	}
}

// TestMemorySizes checks that sizes no byte slice can have are errors, not
// panics, and that an empty image works.
func TestMemorySizes(t *testing.T) {
	t.Parallel()
	for _, tg := range []testTarget{memoryTarget, writerAtTarget} {
		if _, err := tg.open(t, -1, nil); !errors.Is(err, ErrRange) {
			t.Errorf("%s: size -1: %v, want ErrRange", tg.name, err)
		}
		// Over an int on 32-bit systems, over the runtime's largest
		// allocation (make panics) on 64-bit ones.
		if _, err := tg.open(t, math.MaxInt64, nil); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: size MaxInt64: %v, want ErrTooLarge", tg.name, err)
		}
		im := mustOpen(t, tg, 0, nil)
		if _, err := im.Getblk(0, 512); !errors.Is(err, ErrRange) {
			t.Errorf("%s: Getblk in an empty image: %v, want ErrRange", tg.name, err)
		}
		if _, err := im.WriteAt(nil, 0); err != nil {
			t.Errorf("%s: empty WriteAt: %v", tg.name, err)
		}
		if i, err := im.CopyFiles([]FileCopy{{Off: 0, N: 0, Path: "unused"}}); err != nil {
			t.Errorf("%s: empty CopyFiles: file %d: %v", tg.name, i, err)
		}
		if err := im.Commit(); err != nil {
			t.Fatalf("%s: %v", tg.name, err)
		}
		if got := im.result(t); len(got) != 0 {
			t.Errorf("%s: empty image holds %d bytes", tg.name, len(got))
		}
	}
	if b := mustOpen(t, memoryTarget, 0, nil); b.Commit() != nil || b.Bytes() == nil {
		t.Error("Bytes of a committed empty memory image is nil, which means not committed")
	}
	if _, err := CreateWriterAt(nil, 4096, nil); err == nil {
		t.Error("CreateWriterAt with a nil writer succeeded")
	}
}

// TestWriterAtOverwritesStale checks that Commit writes every byte of the
// image to the writer, the zeros never written included, so that none of
// the writer's old bytes survive, and nothing past the image.
func TestWriterAtOverwritesStale(t *testing.T) {
	t.Parallel()
	const size = 3<<20 + 1234
	im := mustOpen(t, writerAtTarget, size, nil)
	if _, err := im.WriteAt([]byte("only this"), 2<<20); err != nil {
		t.Fatal(err)
	}
	b, err := im.Getblk(512, 512) // fresh, released unchanged: zeros
	if err != nil {
		t.Fatal(err)
	}
	if err := im.Bwrite(b); err != nil {
		t.Fatal(err)
	}
	if !im.w.untouched() {
		t.Fatal("the writer was written before Commit")
	}
	if err := im.Commit(); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, size)
	copy(want[2<<20:], "only this")
	if i := firstDiff(im.result(t), want); i >= 0 {
		t.Fatalf("the writer differs from the image at byte %#x: %#x", i, im.w.buf[i])
	}
	if len(im.w.writes) != 4 {
		t.Errorf("%d writes, want 4 of at most 1 MiB", len(im.w.writes))
	}
}

// TestWriterAtError checks that a failing writer fails Commit with its error
// and the offset of the first byte not written, for an error and for a short
// write without one, and that the image is then discarded.
func TestWriterAtError(t *testing.T) {
	t.Parallel()
	errFull := errors.New("writer full")
	for _, c := range []struct {
		name  string
		err   error
		short bool
		want  error
	}{
		{"error", errFull, false, errFull},
		{"short", nil, true, io.ErrShortWrite},
	} {
		const size, failAt = 3 << 20, 1<<20 + 1<<19 + 100
		w := newRecWriter(size)
		w.failAt, w.err, w.short = failAt, c.err, c.short
		im, err := CreateWriterAt(w, size, nil)
		if err != nil {
			t.Fatal(err)
		}
		im.WriteAt([]byte("data"), failAt-2)
		err = im.Commit()
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), fmt.Sprintf("offset %#x", failAt)) {
			t.Errorf("%s: Commit = %v, want %v at offset %#x", c.name, err, c.want, failAt)
		}
		if len(w.writes) != 2 || w.buf[failAt-1] != 'a' || w.buf[failAt] != w.stale[failAt] {
			t.Errorf("%s: the writer got %v", c.name, w.writes)
		}
		if im.Bytes() != nil {
			t.Errorf("%s: Bytes after a failed Commit is not nil", c.name)
		}
		if err := im.Commit(); !errors.Is(err, ErrClosed) {
			t.Errorf("%s: Commit after a failed Commit = %v, want ErrClosed", c.name, err)
		}
		if err := im.Abort(); err != nil {
			t.Errorf("%s: Abort after a failed Commit: %v", c.name, err)
		}
		if len(w.writes) != 2 {
			t.Errorf("%s: the writer was written after the failure: %v", c.name, w.writes)
		}
	}
}

// TestWriterAtAbort checks that an aborted image never reaches its writer,
// whatever was done to it, and that Commit after Abort changes nothing.
func TestWriterAtAbort(t *testing.T) {
	t.Parallel()
	batch, want := filesFixture(t, 8)
	im := mustOpen(t, writerAtTarget, int64(len(want)), nil)
	if i, err := im.CopyFiles(withPad(batch)); err != nil {
		t.Fatalf("file %d: %v", i, err)
	}
	if _, err := im.WriteAt([]byte("meta"), 0); err != nil {
		t.Fatal(err)
	}
	b, err := im.Getblk(512, 1024)
	if err != nil {
		t.Fatal(err)
	}
	copy(b.Data(), "held")
	if err := im.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := im.Commit(); !errors.Is(err, ErrClosed) {
		t.Errorf("Commit after Abort = %v, want ErrClosed", err)
	}
	if err := im.Bwrite(b); !errors.Is(err, ErrNotHeld) {
		t.Errorf("Bwrite after Abort = %v, want ErrNotHeld", err)
	}
	if !im.w.untouched() {
		t.Errorf("Abort wrote to the writer: %v", im.w.writes)
	}
	if im.Bytes() != nil {
		t.Error("Bytes after Abort is not nil")
	}
}
