package vmdk

import (
	"encoding/binary"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"os"
	"path/filepath"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// TestVMDKTablesPages fills grain tables of three pages and a part, with
// entries in the first page, none in the second and some in the third
// and the last, in
// memory and in a file, and checks that writeTo puts every entry at both
// offsets, leaves the skipped page zero, and hands the kept pages over in
// order.
func TestVMDKTablesPages(t *testing.T) {
	t.Parallel()
	const pages = 3
	size := int64(pages*vmdkPageBytes + 4*vmdkNGTEs)
	grains := []uint64{0, 1, vmdkPageEntries - 1, 2 * vmdkPageEntries, uint64(size/4) - 1}
	f, err := os.Create(filepath.Join(t.TempDir(), "raw"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, disk := range []*vdisk.Disk{vdisk.NewDisk(nil, 0), testFileDisk(t, f)} {
		tables, err := newVMDKTables(disk, size)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range grains {
			if err := tables.set(g, uint32(100+i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := tables.flush(); err != nil {
			t.Fatal(err)
		}
		im, err := bcache.CreateMemory(2*size, nil)
		if err != nil {
			t.Fatal(err)
		}
		var firsts []uint64
		err = tables.writeTo(im, []int64{0, size}, func(first uint64, entries []byte) error {
			firsts = append(firsts, first)
			return nil
		})
		tables.close()
		if err != nil {
			t.Fatal(err)
		}
		if len(firsts) != 3 || firsts[0] != 0 || firsts[1] != 2*vmdkPageEntries || firsts[2] != 3*vmdkPageEntries {
			t.Errorf("file %v: pages handed over at grains %v, want 0, %d and %d", !disk.InMemory(), firsts, 2*vmdkPageEntries, 3*vmdkPageEntries)
		}
		if err := im.Commit(); err != nil {
			t.Fatal(err)
		}
		b := im.Bytes()
		want := make([]byte, size)
		for i, g := range grains {
			binary.LittleEndian.PutUint32(want[4*g:], uint32(100+i))
		}
		for _, at := range []int64{0, size} {
			if got := b[at : at+size]; string(got) != string(want) {
				t.Errorf("file %v: the tables at %d differ from the entries set", !disk.InMemory(), at)
			}
		}
	}
}

// TestVMDKSpoolSegments checks that a spool in a file stops listing
// stored grains as segments at its bound, so that their records are
// spooled instead, and that a spool in memory never does.
func TestVMDKSpoolSegments(t *testing.T) {
	t.Parallel()
	f, err := os.Create(filepath.Join(t.TempDir(), "raw"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sp, err := newVMDKSpool(testFileDisk(t, f))
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	sp.maxSegs = 8
	listed := 0
	for grain := uint64(0); grain < 100; grain++ {
		if sp.mayStore() {
			sp.stored(grain, 600, 1024)
			listed++
		} else if err := sp.write(make([]byte, 600), 1024); err != nil {
			t.Fatal(err)
		}
		if err := sp.write(make([]byte, 100), 512); err != nil { // a compressed grain between
			t.Fatal(err)
		}
	}
	if len(sp.segs) > sp.maxSegs || listed == 0 || sp.n != 100*1536 {
		t.Errorf("a spool bounded to %d segments lists %d (%d stored grains) for %d bytes", sp.maxSegs, len(sp.segs), listed, sp.n)
	}
	mem := &vmdkSpool{maxSegs: 8}
	for grain := uint64(0); grain < 100; grain++ {
		if !mem.mayStore() {
			t.Fatalf("a spool in memory refuses stored grain %d", grain)
		}
		mem.stored(grain, 600, 1024)
		mem.write(make([]byte, 100), 512)
	}
}

// testFileDisk is an empty disk in the file f whose spools go in a
// folder of t's.
func testFileDisk(t *testing.T, f *os.File) *vdisk.Disk {
	dir := t.TempDir()
	return vdisk.NewFileDisk(f, 0, nil, func(what string) (*os.File, error) {
		g, err := os.CreateTemp(dir, what)
		if err == nil {
			os.Remove(g.Name())
		}
		return g, err
	})
}
