package mkimg

import (
	"bytes"
	"io"
	"testing"
)

// checkFuzzTable runs a scheme's read hook on disk and checks what a
// caller relies on: an error or a table, never both; a table with fields
// and sectors of at least 512 bytes; and entries with 1-based slots whose
// byte ranges do not overflow. An entry may reach past the disk's end (a
// truncated disk keeps its table); the disk reader says so, not the hook.
func checkFuzzTable(t *testing.T, read func(io.ReaderAt, int64) (*Table, error), disk []byte) {
	t.Helper()
	tab, err := read(bytes.NewReader(disk), int64(len(disk)))
	if (tab == nil) == (err == nil) {
		t.Fatalf("table %v with error %v", tab, err)
	}
	if err != nil {
		return
	}
	if len(tab.Fields) == 0 || tab.SectorSize < 512 {
		t.Fatalf("table without fields or with %d-byte sectors", tab.SectorSize)
	}
	for _, e := range tab.Partitions {
		if e.Index < 1 || e.Start < 0 || e.Size < 0 || e.Start+e.Size < e.Start {
			t.Fatalf("entry %+v: bad slot or byte range", e)
		}
	}
}
