package cd9660

import (
	"bytes"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// TestMultiExtentLayout lays out a 9 GiB file at level 3 (without writing
// it): three records in a row with one identifier, the first two with
// the Multi-Extent flag and 0xFFFFF800 bytes, the extents consecutive;
// the Joliet hierarchy has the same three; the next file follows the
// data.
func TestMultiExtentLayout(t *testing.T) {
	t.Parallel()
	root := &fstree.Node{Name: ".", Type: fstree.TypeDir, Mode: 0o755, Nlink: 2}
	root.Children = []*fstree.Node{
		{Name: "huge", Type: fstree.TypeFile, Mode: 0o644, Size: 9 << 30, Parent: root, Nlink: 1},
		{Name: "next", Type: fstree.TypeFile, Mode: 0o644, Size: 1, Parent: root, Nlink: 1},
	}
	v, err := prepare(&fstree.Tree{Root: root}, &Options{ISOLevel: 3, RockRidge: true, Joliet: true, Timestamp: time.Unix(0, 0)})
	must(t, err)
	recs := v.root.children[2:]
	if len(recs) != 4 {
		t.Fatalf("%d records, want 3 sections and next", len(recs))
	}
	buf := v.dirExtentOf(v.root, true)
	for k, c := range recs[:3] {
		if string(c.ident()) != "HUGE.;1" || c.extent != recs[0].extent+uint32(k)*(maxSection/SectorSize) {
			t.Errorf("section %d: %q at %d", k, c.ident(), c.extent)
		}
		rec := findRecord(buf, c.extent)
		if multi := rec.fileFlags()[0]&flagMultiExtent != 0; multi != (k < 2) {
			t.Errorf("section %d: Multi-Extent %v", k, multi)
		}
	}
	if recs[2].sizeLen != uint32(9<<30-2*maxSection) || recs[3].extent != recs[0].extent+uint32(sectorsFor(9<<30)) {
		t.Errorf("last section %d bytes, next file at %d", recs[2].sizeLen, recs[3].extent)
	}
	j := v.joliet.root.children[2:]
	if len(j) != 4 || !bytes.Equal(j[1].jname, j[0].jname) || j[2].section != 2 {
		t.Errorf("Joliet records %d", len(j))
	}
}

// findRecord returns the record of the directory extent buf whose
// Location of Extent is extent.
func findRecord(buf []byte, extent uint32) dirRecord {
	for off := 0; off < len(buf); {
		r := dirRecord(buf[off:])
		if r[0] == 0 {
			off = (off/SectorSize + 1) * SectorSize
			continue
		}
		if e, _ := get733(r.locationOfExtent()); e == extent {
			return r[:r[0]]
		}
		off += int(r[0])
	}
	return nil
}

// TestLevel3Names checks that level 3 names as level 2: without a file of
// 4 GiB the images are the same.
func TestLevel3Names(t *testing.T) {
	t.Parallel()
	dir := makeTree(t, "basic")
	a, err := Build(fstree.Dir(dir), &Options{ISOLevel: 2, RockRidge: true, Timestamp: time.Unix(fbsdStamp, 0)})
	must(t, err)
	b, err := Build(fstree.Dir(dir), &Options{ISOLevel: 3, RockRidge: true, Timestamp: time.Unix(fbsdStamp, 0)})
	must(t, err)
	if !bytes.Equal(a, b) {
		t.Error("level 3 and level 2 images differ")
	}
}
