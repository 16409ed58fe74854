package cpio

import (
	"fmt"
	"io"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// A Header is one archive entry's header, its fields as cpio(5) names
// them. Name is the path stored (c_name, without its NUL); for a symbolic
// link the target is the entry's data, Size bytes.
type Header struct {
	Name                 string
	Ino                  uint64 // c_ino
	Mode                 uint32 // c_mode: the type (ModeType) and permission bits (07777)
	UID, GID             uint32 // c_uid, c_gid
	Nlink                uint32 // c_nlink
	Mtime                int64  // c_mtime, seconds since the epoch
	Size                 int64  // c_filesize
	DevMajor, DevMinor   uint32 // c_devmajor, c_devminor (odc: c_dev)
	RdevMajor, RdevMinor uint32 // c_rdevmajor, c_rdevminor (odc: c_rdev)
	Check                uint32 // c_check: the sum of the data bytes (crc)
}

// Options control how an archive is written. The zero value writes what
// "cpio -o -H newc --reproducible" writes, in 512-byte blocks.
type Options struct {
	Format Format
	// BlockSize is the size, in bytes, of the blocks the archive is
	// padded to with NULs (GNU cpio's -C; -B is 5120, --block-size=N is
	// N*512); 0 means 512.
	BlockSize int64
	// Dir is the folder the names given to Writer.AddFile are taken from
	// when they are relative (cpio -D); "" is the working folder.
	Dir string
	// Dereference stores what symbolic links given to Writer.AddFile
	// point at instead of the links (cpio -L).
	Dereference bool
	// HostInodes stores the host's inode numbers of the files given to
	// Writer.AddFile, as cpio does without --renumber-inodes; the default
	// numbers the entries from 0 in the order of the list, hard links
	// sharing one number, as cpio --reproducible does.
	HostInodes bool
	// HostDevices stores the device numbers of the file systems the files
	// given to Writer.AddFile are on, as cpio does without --ignore-devno;
	// the default stores 0.
	HostDevices bool
	// UID and GID, when not nil, are the owner and group of every entry
	// (cpio -R).
	UID, GID *uint32
	// Timestamp, when not the zero time, is the modification time of every
	// entry; with ClampTimes it is an upper bound, the rule of
	// SOURCE_DATE_EPOCH. GNU cpio has no such option.
	Timestamp  time.Time
	ClampTimes bool
	// Cache holds the block cache's options (imgkit/bcache) for the file
	// WriteFile writes; nil means the defaults.
	Cache *bcache.Options
}

// blockSize returns the block size the options ask for.
func (o *Options) blockSize() (int64, error) {
	switch {
	case o.BlockSize == 0:
		return defaultBlock, nil
	case o.BlockSize < 0 || o.BlockSize > 1<<30:
		return 0, fmt.Errorf("%w: %d bytes", ErrBlockSize, o.BlockSize)
	}
	return o.BlockSize, nil
}

// mtime applies the time rule of o to t.
func (o *Options) mtime(t time.Time) int64 {
	switch {
	case o.Timestamp.IsZero():
	case !o.ClampTimes || t.After(o.Timestamp):
		return o.Timestamp.Unix()
	}
	return t.Unix()
}

// owner applies -R to uid and gid.
func (o *Options) owner(uid, gid uint32) (uint32, uint32) {
	if o.UID != nil {
		uid = *o.UID
	}
	if o.GID != nil {
		gid = *o.GID
	}
	return uid, gid
}

// headerLen is the size of the header and name of h in format f, with the
// padding that follows them.
func headerLen(f Format, name string) int64 {
	n := int64(len(name)) + 1
	if f == FormatODC {
		return odcLen + n
	}
	return newcLen + n + pad4(newcLen+n)
}

// dataPad is the padding after size bytes of data in format f.
func dataPad(f Format, size int64) int64 {
	if f == FormatODC {
		return 0
	}
	return pad4(size)
}

// encode returns the header of h in format f with its name and padding,
// as GNU cpio writes them: values too wide for c_ino, c_mode, c_uid,
// c_gid, c_nlink and c_mtime (c_dev and c_rdev of odc) keep their low
// digits, as cpio truncates them; a c_filesize, c_namesize or device
// number that does not fit is an error wrapping ErrFieldRange.
func encode(f Format, h *Header) ([]byte, error) {
	if h.Size < 0 {
		return nil, fmt.Errorf("%w: %s: negative size %d", ErrFieldRange, h.Name, h.Size)
	}
	nameSize := uint64(len(h.Name)) + 1
	out := make([]byte, headerLen(f, h.Name))
	tooWide := func(field string, v uint64) error {
		return fmt.Errorf("%w: %s: %s %d", ErrFieldRange, h.Name, field, v)
	}
	if f == FormatODC {
		var oh odcHeader
		copy(oh.cMagic(), magicODC)
		putOct(oh.cDev(), makedev(h.DevMajor, h.DevMinor))
		putOct(oh.cIno(), h.Ino)
		putOct(oh.cMode(), uint64(h.Mode))
		putOct(oh.cUID(), uint64(h.UID))
		putOct(oh.cGID(), uint64(h.GID))
		putOct(oh.cNlink(), uint64(h.Nlink))
		putOct(oh.cRdev(), makedev(h.RdevMajor, h.RdevMinor))
		putOct(oh.cMtime(), uint64(h.Mtime))
		if !putOct(oh.cNamesize(), nameSize) {
			return nil, tooWide("name size", nameSize)
		}
		if !putOct(oh.cFilesize(), uint64(h.Size)) {
			return nil, tooWide("file size", uint64(h.Size))
		}
		copy(out, oh[:])
		copy(out[odcLen:], h.Name)
		return out, nil
	}
	var nh newcHeader
	if f == FormatCRC {
		copy(nh.cMagic(), magicCRC)
	} else {
		copy(nh.cMagic(), magicNewc)
	}
	putHex(nh.cIno(), h.Ino)
	putHex(nh.cMode(), uint64(h.Mode))
	putHex(nh.cUID(), uint64(h.UID))
	putHex(nh.cGID(), uint64(h.GID))
	putHex(nh.cNlink(), uint64(h.Nlink))
	putHex(nh.cMtime(), uint64(h.Mtime))
	for _, fld := range []struct {
		b    []byte
		v    uint64
		what string
	}{
		{nh.cFilesize(), uint64(h.Size), "file size"},
		{nh.cDevmajor(), uint64(h.DevMajor), "device major number"},
		{nh.cDevminor(), uint64(h.DevMinor), "device minor number"},
		{nh.cRdevmajor(), uint64(h.RdevMajor), "rdev major"},
		{nh.cRdevminor(), uint64(h.RdevMinor), "rdev minor"},
		{nh.cNamesize(), nameSize, "name size"},
	} {
		if !putHex(fld.b, fld.v) {
			return nil, tooWide(fld.what, fld.v)
		}
	}
	putHex(nh.cCheck(), uint64(h.Check))
	copy(out, nh[:])
	copy(out[newcLen:], h.Name)
	return out, nil
}

// makedev is glibc's encoding of a device number, which GNU cpio stores
// in odc's c_dev and c_rdev.
func makedev(major, minor uint32) uint64 {
	return uint64(major&0xfff)<<8 | uint64(major&^0xfff)<<32 |
		uint64(minor&0xff) | uint64(minor&^0xff)<<12
}

// trailer returns the header of the entry that ends an archive, as GNU
// cpio writes it: the name "TRAILER!!!", c_nlink 1, every other field 0.
func trailer() *Header { return &Header{Name: trailerName, Nlink: 1} }

// A Writer writes an archive to an io.Writer in one pass. WriteHeader and
// Write write entries as given, as archive/tar's Writer does; AddFile
// reads a file as "cpio -o" reads a name of its list, numbering inodes and
// holding back hard links as GNU cpio does. Close writes what AddFile
// still holds, the trailer and the padding of the last block. Errors are
// sticky: after one, every call returns it.
type Writer struct {
	w         io.Writer
	opts      Options
	block     int64
	n         int64 // bytes written
	remaining int64 // data bytes of the current entry not yet written
	pad       int64 // padding after them
	err       error
	closed    bool
	list      *lister
}

// NewWriter returns a Writer of an archive to w (nil opts: the zero
// Options).
func NewWriter(w io.Writer, opts *Options) *Writer {
	cw := &Writer{w: w}
	if opts != nil {
		cw.opts = *opts
	}
	cw.block, cw.err = cw.opts.blockSize()
	if cw.opts.Format < FormatNewc || cw.opts.Format > FormatODC {
		cw.err = fmt.Errorf("%w: %v", ErrUnsupportedFormat, cw.opts.Format)
	}
	cw.list = newLister(&cw.opts, cw.emit)
	return cw
}

// Size returns the number of bytes written so far.
func (cw *Writer) Size() int64 { return cw.n }

func (cw *Writer) write(b []byte) error {
	if cw.err != nil {
		return cw.err
	}
	m, err := cw.w.Write(b)
	cw.n += int64(m)
	if err == nil && m < len(b) {
		err = io.ErrShortWrite
	}
	cw.err = err
	return err
}

// finish writes the padding of the current entry, or fails when its data
// is short.
func (cw *Writer) finish() error {
	if cw.err != nil {
		return cw.err
	}
	if cw.remaining > 0 {
		cw.err = fmt.Errorf("%w: %d bytes missing", ErrShortWrite, cw.remaining)
		return cw.err
	}
	if cw.pad > 0 {
		var z [4]byte
		p := cw.pad
		cw.pad = 0
		return cw.write(z[:p])
	}
	return nil
}

// WriteHeader writes h, ending the entry before it; the entry's Size
// bytes of data follow with Write. Its fields are stored as given, and its
// name as given (GNU cpio strips a leading "./", which AddFile does).
func (cw *Writer) WriteHeader(h *Header) error {
	if cw.closed {
		return ErrWriteAfterClose
	}
	if err := cw.finish(); err != nil {
		return err
	}
	b, err := encode(cw.opts.Format, h)
	if err != nil {
		cw.err = err
		return err
	}
	if err := cw.write(b); err != nil {
		return err
	}
	cw.remaining, cw.pad = h.Size, dataPad(cw.opts.Format, h.Size)
	return nil
}

// Write writes data of the current entry; more than its header's Size is
// ErrWriteTooLong.
func (cw *Writer) Write(p []byte) (int, error) {
	if cw.closed {
		return 0, ErrWriteAfterClose
	}
	if cw.err != nil {
		return 0, cw.err
	}
	if int64(len(p)) > cw.remaining {
		return 0, ErrWriteTooLong
	}
	m, err := cw.w.Write(p)
	cw.n += int64(m)
	cw.remaining -= int64(m)
	if err != nil {
		cw.err = err
	}
	return m, err
}

// AddFile writes the file name (taken from Options.Dir when relative), as
// "cpio -o" writes a name of its list: its lstat (stat with Dereference),
// the name without leading "./", a symbolic link's target without them
// either. A regular file with other links is held back until its last
// link is added (newc and crc), and then all are written, the data with
// the last; Close writes the links of a set that never completes, as GNU
// cpio does.
func (cw *Writer) AddFile(name string) error {
	if cw.closed {
		return ErrWriteAfterClose
	}
	if cw.err != nil {
		return cw.err
	}
	r, err := cw.list.stat(name)
	if err != nil {
		return err
	}
	return cw.list.add(r)
}

// emit writes one record that the lister decided on.
func (cw *Writer) emit(r *record) error {
	if cw.opts.Format == FormatCRC && r.h.Size > 0 && r.open != nil {
		sum, err := r.checksum()
		if err != nil {
			cw.err = err
			return err
		}
		r.h.Check = sum
	}
	if err := cw.WriteHeader(&r.h); err != nil {
		return err
	}
	if r.h.Size == 0 {
		return nil
	}
	if r.data != nil {
		_, err := cw.Write(r.data)
		return err
	}
	rc, err := r.open()
	if err != nil {
		cw.err = err
		return err
	}
	defer rc.Close()
	if _, err := io.CopyN(struct{ io.Writer }{cw}, rc, r.h.Size); err != nil {
		if err == io.EOF {
			err = fmt.Errorf("%w: %s", ErrShortWrite, r.h.Name)
		}
		if cw.err == nil {
			cw.err = err
		}
		return err
	}
	return nil
}

// Close writes the hard links AddFile still holds, the trailer and NULs to
// the end of the last block. It does not close the underlying writer.
func (cw *Writer) Close() error {
	if cw.closed {
		return cw.err
	}
	if err := cw.list.final(); err != nil {
		return err
	}
	if err := cw.WriteHeader(trailer()); err != nil {
		return err
	}
	if err := cw.finish(); err != nil {
		return err
	}
	cw.closed = true
	if rest := roundUp(cw.n, cw.block) - cw.n; rest > 0 {
		return cw.write(make([]byte, rest))
	}
	return nil
}

// roundUp rounds n up to a multiple of b.
func roundUp(n, b int64) int64 { return (n + b - 1) / b * b }
