package mkimg

import "testing"

// checkTableReadBack compares the table a read hook found with what l
// planned, prefixing each message with name: the scheme, the sector size,
// and each partition's slot, type (readType gives the alias the reader
// reports for the one written), label, start and size (sizeOf gives a
// partition's sectors as the scheme stores them), and that it has Fields
// and a RawType. An EBR chain numbers its partitions in chain order.
func checkTableReadBack(t *testing.T, name string, tab *Table, l *layout, readType func(string) string, sizeOf func(placed) int64) {
	t.Helper()
	if tab.Scheme != l.scheme || tab.SectorSize != int(l.secsz) {
		t.Errorf("%sread scheme %s with %d-byte sectors, want %s with %d", name, tab.Scheme, tab.SectorSize, l.scheme, l.secsz)
	}
	if len(tab.Partitions) != len(l.parts) {
		t.Fatalf("%sread %d partitions, want %d", name, len(tab.Partitions), len(l.parts))
	}
	for i, p := range l.parts {
		got := tab.Partitions[i]
		want := Entry{
			Index: p.index + 1,
			Type:  readType(lower7(p.Type)),
			Label: p.Label,
			Start: int64(p.start * l.secsz),
			Size:  sizeOf(p) * int64(l.secsz),
		}
		if tab.Scheme == "ebr" {
			want.Index = i + 1
		}
		if got.Index != want.Index || got.Type != want.Type || got.Label != want.Label || got.Start != want.Start || got.Size != want.Size {
			t.Errorf("%spartition %d read as %+v, want %+v", name, i, got, want)
		}
		if len(got.Fields) == 0 || got.RawType == "" {
			t.Errorf("%spartition %d has no Fields or RawType", name, i)
		}
	}
}

// sameType is the readType of a scheme whose reader reports every type
// by the alias written.
func sameType(alias string) string { return alias }

// placedSectors is the sizeOf of a scheme that stores each partition's
// sectors as placed.
func placedSectors(p placed) int64 { return int64(p.sectors) }
