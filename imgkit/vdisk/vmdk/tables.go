package vmdk

import (
	"encoding/binary"
	"fmt"
	"os"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
)

// vmdkPageEntries is how many grain table entries (of 4 bytes) a page of
// vmdkTables holds: 128 grain tables, 256 KiB.
const vmdkPageEntries = 128 * vmdkNGTEs

// vmdkTables holds the grain tables of a hosted sparse extent between
// the layout, which fills them grain by grain in disk order, and the
// writing of the image, which copies them and the grains they name into
// it. Only the page being filled is in memory: a filled page holding an
// entry is kept in an unlinked temporary file beside the raw disk (in
// memory for a disk in memory), and a page of zeros is not kept at all,
// so that the tables of a 2 TiB disk of 8 KiB grains (1 GiB) cost 256 KiB
// of memory, and those of a sparse disk little disk either.
type vmdkTables struct {
	file  *os.File         // the kept pages, at page*vmdkPageBytes; nil in memory
	mem   map[int64][]byte // the kept pages of a disk in memory
	kept  []bool           // which pages are kept, by page
	page  int64            // the page being filled, -1 before the first
	cur   []byte           // its entries
	dirty bool             // cur holds an entry
	size  int64            // the tables' bytes
}

// vmdkPageBytes is a page's size in bytes.
const vmdkPageBytes = vmdkPageEntries * 4

// newVMDKTables returns empty tables of size bytes for disk: their pages
// kept in a temporary file in the raw disk's directory, or in memory for
// a disk in memory.
func newVMDKTables(disk *vdisk.Disk, size int64) (*vmdkTables, error) {
	t := &vmdkTables{page: -1, cur: make([]byte, vmdkPageBytes), size: size,
		kept: make([]bool, (size+vmdkPageBytes-1)/vmdkPageBytes)}
	f, err := disk.Spool("vmdk-gt")
	if err != nil {
		return nil, fmt.Errorf("mkimg: vmdk grain tables: %w", err)
	}
	if f == nil {
		t.mem = map[int64][]byte{}
		return t, nil
	}
	t.file = f
	return t, nil
}

// set makes sector the entry of grain; grains come in increasing order.
func (t *vmdkTables) set(grain uint64, sector uint32) error {
	if p := int64(grain / vmdkPageEntries); p != t.page {
		if err := t.flush(); err != nil {
			return err
		}
		t.page = p
	}
	binary.LittleEndian.PutUint32(t.cur[4*(grain%vmdkPageEntries):], sector)
	t.dirty = true
	return nil
}

// flush keeps the page being filled, when it holds an entry, and clears
// it.
func (t *vmdkTables) flush() error {
	if !t.dirty {
		return nil
	}
	t.dirty = false
	t.kept[t.page] = true
	if t.file == nil {
		t.mem[t.page] = append([]byte(nil), t.cur...)
	} else if _, err := t.file.WriteAt(t.cur, t.page*vmdkPageBytes); err != nil {
		return fmt.Errorf("mkimg: writing the vmdk grain tables: %w", err)
	}
	clear(t.cur)
	return nil
}

// writeTo writes the tables into im at each offset of at (the tables and
// their redundant copy) and calls grains, in disk order, for each kept
// page's entries, read from the page's bytes.
func (t *vmdkTables) writeTo(im *bcache.Image, at []int64, grains func(first uint64, entries []byte) error) error {
	for p, kept := range t.kept {
		if !kept {
			continue
		}
		off := int64(p) * vmdkPageBytes
		b := t.cur[:min(vmdkPageBytes, t.size-off)]
		if t.file == nil {
			b = t.mem[int64(p)][:len(b)]
		} else if _, err := t.file.ReadAt(b, off); err != nil {
			return fmt.Errorf("mkimg: reading the vmdk grain tables: %w", err)
		}
		for _, a := range at {
			if _, err := im.WriteAt(b, a+off); err != nil {
				return err
			}
		}
		if err := grains(uint64(p)*vmdkPageEntries, b); err != nil {
			return err
		}
	}
	return nil
}

// close releases the tables.
func (t *vmdkTables) close() {
	if t.file != nil {
		t.file.Close()
		t.file = nil
	}
	t.mem = nil
}
