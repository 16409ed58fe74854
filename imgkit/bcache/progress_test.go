package bcache

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// TestProgressCounts checks that Options.Progress ends at the sum of what
// the calls wrote, on every target and copy path: WriteAt, Getblk and
// Bwrite (a Brelse writes nothing), CopyFrom of a reader, of a file and of
// a file with a hole, CopyFiles of a batch that groups its files (their
// Pad does not count) and ZeroRange.
func TestProgressCounts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, bytes.Repeat([]byte{7}, 2<<20+3), 0o644); err != nil {
		t.Fatal(err)
	}
	holey := filepath.Join(dir, "holey")
	f, err := os.Create(holey)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte{1}, 0)
	f.WriteAt([]byte{2}, 3<<20)
	f.Close()
	batch, want := filesFixture(t, 12)
	batch = withPad(batch)
	var batchBytes int64
	for _, fc := range batch {
		batchBytes += fc.N
	}
	const filesAt = 16 << 20 // the batch goes here, past the other writes
	for i := range batch {
		batch[i].Off += filesAt
	}
	size := int64(filesAt + len(want))

	for _, tg := range targets {
		for _, bulk := range []Bulk{BulkAuto, BulkRead, BulkCopyFileRange, BulkMapSource} {
			var n progress.Meter
			im, err := tg.open(t, size, &Options{Bulk: bulk, Progress: &n})
			if err != nil {
				t.Fatal(err)
			}
			var expect int64
			step := func(what string, written int64, err error) {
				t.Helper()
				if err != nil {
					t.Fatalf("%s/%v: %s: %v", tg.name, bulk, what, err)
				}
				expect += written
				if got := n.Count(); got != expect {
					t.Errorf("%s/%v: after %s Progress = %d, want %d", tg.name, bulk, what, got, expect)
					expect = got
				}
			}
			_, err = im.WriteAt(make([]byte, 100), 0)
			step("WriteAt", 100, err)
			b, err := im.Getblk(4096, 4096)
			if err == nil {
				b.Data()[0] = 1
				err = im.Bwrite(b)
			}
			step("Bwrite", 4096, err)
			b, err = im.Bread(8192, 512)
			if err == nil {
				im.Brelse(b)
			}
			step("Brelse", 0, err)
			err = im.CopyFrom(1<<20, bytes.NewReader(make([]byte, 3<<20+5)), 3<<20+5)
			step("CopyFrom of a reader", 3<<20+5, err)
			for _, src := range []string{plain, holey} {
				fi, _ := os.Stat(src)
				f, err := os.Open(src)
				if err != nil {
					t.Fatal(err)
				}
				err = im.CopyFrom(5<<20, f, fi.Size())
				f.Close()
				step("CopyFrom of "+filepath.Base(src), fi.Size(), err)
			}
			_, err = im.CopyFiles(batch)
			step("CopyFiles", batchBytes, err)
			step("ZeroRange", 1000, im.ZeroRange(12<<20, 1000))
			im.Abort()
		}
	}
}
