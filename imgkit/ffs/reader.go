package ffs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// FS is a read-only view of a UFS1 or UFS2 image as an io/fs.FS. It
// implements fs.ReadDirFS, fs.ReadFileFS, fs.StatFS and fs.ReadLinkFS;
// Open and Stat follow symbolic links inside the image, Lstat and ReadLink
// do not. Inode gives the on-disk facts of a path.
type FS struct {
	r    io.ReaderAt
	size int64
	o    order
	g    geometry
	sb   superblock
}

// Superblock offsets searched, in the order of FreeBSD's SBLOCKSEARCH.
var sblockSearch = []int64{sblockUFS2, sblockUFS1, 0, 262144}

// maxDirSize bounds the bytes of one directory the reader reads at once,
// what a corrupt image can make it allocate (symbolic links followed in one
// lookup are bounded by imgfmt.MaxLinkDepth).
const maxDirSize = 1 << 28

// NewReader reads the superblock of the FFS image in r (size bytes) and returns
// the file system. The image may be UFS1 or UFS2, in either byte order,
// with its superblock at any of the standard offsets.
func NewReader(r io.ReaderAt, size int64) (*FS, error) {
	var firstErr error
	for _, off := range sblockSearch {
		if off+sblockSize > size {
			continue
		}
		f := &FS{r: r, size: size}
		if err := f.readAt(f.sb[:], off); err != nil {
			return nil, fmt.Errorf("ffs: reading superblock at byte %#x: %w", off, err)
		}
		err := f.parse(off)
		if err == nil {
			return f, nil
		}
		if firstErr == nil && !errors.Is(err, errNoMagic) {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return nil, formatErr(-1, "", "no FFS superblock found")
}

var errNoMagic = errors.New("no magic")

// A ReadCloser is an FFS image opened from a file by OpenReader: the FS
// and the file it reads, which Close closes.
type ReadCloser struct {
	FS
	imgfmt.ImageFile
}

// OpenReader opens the file name and reads the FFS image in it, as NewReader
// reads one from an io.ReaderAt; the whole file is the image. The
// ReadCloser must be closed when no longer needed, and the FS and the
// files opened from it are not to be used after that.
func OpenReader(name string) (*ReadCloser, error) {
	rc := new(ReadCloser)
	var err error
	if rc.ImageFile, err = imgfmt.OpenImage(name, rc.FS.init); err != nil {
		return nil, err
	}
	return rc, nil
}

// init reads the image of r into f, for OpenReader.
func (f *FS) init(r io.ReaderAt, size int64) error {
	g, err := NewReader(r, size)
	if err != nil {
		return err
	}
	*f = *g
	return nil
}

// parse checks the superblock read from byte off and fills the geometry.
func (f *FS) parse(off int64) error {
	s := &f.sb
	o, ok := magicOrder(s)
	if !ok {
		return errNoMagic
	}
	f.o = o
	if err := f.parseVersion(off); err != nil {
		return err
	}
	if err := f.parseSizes(off); err != nil {
		return err
	}
	f.parseCounts()
	return f.checkCounts(off)
}

// magicOrder returns the byte order in which fs_magic of s is one of
// the UFS magic numbers, trying little-endian first.
func magicOrder(s *superblock) (order, bool) {
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		switch bo.Uint32(s.fsMagic()) {
		case fsUFS1Magic, fsUFS2Magic:
			return order{bo}, true
		}
	}
	return order{}, false
}

// formatErr returns the *imgfmt.FormatError, wrapping ErrFormat, of a
// structure at byte off (-1: none) whose field (as FreeBSD's ufs/ffs/fs.h
// and ufs/ufs/dinode.h name it, "" for none) is malformed.
func formatErr(off int64, field, format string, args ...any) error {
	return &imgfmt.FormatError{Format: "ffs", Off: off, Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrFormat}
}

// badSuperblock is the error for the superblock field at (a slice of
// f.sb), named field, with the bad value v, in the superblock at byte
// off.
func (f *FS) badSuperblock(off int64, field string, at []byte, v int64) error {
	return formatErr(off+fieldOff(f.sb[:], at), field, "superblock at byte %#x: bad %s %d", off, field, v)
}

// inodeErr is the error for inode in's field name (di_size, di_blocks;
// "" for the inode as a whole, whose first byte it then names).
func (f *FS) inodeErr(in *Inode, name, format string, args ...any) error {
	off := f.g.inodeOff(int64(in.Ino))
	if int64(len(in.raw)) == f.g.dinodeSize() && name != "" {
		var b []byte
		if f.g.version == 1 {
			d := (*dinode1)(in.raw)
			b = map[string][]byte{"di_size": d.diSize(), "di_blocks": d.diBlocks()}[name]
		} else {
			d := (*dinode2)(in.raw)
			b = map[string][]byte{"di_size": d.diSize(), "di_blocks": d.diBlocks()}[name]
		}
		if b != nil {
			off += fieldOff(in.raw, b)
		}
	}
	return formatErr(off, name, format, args...)
}

// parseVersion sets the version from fs_magic and the superblock's
// location, checking fs_sblockloc of a UFS2 superblock against off.
func (f *FS) parseVersion(off int64) error {
	s, o, g := &f.sb, f.o, &f.g
	g.version = 1
	if o.u32(s.fsMagic()) == fsUFS2Magic {
		g.version = 2
		if sl := o.i64(s.fsSblockloc()); sl != off {
			return f.badSuperblock(off, "fs_sblockloc", s.fsSblockloc(), sl)
		}
	} else if off == sblockUFS2 {
		// A UFS1 superblock is never looked for at SBLOCK_UFS2.
		return errNoMagic
	}
	g.sblockloc = off
	return nil
}

// parseSizes reads and checks fs_bsize, fs_fsize and fs_frag, and sets
// the shifts that follow from them.
func (f *FS) parseSizes(off int64) error {
	s, o, g := &f.sb, f.o, &f.g
	g.bsize = int64(o.i32(s.fsBsize()))
	g.fsize = int64(o.i32(s.fsFsize()))
	g.frag = int64(o.i32(s.fsFrag()))
	switch {
	case !powerOf2(g.bsize) || g.bsize < minBSize || g.bsize > maxBSize:
		return f.badSuperblock(off, "fs_bsize", s.fsBsize(), g.bsize)
	case !powerOf2(g.fsize) || g.fsize < 512 || g.fsize > g.bsize:
		return f.badSuperblock(off, "fs_fsize", s.fsFsize(), g.fsize)
	case g.frag != g.bsize/g.fsize || g.frag > maxFrag:
		return f.badSuperblock(off, "fs_frag", s.fsFrag(), g.frag)
	}
	g.bshift, g.fshift, g.fragshift = ilog2(g.bsize), ilog2(g.fsize), ilog2(g.frag)
	return nil
}

// parseCounts reads the block numbers, counts and sizes the reader uses.
func (f *FS) parseCounts() {
	s, o, g := &f.sb, f.o, &f.g
	g.sblkno = int64(o.i32(s.fsSblkno()))
	g.cblkno = int64(o.i32(s.fsCblkno()))
	g.iblkno = int64(o.i32(s.fsIblkno()))
	g.dblkno = int64(o.i32(s.fsDblkno()))
	g.ncg = int64(o.u32(s.fsNcg()))
	g.ipg = int64(o.u32(s.fsIpg()))
	g.fpg = int64(o.u32(s.fsFpg()))
	g.inopb = int64(o.i32(s.fsInopb()))
	g.nindir = int64(o.i32(s.fsNindir()))
	g.maxsymlinklen = int64(o.i32(s.fsMaxsymlinklen()))
	if g.version == 2 {
		g.size = o.i64(s.fsSize())
	} else {
		g.size = int64(o.i32(s.fsOldSize()))
	}
}

// checkCounts checks what parseCounts read against the block and
// fragment sizes and against each other.
func (f *FS) checkCounts(off int64) error {
	s, g := &f.sb, &f.g
	ds := g.dinodeSize()
	size, sizeName := s.fsSize(), "fs_size"
	if g.version == 1 {
		size, sizeName = s.fsOldSize(), "fs_old_size"
	}
	switch {
	case g.inopb != g.bsize/ds:
		return f.badSuperblock(off, "fs_inopb", s.fsInopb(), g.inopb)
	case g.nindir != g.bsize/(ds/32):
		return f.badSuperblock(off, "fs_nindir", s.fsNindir(), g.nindir)
	case g.ncg <= 0 || g.ncg > 1<<24:
		return f.badSuperblock(off, "fs_ncg", s.fsNcg(), g.ncg)
	case g.fpg <= 0 || g.fpg%g.frag != 0 || g.fpg > 1<<31:
		return f.badSuperblock(off, "fs_fpg", s.fsFpg(), g.fpg)
	case g.ipg <= 0 || g.ipg%g.inopb != 0 || g.ipg > 1<<31:
		return f.badSuperblock(off, "fs_ipg", s.fsIpg(), g.ipg)
	case g.size <= 0 || g.size > g.ncg*g.fpg || g.size <= (g.ncg-1)*g.fpg:
		return f.badSuperblock(off, sizeName, size, g.size)
	case g.iblkno < 0 || g.iblkno+g.ipg/(g.inopb/g.frag)*1 > g.fpg:
		return f.badSuperblock(off, "fs_iblkno", s.fsIblkno(), g.iblkno)
	case g.maxsymlinklen < 0 || g.maxsymlinklen > int64(nDAddr+nIAddr)*(ds/32):
		return f.badSuperblock(off, "fs_maxsymlinklen", s.fsMaxsymlinklen(), g.maxsymlinklen)
	}
	return nil
}

// fsBytes returns the file system's size in bytes, fs_size fragments,
// or 0 before the superblock is read.
func (f *FS) fsBytes() int64 { return f.g.size * f.g.fsize }

// Warnings says, when the image ends before the file system does (an
// image cut short), how large the file system is and the image: it is
// listed as far as the image goes, and reading a block past its end fails
// with an error wrapping imgfmt.ErrTruncated. It implements
// describe.Warner.
func (f *FS) Warnings() []string {
	if n := f.fsBytes(); n > f.size {
		return []string{fmt.Sprintf("file system of %d fragments (%d bytes, fs_size) ends past the image's end (%d bytes); listing what is there", f.g.size, n, f.size)}
	}
	return nil
}

// Version returns 1 for UFS1 and 2 for UFS2.
func (f *FS) Version() int { return f.g.version }

// ByteOrder returns the byte order of the image.
func (f *FS) ByteOrder() binary.ByteOrder { return f.o.ByteOrder }

// BlockSize and FragSize return fs_bsize and fs_fsize.
func (f *FS) BlockSize() int { return int(f.g.bsize) }

// FragSize returns fs_fsize.
func (f *FS) FragSize() int { return int(f.g.fsize) }

// readAt reads exactly len(b) bytes at byte offset off of the image. A
// read inside the file system (fs_size) but past the end of an image cut
// short is an *imgfmt.TruncatedError.
func (f *FS) readAt(b []byte, off int64) error {
	if end := off + int64(len(b)); off >= 0 && end > f.size && end <= f.fsBytes() {
		return &imgfmt.TruncatedError{Off: max(off, f.size), End: end, Size: f.size}
	}
	if off < 0 || off+int64(len(b)) > f.size {
		return formatErr(-1, "", "read of %d bytes at byte %#x is outside the image", len(b), off)
	}
	n, err := f.r.ReadAt(b, off)
	switch {
	case n == len(b):
		return nil // io.ReaderAt may say io.EOF with a full read at the end
	case err == nil || err == io.EOF:
		return io.ErrUnexpectedEOF
	}
	return err
}

// Inode is the on-disk record of one inode.
type Inode struct {
	Ino    uint32
	Mode   uint32 // di_mode: type and permission bits
	Nlink  uint16
	UID    uint32
	GID    uint32
	Size   int64
	Blocks int64 // di_blocks (512-byte units)
	Flags  uint32
	Gen    int32
	Rdev   uint64 // di_rdev as stored (FreeBSD's encoding)
	Atime  time.Time
	Mtime  time.Time
	Ctime  time.Time
	// Birthtime is zero for UFS1 and where the image has none.
	Birthtime time.Time
	// Direct and Indirect are di_db and di_ib: fragment addresses.
	Direct   [nDAddr]int64
	Indirect [nIAddr]int64
	// short is di_shortlink, where a short symbolic link's target lies.
	short []byte
	raw   []byte // the inode as read, which Fields describes
}

// IsDir reports whether the inode is a directory.
func (in *Inode) IsDir() bool { return in.Mode&ifmt == ifdir }

// inode reads and decodes inode number ino, checking the number and
// di_size.
func (f *FS) inode(ino int64) (*Inode, error) {
	g := &f.g
	if ino < rootIno || ino >= g.ncg*g.ipg {
		return nil, formatErr(-1, "", "inode number %d out of range", ino)
	}
	ds := g.dinodeSize()
	b := make([]byte, ds)
	off := g.inodeOff(ino)
	if err := f.readAt(b, off); err != nil {
		return nil, err
	}
	in := &Inode{Ino: uint32(ino), raw: b}
	if g.version == 1 {
		in.decode1(f.o, (*dinode1)(b))
	} else {
		in.decode2(f.o, (*dinode2)(b))
	}
	if in.Size < 0 || in.Size > 1<<56 {
		return nil, f.inodeErr(in, "di_size", "inode %d at byte %#x: bad di_size %d", ino, off, in.Size)
	}
	return in, nil
}

// decode1 fills in from the UFS1 inode d.
func (in *Inode) decode1(o order, d *dinode1) {
	in.Mode = uint32(o.u16(d.diMode()))
	in.Nlink = o.u16(d.diNlink())
	in.UID, in.GID = o.u32(d.diUID()), o.u32(d.diGID())
	in.Size = int64(o.u64(d.diSize()))
	in.Blocks = int64(o.u32(d.diBlocks()))
	in.Flags = o.u32(d.diFlags())
	in.Gen = o.i32(d.diGen())
	in.Atime = time.Unix(int64(o.i32(d.diAtime())), int64(o.i32(d.diAtimensec()))).UTC()
	in.Mtime = time.Unix(int64(o.i32(d.diMtime())), int64(o.i32(d.diMtimensec()))).UTC()
	in.Ctime = time.Unix(int64(o.i32(d.diCtime())), int64(o.i32(d.diCtimensec()))).UTC()
	for i := range in.Direct {
		in.Direct[i] = int64(o.i32(d.diDb(i)))
	}
	for i := range in.Indirect {
		in.Indirect[i] = int64(o.i32(d.diIb(i)))
	}
	in.Rdev = uint64(o.u32(d.diRdev()))
	in.short = d.diShortlink()
}

// decode2 fills in from the UFS2 inode d.
func (in *Inode) decode2(o order, d *dinode2) {
	in.Mode = uint32(o.u16(d.diMode()))
	in.Nlink = o.u16(d.diNlink())
	in.UID, in.GID = o.u32(d.diUID()), o.u32(d.diGID())
	in.Size = int64(o.u64(d.diSize()))
	in.Blocks = int64(o.u64(d.diBlocks()))
	in.Flags = o.u32(d.diFlags())
	in.Gen = o.i32(d.diGen())
	in.Atime = time.Unix(o.i64(d.diAtime()), int64(o.i32(d.diAtimensec()))).UTC()
	in.Mtime = time.Unix(o.i64(d.diMtime()), int64(o.i32(d.diMtimensec()))).UTC()
	in.Ctime = time.Unix(o.i64(d.diCtime()), int64(o.i32(d.diCtimensec()))).UTC()
	if bt := o.i64(d.diBirthtime()); bt != 0 || o.i32(d.diBirthnsec()) != 0 {
		in.Birthtime = time.Unix(bt, int64(o.i32(d.diBirthnsec()))).UTC()
	}
	for i := range in.Direct {
		in.Direct[i] = o.i64(d.diDb(i))
	}
	for i := range in.Indirect {
		in.Indirect[i] = o.i64(d.diIb(i))
	}
	in.Rdev = o.u64(d.diRdev())
	in.short = d.diShortlink()
}

// bmap returns the fragment address of logical block lbn of the inode
// (0 for a hole). ind caches indirect blocks by address.
func (f *FS) bmap(in *Inode, lbn int64, ind map[int64][]int64) (int64, error) {
	g := &f.g
	if lbn < nDAddr {
		return in.Direct[lbn], nil
	}
	lbn -= nDAddr
	span := int64(1)
	for level := 0; level < nIAddr; level++ {
		span *= g.nindir
		if lbn >= span {
			lbn -= span
			continue
		}
		addr := in.Indirect[level]
		for l := level; ; l-- {
			if addr == 0 {
				return 0, nil
			}
			span /= g.nindir
			bap, err := f.indirect(addr, ind)
			if err != nil {
				return 0, err
			}
			addr = bap[lbn/span]
			lbn %= span
			if l == 0 {
				return addr, nil
			}
		}
	}
	return 0, f.inodeErr(in, "di_size", "inode %d: block beyond the triple indirect", in.Ino)
}

func (f *FS) indirect(addr int64, cache map[int64][]int64) ([]int64, error) {
	if bap, ok := cache[addr]; ok {
		return bap, nil
	}
	g := &f.g
	if addr < 0 || addr >= g.size {
		return nil, formatErr(-1, "", "indirect block address %d out of range", addr)
	}
	b := make([]byte, g.bsize)
	if err := f.readAt(b, addr*g.fsize); err != nil {
		return nil, err
	}
	bap := make([]int64, g.nindir)
	for i := range bap {
		if g.version == 1 {
			bap[i] = int64(f.o.i32(b[4*i:]))
		} else {
			bap[i] = f.o.i64(b[8*i:])
		}
	}
	if len(cache) > 64 {
		clear(cache)
	}
	cache[addr] = bap
	return bap, nil
}

// readData reads bytes [off, off+len(p)) of the inode's contents.
func (f *FS) readData(in *Inode, p []byte, off int64, ind map[int64][]int64) error {
	g := &f.g
	for len(p) > 0 {
		lbn := off >> g.bshift
		bo := off & (g.bsize - 1)
		n := min(int64(len(p)), g.bsize-bo)
		addr, err := f.bmap(in, lbn, ind)
		if err != nil {
			return err
		}
		if addr == 0 {
			clear(p[:n])
		} else {
			if addr < 0 || addr >= g.size {
				return f.inodeErr(in, "", "inode %d: block address %d out of range", in.Ino, addr)
			}
			if err := f.readAt(p[:n], addr*g.fsize+bo); err != nil {
				return err
			}
		}
		p, off = p[n:], off+n
	}
	return nil
}

// BlockList returns the fragment addresses of the inode's data blocks in
// file order, then those of its indirect blocks, as istat lists them.
func (f *FS) BlockList(in *Inode) (data, indirect []int64, err error) {
	g := &f.g
	ind := map[int64][]int64{}
	nblk := howmany(in.Size, g.bsize)
	if in.Mode&ifmt == iflnk && in.Size < g.maxsymlinklen {
		nblk = 0
	}
	if in.Mode&ifmt == ifchr || in.Mode&ifmt == ifblk {
		nblk = 0
	}
	if nblk > in.Blocks*512/g.fsize+1 {
		return nil, nil, f.inodeErr(in, "di_blocks", "inode %d: size %d needs more blocks than di_blocks %d", in.Ino, in.Size, in.Blocks)
	}
	for lbn := int64(0); lbn < nblk; lbn++ {
		a, err := f.bmap(in, lbn, ind)
		if err != nil {
			return nil, nil, err
		}
		data = append(data, a)
	}
	// Every indirect block is a whole block counted in di_blocks, so a walk
	// that finds more of them than that (plus the di_ib roots) is looping
	// through a corrupt, for example self-referencing, indirect block.
	maxInd := in.Blocks*512/g.bsize + nIAddr
	var walk func(addr int64, level int) error
	walk = func(addr int64, level int) error {
		if addr == 0 {
			return nil
		}
		if int64(len(indirect)) >= maxInd {
			return f.inodeErr(in, "di_blocks", "inode %d: more indirect blocks than di_blocks %d holds", in.Ino, in.Blocks)
		}
		indirect = append(indirect, addr)
		if level == 0 {
			return nil
		}
		bap, err := f.indirect(addr, ind)
		if err != nil {
			return err
		}
		for _, a := range bap {
			if err := walk(a, level-1); err != nil {
				return err
			}
		}
		return nil
	}
	for level, a := range in.Indirect {
		if err := walk(a, level); err != nil {
			return nil, nil, err
		}
	}
	return data, indirect, nil
}

// DirEntry is one entry of an FFS directory as stored.
type DirEntry struct {
	Name string
	Ino  uint32
	Type uint8 // d_type
}

// readDirInode reads and checks the entries of directory inode in,
// without "." and "..".
func (f *FS) readDirInode(in *Inode) ([]DirEntry, error) {
	if in.Size > maxDirSize || in.Size%dirBlkSiz != 0 {
		return nil, f.inodeErr(in, "di_size", "directory inode %d: bad size %d", in.Ino, in.Size)
	}
	b := make([]byte, in.Size)
	if err := f.readData(in, b, 0, map[int64][]int64{}); err != nil {
		return nil, err
	}
	var out []DirEntry
	for blk := 0; blk < len(b); blk += dirBlkSiz {
		for pos := blk; pos < blk+dirBlkSiz; {
			e := b[pos:]
			reclen := int(f.o.u16(dReclen(e)))
			namlen := int(dNamlen(e)[0])
			if reclen < direntHeader || reclen%4 != 0 || pos+reclen > blk+dirBlkSiz || direntSize(namlen) > reclen {
				return nil, formatErr(f.dirByte(in, pos), "d_reclen", "directory inode %d: bad entry at byte %#x of the directory", in.Ino, pos)
			}
			ino := f.o.u32(dIno(e))
			name := string(dName(e)[:namlen])
			at := pos
			pos += reclen
			if ino == 0 || name == "." || name == ".." {
				continue
			}
			if strings.ContainsRune(name, '/') || name == "" || strings.ContainsRune(name, 0) {
				return nil, formatErr(f.dirByte(in, at)+fieldOff(e, dName(e)), "d_name", "directory inode %d: bad name %q", in.Ino, name)
			}
			out = append(out, DirEntry{Name: name, Ino: ino, Type: dType(e)[0]})
		}
	}
	return out, nil
}

// dirByte returns the byte of the image that holds byte pos of directory
// in's contents, or -1 when no block of the image holds it.
func (f *FS) dirByte(in *Inode, pos int) int64 {
	g := &f.g
	addr, err := f.bmap(in, int64(pos)>>g.bshift, map[int64][]int64{})
	if err != nil || addr <= 0 || addr >= g.size {
		return -1
	}
	return addr*g.fsize + int64(pos)&(g.bsize-1)
}

// lookup resolves name to its inode, following symbolic links in every
// element, and in the last one only if follow is set.
func (f *FS) lookup(op, name string, follow bool) (*Inode, error) {
	t := imgfmt.Tree[*Inode]{Root: f.rootInode, Child: f.child, IsLink: isLink, ReadLink: f.readlink}
	return t.Lookup(op, name, follow)
}

// rootInode returns the inode of the root directory.
func (f *FS) rootInode() (*Inode, error) { return f.inode(rootIno) }

// child returns the inode of the entry name of directory dir.
func (f *FS) child(dir *Inode, name string) (*Inode, error) {
	if !dir.IsDir() {
		return nil, fs.ErrNotExist
	}
	ents, err := f.readDirInode(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if e.Name == name {
			return f.inode(int64(e.Ino))
		}
	}
	return nil, fs.ErrNotExist
}

// isLink reports whether in is a symbolic link.
func isLink(in *Inode) bool { return in.Mode&ifmt == iflnk }

func (f *FS) readlink(in *Inode) (string, error) {
	if in.Size < f.g.maxsymlinklen {
		if in.Size > int64(len(in.short)) {
			return "", f.inodeErr(in, "di_size", "inode %d: bad symbolic link size", in.Ino)
		}
		return string(in.short[:in.Size]), nil
	}
	if in.Size > 1<<16 {
		return "", f.inodeErr(in, "di_size", "inode %d: symbolic link too long", in.Ino)
	}
	b := make([]byte, in.Size)
	if err := f.readData(in, b, 0, map[int64][]int64{}); err != nil {
		return "", err
	}
	return string(b), nil
}

// Inode returns the inode of name, not following a final symbolic link.
func (f *FS) Inode(name string) (*Inode, error) { return f.lookup("inode", name, false) }

// ReadLink returns the target of the symbolic link name.
func (f *FS) ReadLink(name string) (string, error) {
	in, err := f.lookup("readlink", name, false)
	if err != nil {
		return "", err
	}
	if in.Mode&ifmt != iflnk {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	t, err := f.readlink(in)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return t, nil
}

// Lstat returns the FileInfo of name without following a final symbolic link.
func (f *FS) Lstat(name string) (fs.FileInfo, error) {
	in, err := f.lookup("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return &fileInfo{name: path.Base(name), in: in}, nil
}

// Stat returns the FileInfo of name.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	in, err := f.lookup("stat", name, true)
	if err != nil {
		return nil, err
	}
	return &fileInfo{name: path.Base(name), in: in}, nil
}

// ReadFile returns the contents of the regular file name.
func (f *FS) ReadFile(name string) ([]byte, error) {
	in, err := f.lookup("readfile", name, true)
	if err != nil {
		return nil, err
	}
	if in.IsDir() {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: errors.New("is a directory")}
	}
	if in.Mode&ifmt != ifreg {
		return []byte{}, nil // devices, fifos and sockets read as empty, as Open+Read does
	}
	if in.Size > f.size*int64(f.g.nindir) {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: f.inodeErr(in, "di_size", "size %d", in.Size)}
	}
	b := make([]byte, in.Size)
	if err := f.readData(in, b, 0, map[int64][]int64{}); err != nil {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: err}
	}
	return b, nil
}

