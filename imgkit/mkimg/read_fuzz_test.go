package mkimg

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt/imgfmttest"
)

// checkTable fails t when a table a read hook returned has a partition
// that is no byte range or is out of slot order, or when ReadTable lists
// a partition that runs past the disk's end without a problem saying so.
func checkTable(t *testing.T, tab *Table, size int64) {
	t.Helper()
	prev := 0
	for _, e := range tab.Partitions {
		if e.Start < 0 || e.Size < 0 || e.Start+e.Size < e.Start || e.Index <= prev {
			t.Fatalf("partition %d: bytes %d+%d of a %d-byte disk (previous slot %d)", e.Index, e.Start, e.Size, size, prev)
		}
		prev = e.Index
	}
	if err := checkEntries(tab, size); err != nil {
		t.Fatal(err)
	}
	for _, e := range tab.Partitions {
		if e.Start+e.Size > size && !strings.Contains(strings.Join(tab.Problems, "\n"), fmt.Sprintf("partition %d (bytes %d to %d)", e.Index, e.Start, e.Start+e.Size)) {
			t.Fatalf("partition %d runs past the disk's end and no problem says so: %q", e.Index, tab.Problems)
		}
	}
}

// seedDisks adds small GPT and MBR disks the writer makes to f's corpus,
// each whole and cut short in its last partition, and the hand-made cut
// tables of cutSeeds, besides those in testdata/fuzz.
func seedDisks(f *testing.F, scheme string) {
	for _, o := range []*Options{
		{Scheme: scheme, Partitions: []Partition{{Type: "efi", Size: 1024}}, FreeBSDTestMode: true},
		{Scheme: scheme, Partitions: []Partition{{Type: "freebsd", Size: 512}, {Unused: true}, {Type: "efi", Label: "x", Size: 512}}},
		{Scheme: scheme, SectorSize: 4096, Partitions: []Partition{{Type: "efi", Size: 4096}}},
	} {
		if scheme == "mbr" {
			o.Partitions[len(o.Partitions)-1].Label = ""
		}
		b, err := Build(o)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)-int(o.SectorSize+512)])
	}
	for _, tc := range cutSeeds() {
		f.Add(tc.disk)
	}
}

// FuzzReadGPT checks that readGPT never panics, and that a table it
// returns lies within the disk.
func FuzzReadGPT(f *testing.F) {
	seedDisks(f, "gpt")
	f.Fuzz(func(t *testing.T, b []byte) {
		tab, err := readGPT(bytes.NewReader(b), int64(len(b)))
		imgfmttest.CheckFormatError(t, err, int64(len(b)), "", ErrFormat)
		if err == nil {
			checkTable(t, tab, int64(len(b)))
		}
	})
}

// FuzzReadMBR checks that readMBR never panics, and that a table it
// returns lies within the disk.
func FuzzReadMBR(f *testing.F) {
	seedDisks(f, "mbr")
	f.Fuzz(func(t *testing.T, b []byte) {
		tab, err := readMBR(bytes.NewReader(b), int64(len(b)))
		imgfmttest.CheckFormatError(t, err, int64(len(b)), "", ErrFormat)
		if err == nil {
			checkTable(t, tab, int64(len(b)))
		}
	})
}
