package qcow

import (
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/verr"
	"io"
	"math"
	"math/bits"
	"sync"
)

// Match reports whether head begins a header of the version: qcow
// matches a version 1 header, qcow2 a version 2 or 3 one.
func (f Format) Match(head []byte) bool {
	if len(head) < 8 || binary.BigEndian.Uint32(head) != qcowMagic {
		return false
	}
	v := binary.BigEndian.Uint32(head[4:])
	return v == f.Version || f.Version == 2 && v == 3
}

// Open opens the virtual disk of a qcow or qcow2 file of size bytes in r,
// whatever f's version.
func (f Format) Open(r io.ReaderAt, size int64) (vdisk.Reader, error) {
	d, _, err := openQCOW(r, size)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// qcowCacheTables is how many L2 tables a disk keeps, so that
// reading the disk in order reads each table once.
const qcowCacheTables = 16

// disk is the virtual disk of a qcow container, read through its L1
// and L2 tables; clusters no table maps read as zeros. A data cluster is
// stored as it is, or compressed (qcow_compressed.go), and with extended
// L2 entries its 32 subclusters are each stored or zeros. It is safe for
// concurrent use.
type disk struct {
	r        io.ReaderAt
	fileSize int64
	version  uint32
	bits     uint  // cluster_bits
	l2Bits   uint  // log2 of an L2 table's entries
	subBits  uint  // log2 of a subcluster's bytes: bits, or bits-5 with extended L2 entries
	extended bool  // L2 entries of 16 bytes, with subcluster bitmaps
	zstd     bool  // compressed clusters are zstd streams, which are not read
	size     int64 // the virtual disk's size in bytes
	l1       []int64

	mu       sync.Mutex
	cache    map[int64][]byte // L2 tables by L1 index, as stored
	order    []int64          // the cached tables' L1 indexes, oldest first
	inflated qcowInflated     // the clusters last decompressed
	head     []byte           // the header, for Fields
}

// openQCOW is the open hook of both versions: it checks the header and
// the L1 table against the file's size bytes and returns the virtual
// disk. Every offset and size it reads is bounded before it is used: the
// cluster size by the format's range, the L1 table by the virtual size
// and the file, each L2 table and data cluster by the file.
func openQCOW(r io.ReaderAt, size int64) (*disk, int64, error) {
	var buf [qcowV3HeaderLen + 8]byte // and compression_type, with its padding
	n, err := r.ReadAt(buf[:min(size, int64(len(buf)))], 0)
	if err != nil && err != io.EOF {
		return nil, 0, fmt.Errorf("reading the header: %w", err)
	}
	if n < len(qcowHeaderV1{}) {
		return nil, 0, verr.Container(nil, "qcow", -1, "", "a file of %d bytes is shorter than a qcow header", size)
	}
	d := &disk{r: r, fileSize: size, version: binary.BigEndian.Uint32(buf[4:]), cache: map[int64][]byte{}, head: buf[:n]}
	h1, h2 := (*qcowHeaderV1)(buf[:48]), (*qcowHeaderV2)(buf[:72]) // the fields' places
	sizeAt, l1At, l1SizeAt := verr.At(h2[:], h2.size()), verr.At(h2[:], h2.l1_table_offset()), verr.At(h2[:], h2.l1_size())
	if d.version == 1 {
		sizeAt, l1At, l1SizeAt = verr.At(h1[:], h1.size()), verr.At(h1[:], h1.l1_table_offset()), verr.At(h1[:], h1.size())
	}
	var l1Off, l1Len uint64
	var vsize uint64
	switch d.version {
	case 1:
		h := h1
		if err := d.checkV1(h); err != nil {
			return nil, 0, err
		}
		vsize, l1Off = binary.BigEndian.Uint64(h.size()), binary.BigEndian.Uint64(h.l1_table_offset())
	case 2, 3:
		if n < len(qcowHeaderV2{}) {
			return nil, 0, d.bad(-1, "", "a file of %d bytes is shorter than a qcow%d header", size, d.version)
		}
		h := h2
		if err := d.checkV2(h, buf[:n]); err != nil {
			return nil, 0, err
		}
		vsize, l1Off = binary.BigEndian.Uint64(h.size()), binary.BigEndian.Uint64(h.l1_table_offset())
		l1Len = uint64(binary.BigEndian.Uint32(h.l1_size()))
	default:
		return nil, 0, d.bad(verr.At(h2[:], h2.version()), "version", "version %d: want 1, 2 or 3", d.version)
	}
	if vsize > math.MaxInt64 {
		return nil, 0, d.bad(sizeAt, "size", "a virtual size of %d bytes, past %d", vsize, int64(math.MaxInt64))
	}
	d.size = int64(vsize)
	span := d.bits + d.l2Bits // log2 of the bytes one L1 entry maps
	need := uint64(d.size>>span) + boolInt(d.size&(1<<span-1) != 0)
	if d.version == 1 {
		l1Len = need
	}
	l1Name := "l1_size"
	if d.version == 1 {
		l1Name = "size"
	}
	if max := d.maxL1(); l1Len > max {
		return nil, 0, d.bad(l1SizeAt, l1Name, "an L1 table of %d entries, past %d", l1Len, max)
	}
	if l1Len < need {
		return nil, 0, d.bad(l1SizeAt, l1Name, "an L1 table of %d entries maps %d bytes, less than the virtual size of %d", l1Len, l1Len<<span, d.size)
	}
	if err := d.readL1(l1Off, l1At, need); err != nil {
		return nil, 0, err
	}
	return d, d.size, nil
}

// Size returns the virtual disk's size in bytes.
func (d *disk) Size() int64 { return d.size }

// Fields returns the header's fields (fields.go).
func (d *disk) Fields() []describe.Field { return qcowFields(d.head) }

// Close does nothing: the disk holds no file of its own.
func (d *disk) Close() error { return nil }

// bad returns the *imgfmt.FormatError of the qcow (version 1) or qcow2
// (version 2 and 3) structure at byte off of the file, whose header
// field (as QEMU's qcow2.txt names it) is field, "" for none.
func (d *disk) bad(off int64, field, format string, args ...any) error {
	name := "qcow2"
	if d.version == 1 {
		name = "qcow"
	}
	return verr.Container(nil, name, off, field, format, args...)
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
func (d *disk) checkV1(h *qcowHeaderV1) error {
	d.bits, d.l2Bits = uint(h.cluster_bits()[0]), uint(h.l2_bits()[0])
	d.subBits = d.bits
	switch {
	case d.bits < qcowV1MinBits || d.bits > qcowV1MaxBits:
		return d.bad(verr.At(h[:], h.cluster_bits()), "cluster_bits", "cluster_bits %d: want %d to %d", d.bits, qcowV1MinBits, qcowV1MaxBits)
	case d.l2Bits < qcowV1MinBits-3 || d.l2Bits > qcowV1MaxBits-3:
		return d.bad(verr.At(h[:], h.l2_bits()), "l2_bits", "l2_bits %d: want %d to %d", d.l2Bits, qcowV1MinBits-3, qcowV1MaxBits-3)
	case binary.BigEndian.Uint64(h.backing_file_offset()) != 0:
		return d.bad(verr.At(h[:], h.backing_file_offset()), "backing_file_offset", "the image has a backing file, which is not read")
	case binary.BigEndian.Uint32(h.crypt_method()) != 0:
		return d.bad(verr.At(h[:], h.crypt_method()), "crypt_method", "the image is encrypted")
	}
	return nil
}

// checkV2 checks a version 2 or 3 header (head, as much of the file's
// start as was read): no backing file or encryption, a cluster size QEMU
// reads (512 bytes to 2 MiB), and for version 3 a header length and no
// incompatible feature but the dirty bit (which leaves the data
// readable), the compression type and extended L2 entries.
func (d *disk) checkV2(h *qcowHeaderV2, head []byte) error {
	cb := binary.BigEndian.Uint32(h.cluster_bits())
	if cb < qcowV2MinBits || cb > qcowV2MaxBits {
		return d.bad(verr.At(h[:], h.cluster_bits()), "cluster_bits", "cluster_bits %d: want %d to %d", cb, qcowV2MinBits, qcowV2MaxBits)
	}
	d.bits = uint(cb)
	d.l2Bits, d.subBits = d.bits-3, d.bits
	switch {
	case binary.BigEndian.Uint64(h.backing_file_offset()) != 0:
		return d.bad(verr.At(h[:], h.backing_file_offset()), "backing_file_offset", "the image has a backing file, which is not read")
	case binary.BigEndian.Uint32(h.crypt_method()) != 0:
		return d.bad(verr.At(h[:], h.crypt_method()), "crypt_method", "the image is encrypted")
	}
	if d.version != 3 {
		return nil
	}
	if len(head) < qcowV3HeaderLen {
		return d.bad(-1, "", "a version 3 header of %d bytes: want %d", len(head), qcowV3HeaderLen)
	}
	h3 := (*qcowHeaderV3)(head[:qcowV3HeaderLen])
	hl := binary.BigEndian.Uint32(h3.header_length())
	if hl < qcowV3HeaderLen || int64(hl) > 1<<d.bits {
		return d.bad(verr.At(h3[:], h3.header_length()), "header_length", "header_length %d: want %d to the cluster size", hl, qcowV3HeaderLen)
	}
	features := binary.BigEndian.Uint64(h3.incompatible_features())
	if f := features &^ (qcowDirty | qcowCompressionType | qcowExtendedL2); f != 0 {
		return d.bad(verr.At(h3[:], h3.incompatible_features()), "incompatible_features", "incompatible_features %#x are not read", f)
	}
	if o := binary.BigEndian.Uint32(h3.refcount_order()); o > 6 {
		return d.bad(verr.At(h3[:], h3.refcount_order()), "refcount_order", "refcount_order %d: want 0 to 6", o)
	}
	if err := d.checkCompressionType(features, hl, head); err != nil {
		return err
	}
	if features&qcowExtendedL2 != 0 {
		if d.bits < qcowExtendedMinBits {
			return d.bad(verr.At(h3[:], h3.incompatible_features()), "incompatible_features", "extended L2 entries with cluster_bits %d: want %d or more", d.bits, qcowExtendedMinBits)
		}
		d.extended = true
		d.l2Bits, d.subBits = d.bits-4, d.bits-5 // 16-byte entries, 32 subclusters
	}
	return nil
}

// maxL1 is the longest L1 table of the version QEMU opens.
func (d *disk) maxL1() uint64 {
	if d.version == 1 {
		return qcowV1MaxL1Entries
	}
	return qcowV2MaxL1Entries
}

// readL1 reads the n L1 entries at off, which the header's
// l1_table_offset at byte at says, each an L2 table's offset or 0, and
// checks that every table lies inside the file (at a cluster's start,
// for version 2 and 3).
func (d *disk) readL1(off uint64, at int64, n uint64) error {
	if off > uint64(d.fileSize) || n*8 > uint64(d.fileSize)-off {
		return d.bad(at, "l1_table_offset", "the L1 table of %d entries at byte %#x runs past the file's end at %#x", n, off, d.fileSize)
	}
	if d.version != 1 && off&(1<<d.bits-1) != 0 {
		return d.bad(at, "l1_table_offset", "the L1 table at byte %#x is not at a cluster's start", off)
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
				return d.bad(int64(off)+8*int64(i), "", "L1 entry %d: the L2 table at byte %#x is not at a cluster's start", i, e)
			}
		}
		if e != 0 && (e >= uint64(d.fileSize) || tableLen > uint64(d.fileSize)-e) {
			return d.bad(int64(off)+8*int64(i), "", "L1 entry %d: the L2 table at byte %#x runs past the file's end at %#x", i, e, d.fileSize)
		}
		d.l1[i] = int64(e)
	}
	return nil
}

