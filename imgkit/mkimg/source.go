package mkimg

import (
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"hash"
	"io"
	"io/fs"
	"os"
	"sync/atomic"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/ext"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// A Source gives the bytes of a partition (Partition.Source): a host file
// (FileSource), an io.ReaderAt (ReaderSource), or a writer that makes them
// in place on the disk (BuilderSource, and MSDOSSource, FFSSource and
// ExtSource for the file systems of imgkit/msdos, imgkit/ffs and
// imgkit/ext). The partition is as
// large as the source, rounded up to whole sectors. A source's size must
// be known before any byte is written, since every partition after it,
// and the disk's size, depend on it.
//
// The derived GUIDs (see DETAILS.md) hash a partition's
// bytes, whatever gives them, so the same bytes make the same disk from
// any kind of source. A builder's source (BuilderSource, MSDOSSource,
// FFSSource, ExtSource) asks its size once and keeps it, and serves one disk at a
// time.
type Source interface {
	// Size returns how many bytes the source gives.
	Size() (int64, error)
	// String names the source in error messages: a file's path, or
	// the name given to the source.
	String() string
	// copyTo writes the source's n bytes (its Size) into im from byte
	// off on and, when h is not nil, adds them to h in order.
	copyTo(im *bcache.Image, off, n int64, h hash.Hash) error
}

// ErrSourceChanged reports a source that did not give what its Size
// said: a file that shrank or was replaced while the disk was written, a
// reader that ended early, or a builder that wrote past its size or
// returned another.
var ErrSourceChanged = vdisk.ErrSourceChanged

// diskCache is the block cache's options for a disk: partition files are
// copied with copy_file_range(2), in the kernel, where they cannot be
// shared (cloned); bcache's default reads them into a buffer and writes
// that, which costs a user-space copy of every byte.
var diskCache = &bcache.Options{Bulk: bcache.BulkCopyFileRange}

// hashBuf is the size of the reads that hash a source apart from its copy.
const hashBuf = 1 << 20

// FileSource returns the Source of the host file path, what TYPE:=FILE
// names on mkimg's command line (and Partition.File). Its bytes go to the
// disk through the block cache's file path: on XFS and btrfs the whole
// blocks are shared with the file (FICLONERANGE), elsewhere they are
// copied in the kernel (copy_file_range(2)), and its holes stay holes.
// When the GUIDs are derived the file is also read, alongside the copy,
// to hash it.
func FileSource(path string) Source { return fileSource(path) }

type fileSource string

func (f fileSource) String() string { return string(f) }

func (f fileSource) Size() (int64, error) {
	fi, err := os.Stat(string(f))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", f, bareError(err))
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("%s is not a regular file", f)
	}
	return fi.Size(), nil
}

// copyTo copies the file into im with CopyFrom and, when h is not nil,
// hashes it at the same time from a second goroutine through a file of
// its own, whose offset the search for holes moves.
func (f fileSource) copyTo(im *bcache.Image, off, n int64, h hash.Hash) error {
	fd, err := os.Open(string(f))
	if err != nil {
		return err
	}
	defer fd.Close()
	fi, err := fd.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < n {
		return fmt.Errorf("%w: shrank from %d to %d bytes before being read", ErrSourceChanged, n, fi.Size())
	}
	hashed := make(chan error, 1)
	var stop atomic.Bool
	if h != nil {
		go func() { hashed <- hashFile(h, string(f), fi, n, &stop) }()
	} else {
		hashed <- nil
	}
	err = im.CopyFrom(off, fd, n)
	stop.Store(err != nil)
	if herr := <-hashed; err == nil {
		err = herr
	}
	if errors.Is(err, bcache.ErrShortSrc) {
		err = fmt.Errorf("%w: shrank below %d bytes while being read", ErrSourceChanged, n)
	}
	return err
}

// hashFile adds the first n bytes of the file path, which must still be
// the file copied (copied), to h. Only its data is read: its holes are
// added as the zeros they hold without reading them, which would fill
// the page cache with zeros (a sparse file of 8 GiB cost 20 s of system
// time that way), and the content digest takes whole blocks of them
// without hashing them byte by byte. It gives up when stop is set: the
// copy failed.
func hashFile(h hash.Hash, path string, copied fs.FileInfo, n int64, stop *atomic.Bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, copied) {
		return fmt.Errorf("%w: replaced while being read", ErrSourceChanged)
	}
	return hashData(h, f, 0, n, stop)
}

