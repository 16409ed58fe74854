package mkimg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
)

// qcowMatch returns the match hook of a version: "qcow" matches a
// version 1 header, "qcow2" a version 2 or 3 one.
func qcowMatch(version uint32) func(head []byte) bool {
	return func(head []byte) bool {
		if len(head) < 8 || binary.BigEndian.Uint32(head) != qcowMagic {
			return false
		}
		v := binary.BigEndian.Uint32(head[4:])
		return v == version || version == 2 && v == 3
	}
}

// qcowCacheTables is how many L2 tables a qcowDisk keeps decoded, so that
// reading the disk in order reads each table once.
const qcowCacheTables = 16

// qcowDisk is the virtual disk of a qcow container, read through its L1
// and L2 tables; clusters no table maps read as zeros. It is safe for
// concurrent use.
type qcowDisk struct {
	r        io.ReaderAt
	fileSize int64
	version  uint32
	bits     uint  // cluster_bits
	l2Bits   uint  // log2 of an L2 table's entries
	size     int64 // the virtual disk's size in bytes
	l1       []int64

	mu    sync.Mutex
	cache map[int64][]int64 // L2 tables by L1 index, entries as host offsets (0: zeros)
	order []int64           // the cached tables' L1 indexes, oldest first
}

// openQCOW is the open hook of both versions: it checks the header and
// the L1 table against the file's size bytes and returns the virtual
// disk. Every offset and size it reads is bounded before it is used: the
// cluster size by the format's range, the L1 table by the virtual size
// and the file, each L2 table and data cluster by the file.
func openQCOW(r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	var buf [qcowV3HeaderLen]byte
	n, err := r.ReadAt(buf[:min(size, int64(len(buf)))], 0)
	if err != nil && err != io.EOF {
		return nil, 0, fmt.Errorf("reading the header: %w", err)
	}
	if n < len(qcowHeaderV1{}) {
		return nil, 0, fmt.Errorf("a file of %d bytes is shorter than a qcow header", size)
	}
	d := &qcowDisk{r: r, fileSize: size, version: binary.BigEndian.Uint32(buf[4:]), cache: map[int64][]int64{}}
	var l1Off, l1Len uint64
	var vsize uint64
	switch d.version {
	case 1:
		h := (*qcowHeaderV1)(buf[:48])
		if err := d.checkV1(h); err != nil {
			return nil, 0, err
		}
		vsize, l1Off = binary.BigEndian.Uint64(h.size()), binary.BigEndian.Uint64(h.l1_table_offset())
	case 2, 3:
		if n < len(qcowHeaderV2{}) {
			return nil, 0, fmt.Errorf("a file of %d bytes is shorter than a qcow%d header", size, d.version)
		}
		h := (*qcowHeaderV2)(buf[:72])
		if err := d.checkV2(h, &buf, n); err != nil {
			return nil, 0, err
		}
		vsize, l1Off = binary.BigEndian.Uint64(h.size()), binary.BigEndian.Uint64(h.l1_table_offset())
		l1Len = uint64(binary.BigEndian.Uint32(h.l1_size()))
	default:
		return nil, 0, fmt.Errorf("version %d: want 1, 2 or 3", d.version)
	}
	if vsize > math.MaxInt64 {
		return nil, 0, fmt.Errorf("a virtual size of %d bytes, past %d", vsize, int64(math.MaxInt64))
	}
	d.size = int64(vsize)
	span := d.bits + d.l2Bits // log2 of the bytes one L1 entry maps
	need := uint64(d.size>>span) + boolInt(d.size&(1<<span-1) != 0)
	if d.version == 1 {
		l1Len = need
	}
	if max := d.maxL1(); l1Len > max {
		return nil, 0, fmt.Errorf("an L1 table of %d entries, past %d", l1Len, max)
	}
	if l1Len < need {
		return nil, 0, fmt.Errorf("an L1 table of %d entries maps %d bytes, less than the virtual size of %d", l1Len, l1Len<<span, d.size)
	}
	if err := d.readL1(l1Off, need); err != nil {
		return nil, 0, err
	}
	return d, d.size, nil
}

