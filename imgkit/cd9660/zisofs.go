package cd9660

import (
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// zisofs files (zisofs_format.txt and zisofs2_format.txt of libisofs:
// mkzftree, mkisofs -z, xorriso -set_filter --zisofs) hold their data
// compressed: a header, a table of block pointers, and blocks of 2^log2
// bytes each compressed by zlib on its own, where a block of no bytes
// stands for zeros. A ZF (or, for zisofs2, Z2) entry in the file's record
// announces it. The reader decodes zisofs ("pz", version 1) and zisofs2
// with zlib ("PZ", version 2); zisofs2's other algorithms (XZ, LZ4,
// Zstandard, bzip2) are refused with ErrUnsupported.

// The block sizes readers must handle, and the only ones zisofs writers
// use; xorriso writes zisofs2 blocks of up to 2^20 bytes.
const (
	zisofsMinLog2  = 15
	zisofsMaxLog2  = 17
	zisofs2MaxLog2 = 20
)

// zisofsParams are what a ZF entry says of a file the reader decodes.
type zisofsParams struct {
	v2        bool   // zisofs2: its header and 64-bit block pointers
	size      uint64 // uncompressed size
	log2      uint   // binary logarithm of the block size
	headerLen int64  // bytes before the block pointers
}

// zisofs returns the parameters of e's ZF entry. ok is false when e is no
// regular file with a ZF entry; err says why one cannot be decoded.
func (e *Entry) zisofs() (p zisofsParams, ok bool, err error) {
	rr := e.RockRidge
	if rr == nil || !rr.HasZF || e.dir || !e.mode().IsRegular() {
		return p, false, nil
	}
	p = zisofsParams{size: rr.ZFSize, log2: uint(rr.ZFLog2), headerLen: 4 * int64(rr.ZFHeaderWords)}
	minHeader, maxLog2 := int64(zisofsHeaderLen), uint(zisofsMaxLog2)
	switch {
	case rr.ZFVersion == 1 && rr.ZFAlgorithm == "pz":
	case rr.ZFVersion == 2 && rr.ZFAlgorithm == "PZ":
		p.v2, minHeader, maxLog2 = true, zisofs2HeaderLen, zisofs2MaxLog2
	default:
		return p, true, fmt.Errorf("%w: ZF entry of the record at byte %#x: version %d, algorithm %q (only zlib, zisofs \"pz\" and zisofs2 \"PZ\", is read)",
			ErrUnsupported, e.Offset, rr.ZFVersion, rr.ZFAlgorithm)
	}
	switch {
	case p.log2 < zisofsMinLog2 || p.log2 > maxLog2:
		return p, true, formatErr(e.Offset, "ZF", "ZF entry of the record at byte %#x: block size 2^%d is not 2^%d to 2^%d", e.Offset, p.log2, zisofsMinLog2, maxLog2)
	case p.headerLen < minHeader:
		return p, true, formatErr(e.Offset, "ZF", "ZF entry of the record at byte %#x: header of %d bytes, less than %d", e.Offset, p.headerLen, minHeader)
	case p.blocks()+1 > uint64(max(e.Size-p.headerLen, 0)/p.ptrLen()):
		return p, true, formatErr(e.Offset, "ZF", "ZF entry of the record at byte %#x: %d bytes uncompressed need %d block pointers, more than its %d bytes hold",
			e.Offset, p.size, p.blocks()+1, e.Size)
	}
	return p, true, nil
}

// blocks returns the number of blocks of the file.
func (p zisofsParams) blocks() uint64 {
	n := p.size >> p.log2
	if p.size&(1<<p.log2-1) != 0 {
		n++
	}
	return n
}

// fileSize returns the uncompressed size, which Entry.zisofs has checked
// against the recorded size.
func (p zisofsParams) fileSize() int64 { return int64(p.size) }

// ptrLen returns the length of a block pointer.
func (p zisofsParams) ptrLen() int64 {
	if p.v2 {
		return 8
	}
	return 4
}

// A zisofsFile reads the uncompressed bytes of a zisofs file from its
// compressed ones. It keeps the last block it decoded, so that reading the
// file in order decodes each block once.
type zisofsFile struct {
	raw     io.ReaderAt // the file's bytes as recorded
	at      int64       // where they start in the image, for errors
	p       zisofsParams
	ptrs    []int64 // block pointers: block i is raw bytes [ptrs[i], ptrs[i+1])
	mu      sync.Mutex
	block   []byte // the block last decoded
	blockNo int64  // its number, -1 before the first
}

// openZisofs checks the header and block pointers of the zisofs file
// whose rawSize recorded bytes raw reads, at byte at of the image, against
// the ZF entry's parameters p. The pointer table is read only once it is
// known to fit in the file.
func openZisofs(raw io.ReaderAt, rawSize, at int64, p zisofsParams) (*zisofsFile, error) {
	z := &zisofsFile{raw: raw, at: at, p: p, blockNo: -1}
	if rawSize < p.headerLen {
		return nil, z.errorf("%d bytes, less than its %d-byte header", rawSize, p.headerLen)
	}
	if err := z.checkHeader(); err != nil {
		return nil, err
	}
	ptrLen, blocks := p.ptrLen(), p.blocks()
	if blocks+1 > uint64((rawSize-p.headerLen)/ptrLen) {
		return nil, z.errorf("%d block pointers after its header do not fit in its %d bytes", blocks+1, rawSize)
	}
	table := make([]byte, int64(blocks+1)*ptrLen)
	if err := z.readRaw(table, p.headerLen); err != nil {
		return nil, err
	}
	z.ptrs = make([]int64, blocks+1)
	prev := p.headerLen + int64(len(table))
	for i := range z.ptrs {
		var v uint64
		if p.v2 {
			v = binary.LittleEndian.Uint64(table[8*i:])
		} else {
			v = uint64(binary.LittleEndian.Uint32(table[4*i:]))
		}
		if v < uint64(prev) || v > uint64(rawSize) {
			return nil, z.errorf("block pointer %d at byte %d of the file is %d, outside bytes %d to %d", i, p.headerLen+ptrLen*int64(i), v, prev, rawSize)
		}
		z.ptrs[i], prev = int64(v), int64(v)
	}
	return z, nil
}

// checkHeader checks the file's header against its ZF entry.
func (z *zisofsFile) checkHeader() error {
	p := z.p
	if p.v2 {
		h := make(zisofsHeader, zisofs2HeaderLen)
		if err := z.readRaw(h, 0); err != nil {
			return err
		}
		size := binary.LittleEndian.Uint64(h.v2UncompressedSize())
		switch {
		case string(h.magic()) != zisofs2Magic:
			return z.errorf("no zisofs2 magic number in its header")
		case h.v2HeaderVersion()[0] != 0 || h.v2AlgorithmID()[0] != zisofs2AlgZlib:
			return z.errorf("header of version %d, algorithm %d, not 0 and 1 (zlib) as its ZF entry says", h.v2HeaderVersion()[0], h.v2AlgorithmID()[0])
		case size != p.size:
			return z.errorf("header says %d bytes uncompressed, its ZF entry %d", size, p.size)
		case int64(h.v2HeaderSizeDiv4()[0])*4 != p.headerLen || uint(h.v2Log2BlockSize()[0]) != p.log2:
			return z.errorf("header says a %d-byte header and blocks of 2^%d bytes, its ZF entry %d and 2^%d",
				4*int(h.v2HeaderSizeDiv4()[0]), h.v2Log2BlockSize()[0], p.headerLen, p.log2)
		}
		return nil
	}
	h := make(zisofsHeader, zisofsHeaderLen)
	if err := z.readRaw(h, 0); err != nil {
		return err
	}
	size := binary.LittleEndian.Uint32(h.uncompressedSize())
	switch {
	case string(h.magic()) != zisofsMagic:
		return z.errorf("no zisofs magic number in its header")
	case uint64(size) != p.size:
		return z.errorf("header says %d bytes uncompressed, its ZF entry %d", size, p.size)
	case int64(h.headerSizeDiv4()[0])*4 != p.headerLen || uint(h.log2BlockSize()[0]) != p.log2:
		return z.errorf("header says a %d-byte header and blocks of 2^%d bytes, its ZF entry %d and 2^%d",
			4*int(h.headerSizeDiv4()[0]), h.log2BlockSize()[0], p.headerLen, p.log2)
	}
	return nil
}

// errorf returns a format error about the zisofs file.
func (z *zisofsFile) errorf(format string, args ...any) error {
	return formatErr(z.at, "", "zisofs file at byte %#x: "+format, append([]any{z.at}, args...)...)
}

// readRaw reads exactly len(b) recorded bytes of the file at off.
func (z *zisofsFile) readRaw(b []byte, off int64) error {
	n, err := z.raw.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		return z.errorf("ends before byte %d", off+int64(len(b)))
	}
	return err
}

