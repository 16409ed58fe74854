package cd9660

import (
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// zisofs files (zisofs_format.txt of libisofs: mkzftree, mkisofs -z,
// xorriso -zisofs) hold their data compressed: a header, a table of block
// pointers, and blocks of 2^log2 bytes each compressed by zlib on its
// own, where a block of no bytes stands for zeros. A ZF entry in the
// file's record announces it. The reader decodes version 1 ("pz"); the
// other algorithms and zisofs2 are refused with ErrUnsupported.

// The block sizes readers must handle, and the only ones writers use.
const (
	zisofsMinLog2 = 15
	zisofsMaxLog2 = 17
)

// zisofsParams are what a ZF entry says of a file the reader decodes.
type zisofsParams struct {
	size      int64 // uncompressed size
	log2      uint  // binary logarithm of the block size
	headerLen int64 // bytes before the block pointers
}

// zisofs returns the parameters of e's ZF entry. ok is false when e is no
// regular file with a ZF entry; err says why one cannot be decoded.
func (e *Entry) zisofs() (p zisofsParams, ok bool, err error) {
	rr := e.RockRidge
	if rr == nil || !rr.HasZF || e.dir || !e.mode().IsRegular() {
		return p, false, nil
	}
	switch {
	case rr.ZFVersion != 1 || rr.ZFAlgorithm != "pz":
		return p, true, fmt.Errorf("%w: ZF entry of the record at byte %#x: version %d, algorithm %q (only zisofs version 1, \"pz\", is read)",
			ErrUnsupported, e.Offset, rr.ZFVersion, rr.ZFAlgorithm)
	case rr.ZFLog2 < zisofsMinLog2 || rr.ZFLog2 > zisofsMaxLog2:
		return p, true, formatErr("ZF entry of the record at byte %#x: block size 2^%d is not 2^15, 2^16 or 2^17", e.Offset, rr.ZFLog2)
	case rr.ZFHeaderWords < zisofsHeaderLen/4:
		return p, true, formatErr("ZF entry of the record at byte %#x: header of %d bytes, less than %d", e.Offset, 4*int(rr.ZFHeaderWords), zisofsHeaderLen)
	}
	return zisofsParams{size: int64(rr.ZFSize), log2: uint(rr.ZFLog2), headerLen: 4 * int64(rr.ZFHeaderWords)}, true, nil
}

// A zisofsFile reads the uncompressed bytes of a zisofs file from its
// compressed ones. It keeps the last block it decoded, so that reading the
// file in order decodes each block once.
type zisofsFile struct {
	raw     io.ReaderAt // the file's bytes as recorded
	at      int64       // where they start in the image, for errors
	p       zisofsParams
	ptrs    []uint32 // block pointers: block i is raw bytes [ptrs[i], ptrs[i+1])
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
	h := make(zisofsHeader, zisofsHeaderLen)
	if err := z.readRaw(h, 0); err != nil {
		return nil, err
	}
	size := binary.LittleEndian.Uint32(h.uncompressedSize())
	switch {
	case string(h.magic()) != zisofsMagic:
		return nil, z.errorf("no zisofs magic number in its header")
	case int64(size) != p.size:
		return nil, z.errorf("header says %d bytes uncompressed, its ZF entry %d", size, p.size)
	case int64(h.headerSizeDiv4()[0])*4 != p.headerLen || uint(h.log2BlockSize()[0]) != p.log2:
		return nil, z.errorf("header says a %d-byte header and blocks of 2^%d bytes, its ZF entry %d and 2^%d",
			4*int(h.headerSizeDiv4()[0]), h.log2BlockSize()[0], p.headerLen, p.log2)
	}
	blocks := (p.size + 1<<p.log2 - 1) >> p.log2
	tableLen := 4 * (blocks + 1)
	if tableLen > rawSize-p.headerLen {
		return nil, z.errorf("%d block pointers after its header do not fit in its %d bytes", blocks+1, rawSize)
	}
	table := make([]byte, tableLen)
	if err := z.readRaw(table, p.headerLen); err != nil {
		return nil, err
	}
	z.ptrs = make([]uint32, blocks+1)
	prev := uint32(p.headerLen + tableLen)
	for i := range z.ptrs {
		z.ptrs[i] = binary.LittleEndian.Uint32(table[4*i:])
		if z.ptrs[i] < prev || int64(z.ptrs[i]) > rawSize {
			return nil, z.errorf("block pointer %d at byte %d of the file is %d, outside bytes %d to %d", i, p.headerLen+4*int64(i), z.ptrs[i], prev, rawSize)
		}
		prev = z.ptrs[i]
	}
	return z, nil
}

// errorf returns a format error about the zisofs file.
func (z *zisofsFile) errorf(format string, args ...any) error {
	return formatErr("zisofs file at byte %#x: "+format, append([]any{z.at}, args...)...)
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
	want := min(bs, z.p.size-b*bs)
	if z.block == nil {
		z.block = make([]byte, bs)
	}
	z.block = z.block[:want]
	start, end := int64(z.ptrs[b]), int64(z.ptrs[b+1])
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
