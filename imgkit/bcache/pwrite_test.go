package bcache

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestPwritePathsAndHeldBuffers checks that the paths that bypass the
// mapping (WriteAt, and CopyFrom by every Bulk) agree with held buffers in
// both modes: a held buffer sees the new bytes, bytes a held buffer changed
// outside the written range survive, Bread reads what was written, and
// Getblk of a written range hands it out zeroed.
func TestPwritePathsAndHeldBuffers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	payload := bytes.Repeat([]byte("0123456789abcdef"), 1024) // 16 KiB
	if err := os.WriteFile(src, payload, 0o644); err != nil {
		t.Fatal(err)
	}
	bulks := []Bulk{BulkAuto, BulkRead, BulkCopyFileRange, BulkPwrite, BulkMapSource}
	for _, tg := range targets {
		for _, bulk := range bulks {
			im := mustOpen(t, tg, 1<<20, &Options{Bulk: bulk})
			// A held buffer straddling both written ranges, changed by
			// the caller at its start and just before the copied range.
			b, err := im.Getblk(8192, 3*4096)
			if err != nil {
				t.Fatal(err)
			}
			copy(b.Data(), "head")
			copy(b.Data()[4092:], "tail")
			if _, err := im.WriteAt([]byte("metadata"), 8192+100); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := im.CopyFrom(8192+4096, f, int64(len(payload))); err != nil {
				t.Fatalf("%s/%d: CopyFrom: %v", tg.name, bulk, err)
			}
			f.Close()
			d := b.Data()
			if string(d[:4]) != "head" || string(d[4092:4096]) != "tail" {
				t.Errorf("%s/%d: the held buffer lost its own bytes: %q %q", tg.name, bulk, d[:4], d[4092:4096])
			}
			if string(d[100:108]) != "metadata" {
				t.Errorf("%s/%d: the held buffer does not see WriteAt: %q", tg.name, bulk, d[100:108])
			}
			if !bytes.Equal(d[4096:], payload[:len(d)-4096]) {
				t.Errorf("%s/%d: the held buffer does not see CopyFrom", tg.name, bulk)
			}
			if err := im.Bwrite(b); err != nil {
				t.Fatal(err)
			}
			// Bread of bytes written only by pwrite, past the held buffer.
			r, err := im.Bread(8192+3*4096, 4096)
			if err != nil {
				t.Fatal(err)
			}
			if want := payload[2*4096 : 3*4096]; !bytes.Equal(r.Data(), want) {
				t.Errorf("%s/%d: Bread after CopyFrom differs", tg.name, bulk)
			}
			im.Brelse(r)
			// Getblk of a range written by pwrite is fresh: zeroed.
			z, err := im.Getblk(8192+4096, 4096)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(z.Data(), make([]byte, 4096)) {
				t.Errorf("%s/%d: Getblk over written bytes is not zeroed", tg.name, bulk)
			}
			if err := im.Bwrite(z); err != nil {
				t.Fatal(err)
			}
			if err := im.Commit(); err != nil {
				t.Fatal(err)
			}
			got := im.result(t)
			want := make([]byte, 1<<20)
			copy(want[8192:], "head")
			copy(want[8192+100:], "metadata")
			copy(want[8192+4096:], payload)
			clear(want[8192+4096 : 8192+2*4096])
			copy(want[8192+4092:], "tail")
			if i := firstDiff(got, want); i >= 0 {
				t.Errorf("%s/%d: image differs from the model at byte %#x", tg.name, bulk, i)
			}
		}
	}
}

// TestAdvanceBufs checks what a short vectored write leaves to write: the
// bytes after the first k, across pieces and empty ones, with the
// caller's slices left whole.
func TestAdvanceBufs(t *testing.T) {
	t.Parallel()
	for _, k := range []int{0, 1, 3, 4, 5, 9, 10} {
		bufs := [][]byte{[]byte("abc"), nil, []byte("defg"), []byte("hij")}
		rest := advanceBufs(bufs, k)
		if got, want := string(bytes.Join(rest, nil)), "abcdefghij"[k:]; got != want {
			t.Errorf("k=%d: %q left, want %q", k, got, want)
		}
		if len(rest) > 0 && len(rest[0]) == 0 {
			t.Errorf("k=%d: an empty piece first", k)
		}
		if string(bytes.Join(bufs, nil)) != "abcdefghij" {
			t.Errorf("k=%d: the caller's pieces changed", k)
		}
	}
}
