package bcache

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// sectionMargin is where a sectionTarget's image starts in the image it
// is in, and how many bytes follow it there: 34 sectors, GPT's first
// partition, off every page and file-system block boundary.
const sectionMargin = 34 * 512

// marginByte is what a sectionTarget's margins hold: the image built in
// the section must leave them alone.
func marginByte(off int64) byte { return byte(off/512) ^ 0x3c }

// sectionTarget makes images built in place (CreateWriterAt of a Section)
// in an image of tg, an image file of a mode or a memory image, whose
// bytes around the section hold a pattern. Its result is the section's
// bytes once that image is committed, after checking the margins.
func sectionTarget(tg testTarget) testTarget {
	return testTarget{name: "section-" + tg.name, mode: tg.mode, open: func(t *testing.T, size int64, opts *Options) (*testImage, error) {
		if size < 0 {
			return tg.open(t, size, opts) // the same error
		}
		parent := mustOpen(t, tg, size+2*sectionMargin, opts)
		margins := [][2]int64{{0, sectionMargin}, {sectionMargin + size, sectionMargin}}
		for _, m := range margins {
			p := make([]byte, m[1])
			for i := range p {
				p[i] = marginByte(m[0] + int64(i))
			}
			if _, err := parent.WriteAt(p, m[0]); err != nil {
				t.Fatal(err)
			}
		}
		if opts != nil && opts.Progress != nil {
			opts.Progress.Add(-2 * sectionMargin) // the margins are no writes of the test's
		}
		im, err := CreateWriterAt(parent.Section(sectionMargin, size), size, opts)
		if err != nil {
			return nil, err
		}
		return &testImage{Image: im, result: func(t *testing.T) []byte {
			t.Helper()
			if err := parent.Commit(); err != nil {
				t.Fatalf("%s: committing the image the section is in: %v", tg.name, err)
			}
			got := parent.result(t)
			for _, m := range margins {
				for i, c := range got[m[0] : m[0]+m[1]] {
					if off := m[0] + int64(i); c != marginByte(off) {
						t.Fatalf("%s: byte %#x, outside the section, is %#x, want %#x", tg.name, off, c, marginByte(off))
					}
				}
			}
			return got[sectionMargin : sectionMargin+size]
		}}, nil
	}}
}

// sectionTargets are images built in a section of an image of each mode
// and of a memory image.
func sectionTargets() []testTarget {
	var ts []testTarget
	for _, tg := range append(fileTargets(), memoryTarget) {
		ts = append(ts, sectionTarget(tg))
	}
	return ts
}