// boolInt is 1 for true and 0 for false.
func boolInt(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// checkV1 checks a version 1 header: no backing file or encryption, and
// cluster and L2 table sizes in the range QEMU reads (512 bytes to 64
// KiB each).
func (d *qcowDisk) checkV1(h *qcowHeaderV1) error {
	d.bits, d.l2Bits = uint(h.cluster_bits()[0]), uint(h.l2_bits()[0])
	switch {
	case d.bits < qcowV1MinBits || d.bits > qcowV1MaxBits:
		return fmt.Errorf("cluster_bits %d: want %d to %d", d.bits, qcowV1MinBits, qcowV1MaxBits)
	case d.l2Bits < qcowV1MinBits-3 || d.l2Bits > qcowV1MaxBits-3:
		return fmt.Errorf("l2_bits %d: want %d to %d", d.l2Bits, qcowV1MinBits-3, qcowV1MaxBits-3)
	case binary.BigEndian.Uint64(h.backing_file_offset()) != 0:
		return errors.New("the image has a backing file, which is not read")
	case binary.BigEndian.Uint32(h.crypt_method()) != 0:
		return errors.New("the image is encrypted")
	}
	return nil
}

// checkV2 checks a version 2 or 3 header (buf, n bytes of it read): no
// backing file or encryption, a cluster size QEMU reads (512 bytes to 2
// MiB), and for version 3 a header length and no incompatible feature
// other than the dirty bit (which leaves the data readable) and the
// compression type (compressed clusters are refused where they are met).
func (d *qcowDisk) checkV2(h *qcowHeaderV2, buf *[qcowV3HeaderLen]byte, n int) error {
	bits := binary.BigEndian.Uint32(h.cluster_bits())
	if bits < qcowV2MinBits || bits > qcowV2MaxBits {
		return fmt.Errorf("cluster_bits %d: want %d to %d", bits, qcowV2MinBits, qcowV2MaxBits)
	}
	d.bits = uint(bits)
	d.l2Bits = d.bits - 3
	switch {
	case binary.BigEndian.Uint64(h.backing_file_offset()) != 0:
		return errors.New("the image has a backing file, which is not read")
	case binary.BigEndian.Uint32(h.crypt_method()) != 0:
		return errors.New("the image is encrypted")
	}
	if d.version == 3 {
		if n < qcowV3HeaderLen {
			return fmt.Errorf("a version 3 header of %d bytes: want %d", n, qcowV3HeaderLen)
		}
		h3 := (*qcowHeaderV3)(buf)
		if hl := binary.BigEndian.Uint32(h3.header_length()); hl < qcowV3HeaderLen || int64(hl) > 1<<d.bits {
			return fmt.Errorf("header_length %d: want %d to the cluster size", hl, qcowV3HeaderLen)
		}
		const dirty, compression = 1 << 0, 1 << 3
		if f := binary.BigEndian.Uint64(h3.incompatible_features()) &^ (dirty | compression); f != 0 {
			return fmt.Errorf("incompatible_features %#x are not read", f)
		}
		if o := binary.BigEndian.Uint32(h3.refcount_order()); o > 6 {
			return fmt.Errorf("refcount_order %d: want 0 to 6", o)
		}
	}
	return nil
}

// maxL1 is the longest L1 table of the version QEMU opens.
func (d *qcowDisk) maxL1() uint64 {
	if d.version == 1 {
		return qcowV1MaxL1Entries
	}
	return qcowV2MaxL1Entries
}

// readL1 reads the n L1 entries at off, each an L2 table's offset or 0,
// and checks that every table lies inside the file (at a cluster's start,
// for version 2 and 3).
func (d *qcowDisk) readL1(off, n uint64) error {
	if off > uint64(d.fileSize) || n*8 > uint64(d.fileSize)-off {
		return fmt.Errorf("the L1 table of %d entries at byte %#x runs past the file's end at %#x", n, off, d.fileSize)
	}
	if d.version != 1 && off&(1<<d.bits-1) != 0 {
		return fmt.Errorf("the L1 table at byte %#x is not at a cluster's start", off)
	}
	raw := make([]byte, n*8)
	if _, err := d.r.ReadAt(raw, int64(off)); err != nil {
		return fmt.Errorf("reading the L1 table at byte %#x: %w", off, err)
	}
	d.l1 = make([]int64, n)
	tableLen := uint64(8) << d.l2Bits
	for i := range d.l1 {
		e := binary.BigEndian.Uint64(raw[i*8:])
		if d.version != 1 {
			e &= qcowV2OffsetMask
			if e&(1<<d.bits-1) != 0 {
				return fmt.Errorf("L1 entry %d: the L2 table at byte %#x is not at a cluster's start", i, e)
			}
		}
		if e != 0 && (e >= uint64(d.fileSize) || tableLen > uint64(d.fileSize)-e) {
			return fmt.Errorf("L1 entry %d: the L2 table at byte %#x runs past the file's end at %#x", i, e, d.fileSize)
		}
		d.l1[i] = int64(e)
	}
	return nil
}

// l2 returns the L2 table of L1 entry i, decoded to data cluster offsets
// (0 for zeros) and checked against the file, from the cache or read
// once. It holds d.mu.
func (d *qcowDisk) l2(i int64) ([]int64, error) {
	if t, ok := d.cache[i]; ok {
		return t, nil
	}
	n := int64(1) << d.l2Bits
	raw := make([]byte, n*8)
	if _, err := d.r.ReadAt(raw, d.l1[i]); err != nil {
		return nil, fmt.Errorf("reading the L2 table at byte %#x: %w", d.l1[i], err)
	}
	t := make([]int64, n)
	cs := uint64(1) << d.bits
	for j := range t {
		e := binary.BigEndian.Uint64(raw[j*8:])
		var off uint64
		switch d.version {
		case 1:
			if e&qcowV1Compressed != 0 {
				return nil, fmt.Errorf("L2 table at byte %#x, entry %d: compressed clusters are not read", d.l1[i], j)
			}
			off = e
		default:
			if e&qcowV2Compressed != 0 {
				return nil, fmt.Errorf("L2 table at byte %#x, entry %d: compressed clusters are not read", d.l1[i], j)
			}
			off = e & qcowV2OffsetMask
			if d.version == 3 && e&qcowV3Zero != 0 {
				off = 0
			}
			if off&(cs-1) != 0 {
				return nil, fmt.Errorf("L2 table at byte %#x, entry %d: the cluster at byte %#x is not at a cluster's start", d.l1[i], j, off)
			}
		}
		if off != 0 && (off >= uint64(d.fileSize) || cs > uint64(d.fileSize)-off) {
			return nil, fmt.Errorf("L2 table at byte %#x, entry %d: the cluster at byte %#x runs past the file's end at %#x", d.l1[i], j, off, d.fileSize)
		}
		t[j] = int64(off)
	}
	if len(d.order) == qcowCacheTables {
		delete(d.cache, d.order[0])
		d.order = append(d.order[:0], d.order[1:]...)
	}
	d.cache[i] = t
	d.order = append(d.order, i)
	return t, nil
}

// cluster returns the file offset of the virtual disk's cluster c, or 0
// when it reads as zeros.
func (d *qcowDisk) cluster(c int64) (int64, error) {
	i := c >> d.l2Bits
	if i >= int64(len(d.l1)) || d.l1[i] == 0 {
		return 0, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t, err := d.l2(i)
	if err != nil {
		return 0, err
	}
	return t[c&(1<<d.l2Bits-1)], nil
}

// ReadAt reads the virtual disk, cluster by cluster.
func (d *qcowDisk) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("qcow: negative offset %d", off)
	}
	if off >= d.size {
		return 0, io.EOF
	}
	want := len(p)
	p = p[:min(int64(len(p)), d.size-off)]
	done := 0
	cs := int64(1) << d.bits
	for done < len(p) {
		pos := off + int64(done)
		in := pos & (cs - 1)
		m := int(min(cs-in, int64(len(p)-done)))
		at, err := d.cluster(pos >> d.bits)
		if err != nil {
			return done, err
		}
		if at == 0 {
			clear(p[done : done+m])
		} else if _, err := d.r.ReadAt(p[done:done+m], at+in); err != nil {
			return done, fmt.Errorf("qcow: reading the cluster at byte %#x: %w", at, err)
		}
		done += m
	}
	if done < want {
		return done, io.EOF
	}
	return done, nil
}