// ReadDir returns the entries of directory name sorted by name.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	in, err := f.lookup("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if !in.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	ents, err := f.readDirInode(in)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	out := make([]fs.DirEntry, 0, len(ents))
	for _, e := range ents {
		cin, err := f.inode(int64(e.Ino))
		if err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
		}
		out = append(out, fs.FileInfoToDirEntry(&fileInfo{name: e.Name, in: cin}))
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// Open opens name for reading.
func (f *FS) Open(name string) (fs.File, error) {
	in, err := f.lookup("open", name, true)
	if err != nil {
		return nil, err
	}
	fi := &fileInfo{name: path.Base(name), in: in}
	if in.IsDir() {
		ents, err := f.ReadDir(name)
		if err != nil {
			return nil, err
		}
		return &dir{DirReader: imgfmt.NewDirReader(fi.name, ents), fi: fi}, nil
	}
	x := &file{f: f, fi: fi, ind: map[int64][]int64{}}
	x.FileReader = imgfmt.NewFileReader(fi.name, dataSize(in), x.readAt)
	return x, nil
}

// dataSize is how many bytes an open file of in reads: a regular file's
// or a symbolic link's size (whose read fails), and none for a device,
// FIFO or socket.
func dataSize(in *Inode) int64 {
	switch in.Mode & ifmt {
	case ifreg, iflnk:
		return in.Size
	}
	return 0
}