// TestSectionStartsZero checks that an image built in a section reads as
// zeros where it was never written, even over bytes written there before
// (they are cleared), that the ranges never touched stay unmarked holes
// (DataRun skips them), and that Off, Commit, Bytes and errors speak in
// the section's own offsets.
func TestSectionStartsZero(t *testing.T) {
	t.Parallel()
	for _, tg := range append(fileTargets(), memoryTarget) {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			const size = 1 << 20
			parent := mustOpen(t, tg, 4<<20, nil)
			if _, err := parent.WriteAt(bytes.Repeat([]byte{0xee}, 4096), sectionMargin+8192); err != nil {
				t.Fatal(err)
			}
			im, err := parent.Section(sectionMargin, size).CreateInPlace(size)
			if err != nil {
				t.Fatal(err)
			}
			if lo, hi := parent.DataRun(sectionMargin, sectionMargin+size); tg.mode != ModeCopy && (lo != sectionMargin+8192 || hi != sectionMargin+8192+4096) {
				t.Errorf("DataRun over the section = [%#x, %#x), want only the chunks written before", lo, hi)
			}
			b, err := im.Getblk(4096, 512)
			if err != nil {
				t.Fatal(err)
			}
			if b.Off() != 4096 {
				t.Errorf("Off %#x, want 0x1000", b.Off())
			}
			copy(b.Data(), "in place")
			if err := im.Commit(); !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "at offset 0x1000") {
				t.Errorf("Commit with a held buffer: %v, want ErrHeld at offset 0x1000", err)
			}
			if err := im.Bwrite(b); err != nil {
				t.Fatal(err)
			}
			if _, err := im.WriteAt([]byte("x"), size); !errors.Is(err, ErrRange) || !strings.Contains(err.Error(), "[0x100000, +0x1)") {
				t.Errorf("a write past the section's image: %v, want ErrRange in its offsets", err)
			}
			if _, err := parent.Section(sectionMargin, size).CreateInPlace(size + 1); !errors.Is(err, ErrRange) {
				t.Errorf("an image larger than its section: %v, want ErrRange", err)
			}
			if err := im.Commit(); err != nil {
				t.Fatal(err)
			}
			if im.Bytes() != nil {
				t.Error("Bytes of a section's image is not nil")
			}
			got := make([]byte, size)
			if _, err := parent.ReadAt(got, sectionMargin); err != nil {
				t.Fatal(err)
			}
			want := make([]byte, size)
			copy(want[4096:], "in place")
			if !bytes.Equal(got, want) {
				t.Errorf("the section differs from its image at byte %#x", firstDiff(got, want))
			}
			if err := parent.Commit(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSectionAfterParentClosed checks that an image built in a section
// fails with ErrClosed once the image it is in is committed, and that its
// Abort leaves that image's bytes alone.
func TestSectionAfterParentClosed(t *testing.T) {
	t.Parallel()
	parent := mustOpen(t, memoryTarget, 1<<16, nil)
	im, err := CreateWriterAt(parent.Section(512, 4096), 4096, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := im.WriteAt([]byte("kept"), 0); err != nil {
		t.Fatal(err)
	}
	if err := im.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := parent.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := parent.Bytes()[512:516]; string(got) != "kept" {
		t.Errorf("the section's Abort changed its bytes to %q", got)
	}
	im, err = CreateWriterAt(parent.Section(512, 4096), 4096, nil)
	if !errors.Is(err, ErrClosed) {
		t.Errorf("a section of a committed image: %v, %v; want ErrClosed", im, err)
	}
}

// TestDataRun checks that DataRun finds the ranges written, at the
// bitmap's grain in mmap mode and in memory and at the file's in copy
// mode, and only zeros past them.
func TestDataRun(t *testing.T) {
	t.Parallel()
	for _, tg := range append(fileTargets(), memoryTarget) {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			const size = 8 << 20
			im := mustOpen(t, tg, size, nil)
			if lo, hi := im.DataRun(0, size); lo != size || hi != size {
				t.Errorf("DataRun of a new image = [%#x, %#x), want none", lo, hi)
			}
			if _, err := im.WriteAt([]byte("data"), 3<<20+100); err != nil {
				t.Fatal(err)
			}
			if err := im.ZeroRange(4<<20, 1<<20); err != nil {
				t.Fatal(err)
			}
			lo, hi := im.DataRun(0, size)
			if lo > 3<<20+100 || hi < 3<<20+104 || (tg.mode != ModeCopy && (lo != 3<<20 || hi != 3<<20+512)) {
				t.Errorf("DataRun = [%#x, %#x), want the run around the write", lo, hi)
			}
			if lo, hi := im.DataRun(hi, size); lo != size || hi != size {
				t.Errorf("DataRun past the write = [%#x, %#x), want none: ZeroRange marked its range", lo, hi)
			}
			if lo, hi := im.DataRun(3<<20+101, 3<<20+102); lo != 3<<20+101 || hi != 3<<20+102 {
				t.Errorf("DataRun inside the write = [%#x, %#x), want it cut to the range asked", lo, hi)
			}
			b, err := im.Getblk(0, 512)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := im.ReadAt(make([]byte, 10), 500); !errors.Is(err, ErrOverlap) {
				t.Errorf("ReadAt over a held buffer: %v, want ErrOverlap", err)
			}
			im.Brelse(b)
			got := make([]byte, 4)
			if _, err := im.ReadAt(got, 3<<20+100); err != nil || string(got) != "data" {
				t.Errorf("ReadAt = %q, %v; want \"data\"", got, err)
			}
			if _, err := im.ReadAt(got, size-2); !errors.Is(err, ErrRange) {
				t.Errorf("ReadAt past the end: %v, want ErrRange", err)
			}
		})
	}
}