// hashData adds the bytes of f from pos to end to h: its data read, its
// holes added as zeros unread. It gives up when stop (nil for never) is
// set.
func hashData(h hash.Hash, f *os.File, pos, end int64, stop *atomic.Bool) error {
	buf := make([]byte, min(hashBuf, max(end-pos, 0)))
	for pos < end && (stop == nil || !stop.Load()) {
		lo, hi := dataRun(f, pos, end)
		if lo > pos {
			diskio.AddZeros(h, lo-pos)
			pos = lo
		}
		for pos < hi {
			m, err := f.ReadAt(buf[:min(hashBuf, hi-pos)], pos)
			h.Write(buf[:m])
			pos += int64(m)
			if err == io.EOF {
				return fmt.Errorf("%w: shrank below %d bytes while being read", ErrSourceChanged, end)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// ReaderSource returns the Source of the size bytes of r from offset 0.
// They are read once, through the block cache's buffer, and hashed as
// they are read. A file is better given as FileSource, whose copy the
// kernel makes.
func ReaderSource(r io.ReaderAt, size int64) Source { return &readerSource{r: r, size: size} }

type readerSource struct {
	r    io.ReaderAt
	size int64
}

func (s *readerSource) String() string { return "io.ReaderAt source" }

func (s *readerSource) Size() (int64, error) {
	if s.r == nil {
		return 0, errors.New("nil io.ReaderAt")
	}
	if s.size < 0 {
		return 0, fmt.Errorf("negative size %d", s.size)
	}
	return s.size, nil
}

func (s *readerSource) copyTo(im *bcache.Image, off, n int64, h hash.Hash) error {
	var r io.Reader = io.NewSectionReader(s.r, 0, n)
	if h != nil {
		r = io.TeeReader(r, h)
	}
	err := im.CopyFrom(off, r, n)
	if errors.Is(err, bcache.ErrShortSrc) {
		err = fmt.Errorf("%w: the reader ended before %d bytes", ErrSourceChanged, n)
	}
	return err
}

// BuilderSource returns the Source that write makes in place: write gets
// an io.WriterAt whose offset 0 is the partition's first byte on the disk
// (in the block cache's image), may write anywhere in [0, size), and
// returns how many bytes the partition holds, which must be size. This
// is the shape of msdos.Write, ffs.Write and cd9660.Write bound to their
// source tree and options, so that a file system goes into the disk
// without an intermediate file. name names the source in errors.
//
// The io.WriterAt is a bcache.InPlaceCreator: msdos.Write, ffs.Write and
// cd9660.Write given it build their image in place, in the disk's block
// cache, so that what the file system leaves zero is never written (it
// stays a hole of the disk file) and memory does not grow with the
// partition.
//
// When the GUIDs are derived the partition's bytes are hashed as write
// gives them if it writes them in order from offset 0 through WriteAt,
// and otherwise (out of order, or built in place) read back from the disk
// afterwards, its ranges never written hashed as the zeros they hold
// without being read.
func BuilderSource(name string, size int64, write func(w io.WriterAt) (int64, error)) Source {
	return &builderSource{name: name, size: func() (int64, error) { return size, nil }, write: write}
}

type builderSource struct {
	name  string
	size  func() (int64, error)
	write func(w io.WriterAt) (int64, error)
	known int64 // the size, once asked
	asked bool
}

func (b *builderSource) String() string { return b.name }

func (b *builderSource) Size() (int64, error) {
	if b.asked {
		return b.known, nil
	}
	n, err := b.size()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, fmt.Errorf("negative size %d", n)
	}
	b.known, b.asked = n, true
	return n, nil
}

func (b *builderSource) copyTo(im *bcache.Image, off, n int64, h hash.Hash) error {
	pw := &partWriter{im: im, off: off, n: n, h: h}
	got, err := b.write(pw)
	if err != nil {
		return err
	}
	if pw.err != nil {
		return pw.err
	}
	if got != n {
		return fmt.Errorf("%w: wrote a partition of %d bytes; its size was %d", ErrSourceChanged, got, n)
	}
	if h != nil && (pw.unordered || pw.next != n) {
		h.Reset()
		return hashImage(h, im, off, n)
	}
	return nil
}

// partWriter is the io.WriterAt a builder writes its partition through:
// offsets relative to the partition's start, writes past its end refused,
// and the bytes hashed while they come in order. It is also a
// bcache.InPlaceCreator, for the image writers of this module.
type partWriter struct {
	im        *bcache.Image
	off, n    int64
	h         hash.Hash // nil when no hash is wanted
	next      int64     // the offset up to which h holds the bytes
	unordered bool      // a write did not start at next: h is incomplete
	err       error     // the first write refused
}

func (w *partWriter) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off > w.n || int64(len(p)) > w.n-off {
		err := fmt.Errorf("%w: a write of %d bytes at offset %d is past the partition's %d bytes", ErrSourceChanged, len(p), off, w.n)
		if w.err == nil {
			w.err = err
		}
		return 0, err
	}
	m, err := w.im.WriteAt(p, w.off+off)
	if w.h != nil && !w.unordered {
		if off == w.next {
			w.h.Write(p[:m])
			w.next += int64(m)
		} else {
			w.unordered = true
		}
	}
	return m, err
}

// CreateInPlace gives a format writer (msdos.Write and the others, through
// bcache.CreateWriterAt) an image of size bytes that is the partition's
// first bytes on the disk: the file system is built in place, and hashed
// afterwards. A size past the partition's is a source that changed.
func (w *partWriter) CreateInPlace(size int64) (*bcache.Image, error) {
	if size > w.n {
		err := fmt.Errorf("%w: an image of %d bytes is larger than the partition's %d", ErrSourceChanged, size, w.n)
		if w.err == nil {
			w.err = err
		}
		return nil, err
	}
	w.unordered = true // its bytes do not pass through WriteAt
	return w.im.Section(w.off, w.n).CreateInPlace(size)
}

// hashImage adds the n bytes of im from off to h: the ranges that may
// hold data (bcache's DataRun) read back with pread, a buffer at a time,
// and the rest, never written, added as the zeros it holds without being
// read or mapped. Reading every block through the cache cost a 2 GiB ESP
// holding one small file 2 GiB of resident memory.
func hashImage(h hash.Hash, im *bcache.Image, off, n int64) error {
	buf := make([]byte, min(hashBuf, n))
	end := off + n
	for pos := off; pos < end; {
		lo, hi := im.DataRun(pos, end)
		if lo > pos {
			diskio.AddZeros(h, lo-pos)
			pos = lo
		}
		for pos < hi {
			m, err := im.ReadAt(buf[:min(hashBuf, hi-pos)], pos)
			if err != nil {
				return err
			}
			h.Write(buf[:m])
			pos += int64(m)
		}
	}
	return nil
}

// MSDOSSource returns the Source of the FAT file system msdos.Write makes
// of src with opts, written into the disk in place; its size is
// msdos.LayoutOf's, known before it is written. An EFI system partition
// of 33 MiB, the least FAT32 holds (65525 clusters of one sector; with
// no Size the default clusters make it 2 GiB), from an fstest.MapFS is
//
//	mkimg.MSDOSSource(fstree.FS(fsys), &msdos.Options{FATType: 32, Size: 33 << 20, SectorsPerCluster: 1})
func MSDOSSource(src fstree.Source, opts *msdos.Options) Source {
	return &builderSource{
		name: "msdos file system",
		size: func() (int64, error) {
			l, err := msdos.LayoutOf(src, opts)
			if err != nil {
				return 0, err
			}
			return l.ImageSize, nil
		},
		write: func(w io.WriterAt) (int64, error) { return msdos.Write(w, src, opts) },
	}
}

// FFSSource returns the Source of the FFS (UFS) file system ffs.Write
// makes of src with opts. With opts.Size set (makefs -s) the partition is
// opts.Offset+opts.Size bytes and the file system is written into the disk
// in place; without it its size is only known once it is made, so Size
// builds it in memory (ffs.Build) and the copy writes those bytes, which
// are then dropped (a second disk from the source builds it again).
func FFSSource(src fstree.Source, opts *ffs.Options) Source {
	if opts != nil && opts.Size > 0 {
		return &builderSource{
			name:  "ffs file system",
			size:  func() (int64, error) { return opts.Offset + opts.Size, nil },
			write: func(w io.WriterAt) (int64, error) { return ffs.Write(w, src, opts) },
		}
	}
	var built []byte
	return &builderSource{
		name: "ffs file system",
		size: func() (int64, error) {
			b, err := ffs.Build(src, opts)
			built = b
			return int64(len(b)), err
		},
		write: func(w io.WriterAt) (int64, error) {
			if built == nil { // a second disk from the same source
				b, err := ffs.Build(src, opts)
				if err != nil {
					return 0, err
				}
				built = b
			}
			n, err := w.WriteAt(built, 0)
			built = nil
			return int64(n), err
		},
	}
}

// ExtSource returns the Source of the ext2 or ext3 file system ext.Write
// makes of src with opts (mke2fs -d's bytes; see imgkit/ext), written
// into the disk in place. Its size is opts.Size, which ext requires, so
// it is known before anything is written; the file system is laid out
// when the disk reaches the partition, and an option ext refuses fails
// the disk there. A root file system of 64 MiB for an x86-64 GPT disk is
//
//	{Type: "linux-root-x86-64", Source: mkimg.ExtSource(fstree.FS(root), &ext.Options{Type: "ext3", Size: 64 << 20})}
func ExtSource(src fstree.Source, opts *ext.Options) Source {
	return &builderSource{
		name: "ext file system",
		size: func() (int64, error) {
			if opts == nil || opts.Size <= 0 {
				return 0, fmt.Errorf("%w: Size must be given (bytes of the partition)", ext.ErrOption)
			}
			return opts.Size, nil
		},
		write: func(w io.WriterAt) (int64, error) { return ext.Write(w, src, opts) },
	}
}