// fileInfo is the fs.FileInfo of an inode.
type fileInfo struct {
	name string
	in   *Inode
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.in.Size }
func (fi *fileInfo) ModTime() time.Time { return fi.in.Mtime }
func (fi *fileInfo) IsDir() bool        { return fi.in.IsDir() }
func (fi *fileInfo) Sys() any           { return fi.in }
func (fi *fileInfo) Mode() fs.FileMode {
	return fstree.FileMode(fstree.TypeOfUnixMode(fi.in.Mode), fi.in.Mode)
}

// file is an open non-directory; its FileReader reads the data of a
// regular file or a symbolic link's target.
type file struct {
	imgfmt.FileReader
	f   *FS
	fi  *fileInfo
	ind map[int64][]int64
}

func (x *file) Stat() (fs.FileInfo, error) { return x.fi, nil }

// readAt reads the file's data at off for its FileReader. A symbolic link
// is not read through its file: os.Open follows it, and an fs.File of one
// has no bytes of its own.
func (x *file) readAt(p []byte, off int64) (int, error) {
	if x.fi.in.Mode&ifmt == iflnk {
		return 0, errSymlinkRead
	}
	if err := x.f.readData(x.fi.in, p, off, x.ind); err != nil {
		return 0, err
	}
	return len(p), nil
}

// errSymlinkRead is the error of reading an open symbolic link.
var errSymlinkRead = errors.New("is a symbolic link")

// dir is an open directory; its DirReader lists its entries sorted by
// name.
type dir struct {
	imgfmt.DirReader
	fi *fileInfo
}

func (d *dir) Stat() (fs.FileInfo, error) { return d.fi, nil }