// l2 returns the L2 table of L1 entry i as stored, from the cache or
// read once. It holds d.mu.
func (d *disk) l2(i int64) ([]byte, error) {
	if t, ok := d.cache[i]; ok {
		return t, nil
	}
	t := make([]byte, 8<<(d.bits-3)) // one cluster
	if _, err := d.r.ReadAt(t, d.l1[i]); err != nil {
		return nil, fmt.Errorf("reading the L2 table at byte %#x: %w", d.l1[i], err)
	}
	if len(d.order) == qcowCacheTables {
		delete(d.cache, d.order[0])
		d.order = append(d.order[:0], d.order[1:]...)
	}
	d.cache[i] = t
	d.order = append(d.order, i)
	return t, nil
}

// qcowMapping is where the bytes of one virtual cluster are in the file.
type qcowMapping struct {
	// at is the host offset of the cluster's data, or of its compressed
	// stream; 0 when the cluster reads as zeros.
	at int64
	// csize is the length of the compressed stream at at, 0 for a cluster
	// stored as it is.
	csize int64
	// alloc has bit k set when subcluster k (of 2^subBits bytes) is
	// stored at at+k<<subBits; the others read as zeros. Without
	// extended L2 entries the cluster is one subcluster.
	alloc uint32
}

// mapping returns where the virtual disk's cluster c is, from its L2
// entry, checked against the file.
func (d *disk) mapping(c int64) (qcowMapping, error) {
	i := c >> d.l2Bits
	if i >= int64(len(d.l1)) || d.l1[i] == 0 {
		return qcowMapping{}, nil
	}
	d.mu.Lock()
	t, err := d.l2(i)
	d.mu.Unlock()
	if err != nil {
		return qcowMapping{}, err
	}
	j := c & (1<<d.l2Bits - 1)
	var e, bitmap uint64
	if d.extended {
		e, bitmap = binary.BigEndian.Uint64(t[16*j:]), binary.BigEndian.Uint64(t[16*j+8:])
	} else {
		e = binary.BigEndian.Uint64(t[8*j:])
	}
	m, err := d.decode(e, bitmap)
	if err != nil {
		entry := d.l1[i] + j*int64(len(t)>>d.l2Bits)
		return qcowMapping{}, d.bad(entry, "", "L2 table at byte %#x, entry %d: %v", d.l1[i], j, err)
	}
	return m, nil
}

