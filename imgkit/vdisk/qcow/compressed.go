package qcow

import (
	"compress/flate"
	"errors"
	"fmt"
	"io"
)

// Compressed clusters, as qemu-img convert -c writes them: a cluster's
// L2 entry gives the byte where its deflate stream (zlib's raw format,
// without zlib's header) starts and how long it may be, and the stream
// inflates to exactly one cluster. A version 3 image may say, in its
// compression_type, that its streams are zstd instead, which this reader
// refuses when it meets one.

// qcowInflatedClusters is how many decompressed clusters a disk
// keeps, so that a file system reader going back and forth between its
// tables and its data does not inflate the same cluster again each time.
const qcowInflatedClusters = 4

// qcowInflated is the clusters a disk last decompressed, each at
// most a cluster, and the deflate reader it reuses.
type qcowInflated struct {
	key  [qcowInflatedClusters]int64 // virtual cluster numbers plus one; 0 for none
	data [qcowInflatedClusters][]byte
	next int // the slot to fill next
	fr   io.ReadCloser
}

// checkCompressionType reads a version 3 header's compression_type
// (head holds the header, hl bytes long): present and not deflate when
// the compression type feature bit is set, deflate when it is not.
// zstd is noted, and refused at the first compressed cluster read.
func (d *disk) checkCompressionType(features uint64, hl uint32, head []byte) error {
	typ := byte(0)
	if hl > qcowCompressionTypeOff && len(head) > qcowCompressionTypeOff {
		typ = head[qcowCompressionTypeOff]
	}
	switch {
	case features&qcowCompressionType == 0 && typ != 0:
		return d.bad(qcowCompressionTypeOff, "compression_type", "compression_type %d without the compression type bit of incompatible_features", typ)
	case features&qcowCompressionType == 0:
	case typ == qcowCompressionZstd:
		d.zstd = true
	case typ == 0:
		return d.bad(qcowCompressionTypeOff, "compression_type", "the compression type bit of incompatible_features with compression_type 0 (deflate), which it must not be set for")
	default:
		return d.bad(qcowCompressionTypeOff, "compression_type", "compression_type %d: want 0 (deflate) or 1 (zstd)", typ)
	}
	return nil
}

// decodeCompressed reads the L2 entry e of a compressed cluster: the
// byte its stream starts at, and how many bytes it may take, which is
// no more than two clusters (version 2 and 3 count 512-byte sectors in
// cluster_bits-8 bits; version 1 counts bytes in cluster_bits bits).
// The stream is cut at the file's end: it needs to run only until it has
// inflated one cluster.
func (d *disk) decodeCompressed(e uint64) (qcowMapping, error) {
	var off, n uint64
	if d.version == 1 {
		shift := 63 - d.bits
		off, n = e&(1<<shift-1), e>>shift&(1<<d.bits-1)
	} else {
		shift := 62 - (d.bits - 8)
		off = e & (1<<shift - 1)
		sectors := e>>shift&(1<<(d.bits-8)-1) + 1
		n = sectors*512 - off%512
	}
	switch {
	case d.zstd:
		return qcowMapping{}, errors.New("the cluster is compressed with zstd (compression_type 1), which fixturegen does not read; it reads deflate only")
	case off == 0 || off >= uint64(d.fileSize):
		return qcowMapping{}, fmt.Errorf("the compressed cluster at byte %#x is not in the file of %d bytes", off, d.fileSize)
	case n == 0:
		return qcowMapping{}, fmt.Errorf("the compressed cluster at byte %#x has 0 bytes", off)
	}
	return qcowMapping{at: int64(off), csize: int64(min(n, uint64(d.fileSize)-off))}, nil
}

// readCompressed fills p with the bytes of the compressed virtual
// cluster c from byte in of it.
func (d *disk) readCompressed(p []byte, c, in int64, m qcowMapping) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	z := &d.inflated
	i := 0
	for i < len(z.key) && z.key[i] != c+1 {
		i++
	}
	if i == len(z.key) {
		i, z.next = z.next, (z.next+1)%len(z.key)
		z.key[i] = 0
		if z.data[i] == nil {
			z.data[i] = make([]byte, 1<<d.bits)
		}
		if err := d.inflate(z.data[i], m); err != nil {
			return fmt.Errorf("qcow: virtual cluster %d: %w", c, err)
		}
		z.key[i] = c + 1
	}
	copy(p, z.data[i][in:])
	return nil
}

// inflate fills dst, one cluster, from the deflate stream m maps. A
// stream that ends before the cluster is full is an error; what follows
// a full cluster is not read.
func (d *disk) inflate(dst []byte, m qcowMapping) error {
	src := io.NewSectionReader(d.r, m.at, m.csize)
	z := &d.inflated
	if z.fr == nil {
		z.fr = flate.NewReader(src)
	} else if err := z.fr.(flate.Resetter).Reset(src, nil); err != nil {
		return err
	}
	n, err := io.ReadFull(z.fr, dst)
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return d.bad(m.at, "", "the compressed cluster at byte %#x (%d bytes) inflates to %d bytes, less than the cluster's %d", m.at, m.csize, n, len(dst))
	case err != nil:
		return d.bad(m.at, "", "the compressed cluster at byte %#x (%d bytes) does not inflate: %v", m.at, m.csize, err)
	}
	return nil
}
