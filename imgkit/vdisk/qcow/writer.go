package qcow

import (
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"math"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// qcowBits returns the cluster_bits mkimg writes for a version.
func qcowBits(version uint32) uint {
	if version == 1 {
		return qcowV1Bits
	}
	return qcowV2Bits
}

// Resize grows the disk to a whole number of clusters, as mkimg's
// qcow_resize rounds it, and refuses a disk whose tables the format (or
// QEMU, which reads it) cannot hold.
func (f Format) Resize(p *vdisk.Params, sectors uint64) (uint64, error) {
	bits := qcowBits(f.Version)
	cs := uint64(1) << bits
	if sectors > (math.MaxInt64-cs)/p.SectorSize {
		return 0, fmt.Errorf("%w: -f %s: %d sectors of %d bytes", vdisk.ErrTooLarge, f.Name(), sectors, p.SectorSize)
	}
	size := (sectors*p.SectorSize + cs - 1) &^ (cs - 1)
	p.Logf("QCOW: image size = %d, cluster size = %d\n", size, cs)
	q := newQCOWLayout(f.Version, int64(size))
	if err := q.check(f.Name()); err != nil {
		return 0, err
	}
	return size / p.SectorSize, nil
}

// qcowLayout is where mkimg's qcow_write puts each part of a container:
// cluster 0 the header, then the L1 table, the refcount table (version 2),
// the L2 tables that map data, the refcount blocks (version 2), and the
// data clusters in the disk's order. Sizes and places are in clusters.
type qcowLayout struct {
	version  uint32
	bits     uint
	cs       int64 // cluster size in bytes
	size     int64 // the disk's size in bytes, a whole number of clusters
	clusters int64 // the disk's clusters
	l1Len    int64 // L1 entries: one per L2 table the disk could need
	l1       int64 // the L1 table's clusters
	rcTable  int64 // the refcount table's clusters (version 2)

	runs   []qcowRun // the disk's clusters that hold data (qcow_runs.go)
	rescan bool      // runs passed qcowMaxRuns: the disk is scanned again
	data   int64     // how many they are
	l2Used int64     // L2 tables that map data
	rcBlks int64     // refcount blocks (version 2)
}

// qcowRun is a run of consecutive disk clusters that hold data.
type qcowRun struct{ first, n int64 }

// newQCOWLayout sizes the tables of a container of version for a disk of
// size bytes, as qcow_write sizes them before it looks at the data: the
// refcount table is made large enough for every cluster the file could
// have.
func newQCOWLayout(version uint32, size int64) *qcowLayout {
	bits := qcowBits(version)
	q := &qcowLayout{version: version, bits: bits, cs: 1 << bits, size: size, clusters: size >> bits}
	q.l1Len = q.roundUp(q.clusters*8) >> bits
	q.l1 = q.roundUp(q.l1Len*8) >> bits
	if version == 2 {
		all := q.clusters + q.l1Len + q.l1 + 1
		var blks, table int64
		for {
			n := blks + table
			blks = q.roundUp((all+n)*2) >> bits
			table = q.roundUp(blks*8) >> bits
			if n >= blks+table {
				break
			}
		}
		q.rcTable = table
	}
	return q
}

// roundUp rounds n bytes up to a whole number of clusters.
func (q *qcowLayout) roundUp(n int64) int64 { return (n + q.cs - 1) &^ (q.cs - 1) }

// check refuses a disk whose tables do not fit the header's fields or the
// limits QEMU opens an image within: version 2's L1 table of at most
// 4194304 entries and refcount table of at most 8 MiB, version 1's L1
// table of fewer than 2^28 entries. mkimg checks none of these; the
// images it would write past them are ones QEMU refuses to open.
func (q *qcowLayout) check(name string) error {
	span := q.cs << (q.bits - 3) // the bytes one L2 table maps
	switch {
	case q.version == 1 && q.l1Len > qcowV1MaxL1Entries:
		return fmt.Errorf("%w: -f %s: a disk of %d bytes needs an L1 table of %d entries, past the %d a qcow version 1 image holds (%d MiB each)",
			vdisk.ErrTooLarge, name, q.size, q.l1Len, qcowV1MaxL1Entries, span>>20)
	case q.version == 2 && q.l1Len > qcowV2MaxL1Entries:
		return fmt.Errorf("%w: -f %s: a disk of %d bytes needs an L1 table of %d entries, past the %d QEMU opens (%d MiB each)",
			vdisk.ErrTooLarge, name, q.size, q.l1Len, qcowV2MaxL1Entries, span>>20)
	case q.version == 2 && q.rcTable > qcowV2MaxRefcountClusters:
		return fmt.Errorf("%w: -f %s: a disk of %d bytes needs a refcount table of %d clusters, past the %d QEMU opens",
			vdisk.ErrTooLarge, name, q.size, q.rcTable, qcowV2MaxRefcountClusters)
	}
	return nil
}

// Where each part of the container starts, in clusters.
func (q *qcowLayout) l1At() int64      { return 1 }
func (q *qcowLayout) rcTableAt() int64 { return q.l1At() + q.l1 }
func (q *qcowLayout) l2At() int64      { return q.rcTableAt() + q.rcTable }
func (q *qcowLayout) rcBlksAt() int64  { return q.l2At() + q.l2Used }
func (q *qcowLayout) dataAt() int64    { return q.rcBlksAt() + q.rcBlks }

// fileClusters is the container's length in clusters: it ends with its
// last data cluster, or with its last table when the disk is all zeros.
func (q *qcowLayout) fileClusters() int64 { return q.dataAt() + q.data }

// flags returns the bits mkimg sets in every L1 and L2 entry it writes:
// version 2's COPIED.
func (q *qcowLayout) flags() uint64 {
	if q.version == 2 {
		return qcowCopied
	}
	return 0
}

// placeData records the disk's data clusters and places the tables that
// depend on them: one L2 table for each L1 entry that maps data, and for
// version 2 refcount blocks enough to count every cluster of the file.
func (q *qcowLayout) placeData(disk *vdisk.Disk) error {
	last := int64(-1) // the last L1 entry given an L2 table
	err := disk.DataUnits(q.cs, disk.Scanning(), func(first, n int64) error {
		q.keepRun(qcowRun{first, n})
		q.data += n
		lo, hi := first>>(q.bits-3), (first+n-1)>>(q.bits-3)
		if lo == last {
			lo++
		}
		if hi >= lo {
			q.l2Used += hi - lo + 1
			last = hi
		}
		return nil
	})
	if err != nil {
		return err
	}
	if q.version == 2 {
		counted := 1 + q.l1 + q.rcTable + q.l2Used + q.data
		for {
			n := q.rcBlks
			q.rcBlks = q.roundUp((counted+n)*2) >> q.bits
			if n >= q.rcBlks {
				break
			}
		}
	}
	return nil
}

// Write finds the disk's data clusters, lays the file out and returns
// the writer of mkimg's bytes.
func (f Format) Write(p *vdisk.Params, disk *vdisk.Disk) (int64, func(im *bcache.Image) error, error) {
	q := newQCOWLayout(f.Version, disk.Size())
	if err := q.placeData(disk); err != nil {
		return 0, nil, err
	}
	return q.fileClusters() * q.cs, func(im *bcache.Image) error { return q.write(im, disk) }, nil
}

// write writes the container into im, which is fileClusters long and
// zeros: the header, the L1 table, the refcount table, the L2 tables, the
// refcount blocks and the data clusters copied from disk.
func (q *qcowLayout) write(im *bcache.Image, disk *vdisk.Disk) error {
	if _, err := im.WriteAt(q.header(), 0); err != nil {
		return err
	}
	if err := q.writeTables(im, disk); err != nil {
		return err
	}
	if q.version == 2 {
		if err := q.writeRefcounts(im); err != nil {
			return err
		}
	}
	return q.copyData(im, disk)
}

// header returns the header's bytes.
func (q *qcowLayout) header() []byte {
	be := binary.BigEndian
	if q.version == 1 {
		var h qcowHeaderV1
		be.PutUint32(h.magic(), qcowMagic)
		be.PutUint32(h.version(), 1)
		be.PutUint64(h.size(), uint64(q.size))
		h.cluster_bits()[0] = byte(q.bits)
		h.l2_bits()[0] = byte(q.bits - 3)
		be.PutUint64(h.l1_table_offset(), uint64(q.l1At()*q.cs))
		return h[:]
	}
	var h qcowHeaderV2
	be.PutUint32(h.magic(), qcowMagic)
	be.PutUint32(h.version(), 2)
	be.PutUint32(h.cluster_bits(), uint32(q.bits))
	be.PutUint64(h.size(), uint64(q.size))
	be.PutUint32(h.l1_size(), uint32(q.l1Len))
	be.PutUint64(h.l1_table_offset(), uint64(q.l1At()*q.cs))
	be.PutUint64(h.refcount_table_offset(), uint64(q.rcTableAt()*q.cs))
	be.PutUint32(h.refcount_table_clusters(), uint32(q.rcTable))
	return h[:]
}

// writeTables writes the L1 entries and the L2 tables that map the data
// clusters, walking the runs once: the k-th data cluster is the k-th
// cluster of the data, and the j-th L1 entry that maps data points at the
// j-th L2 table. One L1 cluster and one L2 table are held at a time.
func (q *qcowLayout) writeTables(im *bcache.Image, disk *vdisk.Disk) error {
	be := binary.BigEndian
	perL2 := int64(1) << (q.bits - 3)
	l1buf, l2buf := make([]byte, q.cs), make([]byte, q.cs)
	l1Cluster, l2Index, l2Count := int64(-1), int64(-1), int64(0)
	flushL1 := func() error {
		if l1Cluster < 0 {
			return nil
		}
		_, err := im.WriteAt(l1buf, (q.l1At()+l1Cluster)*q.cs)
		clear(l1buf)
		return err
	}
	flushL2 := func() error {
		if l2Index < 0 {
			return nil
		}
		_, err := im.WriteAt(l2buf, (q.l2At()+l2Count-1)*q.cs)
		clear(l2buf)
		return err
	}
	k := int64(0)
	err := q.eachRun(disk, func(r qcowRun) error {
		for c := r.first; c < r.first+r.n; c, k = c+1, k+1 {
			if i := c / perL2; i != l2Index {
				if err := flushL2(); err != nil {
					return err
				}
				if e := i * 8 / q.cs; e != l1Cluster {
					if err := flushL1(); err != nil {
						return err
					}
					l1Cluster = e
				}
				be.PutUint64(l1buf[i*8%q.cs:], uint64((q.l2At()+l2Count)*q.cs)|q.flags())
				l2Index, l2Count = i, l2Count+1
			}
			be.PutUint64(l2buf[(c%perL2)*8:], uint64((q.dataAt()+k)*q.cs)|q.flags())
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := flushL2(); err != nil {
		return err
	}
	return flushL1()
}

// writeRefcounts writes version 2's refcount table, pointing at the
// refcount blocks, and the blocks, which count one reference to each of
// the file's clusters.
func (q *qcowLayout) writeRefcounts(im *bcache.Image) error {
	table := make([]byte, q.rcBlks*8)
	for n := range q.rcBlks {
		binary.BigEndian.PutUint64(table[n*8:], uint64((q.rcBlksAt()+n)*q.cs))
	}
	if _, err := im.WriteAt(table, q.rcTableAt()*q.cs); err != nil {
		return err
	}
	ones := make([]byte, min(q.fileClusters()*2, 1<<16))
	for i := 1; i < len(ones); i += 2 {
		ones[i] = 1
	}
	off := q.rcBlksAt() * q.cs
	for left := q.fileClusters() * 2; left > 0; {
		n := min(left, int64(len(ones)))
		if _, err := im.WriteAt(ones[:n], off); err != nil {
			return err
		}
		off += n
		left -= n
	}
	return nil
}

// copyData copies the data clusters, run by run, from the raw disk to the
// data area: a run of the disk is a run of the file, so each is copied by
// the block cache's file path (shared extents or copy_file_range) from
// the partition's file or the raw disk's, never through user space.
func (q *qcowLayout) copyData(im *bcache.Image, disk *vdisk.Disk) error {
	at := q.dataAt() * q.cs
	return q.eachRun(disk, func(r qcowRun) error {
		err := disk.CopyTo(im, at, r.first*q.cs, r.n*q.cs)
		at += r.n * q.cs
		return err
	})
}