// readAt reads the uncompressed bytes at off into p, for the file's
// FileReader: off+len(p) is within the file.
func (z *zisofsFile) readAt(p []byte, off int64) (int, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	n := 0
	for n < len(p) {
		b := off >> z.p.log2
		if err := z.decode(b); err != nil {
			return n, err
		}
		k := copy(p[n:], z.block[off-b<<z.p.log2:])
		n += k
		off += int64(k)
	}
	return n, nil
}

// decode makes block b of the file the one in z.block: zeros for a block
// of no bytes, else what zlib makes of its bytes, which must be the
// block's length exactly.
func (z *zisofsFile) decode(b int64) error {
	if b == z.blockNo {
		return nil
	}
	z.blockNo = -1
	bs := int64(1) << z.p.log2
	want := min(bs, z.p.fileSize()-b*bs)
	if z.block == nil {
		z.block = make([]byte, bs)
	}
	z.block = z.block[:want]
	start, end := z.ptrs[b], z.ptrs[b+1]
	if start == end {
		clear(z.block)
		z.blockNo = b
		return nil
	}
	src := io.NewSectionReader(z.raw, start, end-start)
	zr, err := zlib.NewReader(src)
	if err == nil {
		_, err = io.ReadFull(zr, z.block)
	}
	if err == nil {
		// The stream must end here; reading on checks its Adler-32.
		var extra [1]byte
		if m, e := zr.Read(extra[:]); m > 0 {
			err = fmt.Errorf("more than %d bytes", want)
		} else if e != io.EOF {
			err = e
		}
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
			err = fmt.Errorf("fewer than %d bytes", want)
		}
		return z.errorf("block %d, bytes %d to %d of the file: %v", b, start, end, err)
	}
	z.blockNo = b
	return nil
}

// readerAtFunc is an io.ReaderAt made of a function that reads at most
// len(p) bytes at off and returns fewer, without an error, at the end.
type readerAtFunc func(p []byte, off int64) (int, error)

func (f readerAtFunc) ReadAt(p []byte, off int64) (int, error) {
	n, err := f(p, off)
	if err == nil && n < len(p) {
		err = io.EOF
	}
	return n, err
}