// decode reads an L2 entry e (with its subcluster bitmap, for extended
// L2 entries) and checks that what it maps lies in the file.
func (d *disk) decode(e, bitmap uint64) (qcowMapping, error) {
	if d.version == 1 && e&qcowV1Compressed != 0 || d.version != 1 && e&qcowV2Compressed != 0 {
		return d.decodeCompressed(e)
	}
	cs := uint64(1) << d.bits
	off := e
	if d.version != 1 {
		off = e & qcowV2OffsetMask
		if off&(cs-1) != 0 {
			return qcowMapping{}, fmt.Errorf("the cluster at byte %#x is not at a cluster's start", off)
		}
	}
	alloc := uint32(1)
	switch {
	case d.extended:
		alloc = uint32(bitmap)
		if zero := uint32(bitmap >> 32); alloc&zero != 0 {
			return qcowMapping{}, fmt.Errorf("subclusters %#x are both allocated and zero", alloc&zero)
		}
		if off == 0 && alloc != 0 {
			return qcowMapping{}, fmt.Errorf("subclusters %#x are allocated in no cluster", alloc)
		}
	case d.version == 3 && e&qcowV3Zero != 0:
		off = 0
	}
	if off == 0 || alloc == 0 {
		return qcowMapping{}, nil
	}
	// The data the entry maps ends with its last allocated subcluster.
	end := uint64(bits.Len32(alloc)) << d.subBits
	if off >= uint64(d.fileSize) || end > uint64(d.fileSize)-off {
		return qcowMapping{}, fmt.Errorf("the cluster at byte %#x runs past the file's end at %#x", off, d.fileSize)
	}
	return qcowMapping{at: int64(off), alloc: alloc}, nil
}

// ReadAt reads the virtual disk, cluster by cluster, or subcluster by
// subcluster with extended L2 entries.
func (d *disk) ReadAt(p []byte, off int64) (int, error) {
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
		c, in := pos>>d.bits, pos&(cs-1)
		m, err := d.mapping(c)
		if err != nil {
			return done, fmt.Errorf("qcow: %w", err)
		}
		if m.csize != 0 {
			n := int(min(cs-in, int64(len(p)-done)))
			if err := d.readCompressed(p[done:done+n], c, in, m); err != nil {
				return done, err
			}
			done += n
			continue
		}
		sub := in >> d.subBits
		n := int(min((sub+1)<<d.subBits-in, int64(len(p)-done)))
		if m.alloc&(1<<sub) == 0 {
			clear(p[done : done+n])
		} else if _, err := d.r.ReadAt(p[done:done+n], m.at+in); err != nil {
			return done, fmt.Errorf("qcow: reading the cluster at byte %#x: %w", m.at, err)
		}
		done += n
	}
	if done < want {
		return done, io.EOF
	}
	return done, nil
}
