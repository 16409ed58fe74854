package bcache

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"github.com/fixturegen/fixturegen/imgkit/internal/nbopen"
	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// Errors returned by the block cache.
var (
	ErrRange    = errors.New("bcache: range outside the image")
	ErrMode     = errors.New("bcache: unknown cache mode")
	ErrNoMmap   = errors.New("bcache: mmap mode is not available for this image")
	ErrOverlap  = errors.New("bcache: block overlaps a held buffer")
	ErrNotHeld  = errors.New("bcache: buffer is not held by this image")
	ErrShrink   = errors.New("bcache: Grow cannot shrink a buffer")
	ErrHeld     = errors.New("bcache: buffers still held at commit")
	ErrClosed   = errors.New("bcache: image already committed or aborted")
	ErrShortSrc = errors.New("bcache: source shorter than the requested copy")
	ErrNotFile  = errors.New("the image's path is a directory")
	// ErrNotWritable is the error, after the path, of an output that is
	// neither a regular file, a device nor a named pipe: a socket.
	ErrNotWritable = errors.New("not a file, device or named pipe")
	ErrTooLarge    = errors.New("bcache: image too large to hold in memory")
	ErrTampered    = errors.New("the image's temporary file was changed by another process")
)

// Bulk selects how CopyFrom moves file contents into the image.
type Bulk int

const (
	// BulkAuto uses the path the package benchmarks found fastest on each
	// system (DETAILS.md says which; BENCHMARKS.md has the numbers).
	BulkAuto Bulk = iota
	// BulkRead reads the source with read(2): straight into the mapped bytes
	// in mmap mode, into a heap buffer that is then written with pwrite(2)
	// in copy mode.
	BulkRead
	// BulkCopyFileRange uses copy_file_range(2) from the source file into the
	// image file when the source is an *os.File and the system has the call
	// (Linux); otherwise it behaves as BulkRead.
	BulkCopyFileRange
	// BulkPwrite reads the source into a heap buffer and writes it with
	// pwrite(2), in both modes.
	BulkPwrite
	// BulkMapSource maps the source read-only and writes it into the image
	// with pwrite(2) straight from that mapping: one copy and no read(2). It
	// needs an *os.File on a regular file and a system with mmap; otherwise
	// it behaves as BulkPwrite.
	BulkMapSource
)

// Options configure Create, CreateMemory and CreateWriterAt. The zero value
// (or a nil *Options) is the default: ModeAuto, no fsync, mode 0o644. All
// its fields but Progress only make sense for an image file; CreateMemory
// and CreateWriterAt ignore them.
type Options struct {
	// Mode chooses the cache mode; see Mode. The memory targets ignore it
	// (and FIXTUREGEN_CACHE): their mode is ModeMemory.
	Mode Mode
	// Sync makes Commit flush the image to stable storage (msync and fsync
	// of the file, fsync of its directory) before and after the rename. The
	// memory targets ignore it.
	Sync bool
	// Perm is the permission of the final file; 0 means 0o644. It is set
	// exactly with fchmod, whatever the umask. The memory targets ignore it.
	Perm os.FileMode
	// Bulk chooses the CopyFrom path; see Bulk. The memory targets ignore
	// it: they read every source straight into the image's bytes.
	Bulk Bulk
	// NoClone turns off the cloning of file data (see the package
	// documentation), as the word noclone in FIXTUREGEN_CACHE does. The
	// memory targets never clone.
	NoClone bool
	// Progress, when not nil, is told how far the image is, so that
	// another goroutine can show how far a long build is: Create,
	// CreateMemory and CreateWriterAt begin its step "writing" of the
	// image's size (a caller names the steps within it after that),
	// Commit of an image file begins "syncing" (with Sync) and "renaming
	// into place", or, for an output written in place, "writing to NAME"
	// counted as the image is copied there, and
	// Progress.Add counts the bytes written into the image as they are
	// written: the length of every WriteAt, Bwrite (in every mode, though
	// in mmap mode the bytes are already in the mapping), ZeroRange and
	// file copied by CopyFrom and CopyFiles (cloned or copied, holes
	// included), added with one atomic add per call or per copied chunk
	// (of up to 1 MiB through a buffer, of up to 32 MiB copied or cloned
	// by the kernel), never per block. A range written twice counts twice,
	// so the count of a finished image is the sum of what its writer
	// wrote, which can differ from the image's size: a sparse image's
	// holes never written do not count. Every target honours it, and one
	// meter may be shared by several images.
	Progress *progress.Meter
}

const (
	stateOpen = iota
	stateCommitted
	stateAborted
)

// An Image is an image under construction: an image file (Create), or owned
// memory (CreateMemory, CreateWriterAt). It is written through block buffers
// (Getblk, Bread, Bwrite, Brelse) and the bulk helpers (WriteAt, CopyFrom,
// CopyFiles), and becomes visible (at its final path, as Bytes, or in its
// io.WriterAt) only at Commit. An Image is not safe for concurrent use.
type Image struct {
	name   string     // the final path as given to Create; memoryName for the memory targets
	target string     // where Commit puts the image: name with symlinks resolved
	tmp    string     // the temporary file
	stream bool       // target is not a file replaced by a rename: copy the bytes there at Commit
	kind   TargetKind // how ResolveTarget found the target: TargetRewrite streams with O_TRUNC
	f      *os.File
	pipe   *os.File // a named pipe target, opened for writing at Create (nbopen.Write)
	size   int64
	mode   Mode
	opts   Options
	state  int

	mem        bool        // a memory target: data is owned memory, there is no file
	out        io.WriterAt // CreateWriterAt: where Commit writes the image
	data       []byte      // the MAP_SHARED mapping (mmap mode), or the image itself (memory)
	touched    []uint64    // mmap and memory: one bit per chunk ever handed out or written
	trackShift uint        // log2 of the chunk size of touched
	held       []*Buf      // buffers not yet released, sorted by offset
	slab       []Buf       // unused Buf structs, allocated in bulk
	clone      cloneState  // whether and how file data is cloned (clone.go)

	// An image built in place in a section of another (section.go)
	// shares that image's file, mapping or bytes and bitmap, and works
	// in its offsets: parent is that image, base the section's offset
	// in the file (or bytes), which the exported methods add to the
	// image's own offsets and Buf.Off takes off again. Every other
	// image has base 0 and no parent.
	base   int64
	parent *Image
}

// Create makes a temporary file beside path (in the same directory, named
// as tempfile.Pattern says: .fixturegen-tmp-NAME-123456), sizes it to size bytes with ftruncate, so that
// everything not written stays a hole, and maps it in mmap mode. The final
// path is not touched until Commit.
//
// ResolveTarget decides from what path is (never from its name) how the
// image gets there. When path names a character or block device or a
// named pipe (such as /dev/null, or /dev/stdout on a pipe), the image is
// built in a temporary file under os.TempDir, in copy mode unless
// Options.Mode asks for mmap, and Commit streams it to path instead of
// renaming over it. A path that is a symbolic link is followed: the
// temporary file goes beside the file the links lead to, which Commit
// replaces (or creates), leaving the links.
func Create(path string, size int64, opts *Options) (*Image, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Perm == 0 {
		o.Perm = 0o644
	}
	if size < 0 {
		return nil, fmt.Errorf("%w: size %d", ErrRange, size)
	}
	im := &Image{name: path, target: path, size: size, opts: o}
	o.Progress.Step("writing", size)
	dir, regular, err := im.placeTemp(path)
	if err != nil {
		return nil, err
	}
	if err := im.openPipe(); err != nil {
		return nil, err
	}
	mode, err := resolveMode(o.Mode, size, regular)
	if err != nil {
		return nil, err
	}
	im.mode = mode
	f, err := tempfile.Create(dir, path)
	if err != nil {
		im.Abort() // closes the pipe
		return nil, im.targetErr("create", err)
	}
	im.f, im.tmp = f, f.Name()
	im.initClone()
	if err := f.Truncate(size); err != nil {
		err = fmt.Errorf("sizing %s to %d bytes: %w", im.name, size, im.untemp(err))
		im.Abort()
		return nil, err
	}
	if mode == ModeMmap && size > 0 {
		if err := im.mapTemp(); err != nil {
			return nil, err
		}
	}
	return im, nil
}

// targetErr reports the failure of the file operation op as one on the
// image's path as given to Create: the error of a system call names the
// temporary file, which is no name the caller knows. errors.Is still finds
// the cause (fs.ErrNotExist, fs.ErrPermission).
func (im *Image) targetErr(op string, err error) error {
	return &fs.PathError{Op: op, Path: im.name, Err: bareErr(err)}
}

// untemp returns err without the path of the temporary file: the cause of
// a *fs.PathError, *os.LinkError or *os.SyscallError that names it, else
// err itself (an error naming a source file keeps that name).
func (im *Image) untemp(err error) error {
	if im.tmp == "" {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == im.tmp {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) && (le.Old == im.tmp || le.New == im.tmp) {
		return le.Err
	}
	return err
}

// bareErr returns the cause of a path, link or system call error: the
// errno, without the name of the file it was about.
func bareErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err
	}
	return err
}

// placeTemp decides, through ResolveTarget, where Create puts the
// temporary file for path: beside the file Commit renames it to (which
// becomes im.target), or under os.TempDir for an output written in place,
// which makes im a stream. regular is false in that last case.
func (im *Image) placeTemp(path string) (dir string, regular bool, err error) {
	t, err := ResolveTarget(path)
	if err != nil {
		return "", false, err
	}
	im.target, im.kind = t.Path, t.Kind
	if t.Regular() {
		return t.Dir(), true, nil
	}
	im.stream = true
	return os.TempDir(), false, nil
}

// openPipe opens a named pipe target for writing now, before the image is
// made: one that no process reads is refused at once (nbopen.ErrNoReader),
// where an open at Commit would wait for a reader with nothing on the
// screen; one that a process reads is kept open until Commit writes to it.
func (im *Image) openPipe() error {
	fi, err := os.Stat(im.target)
	if !im.stream || err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		return nil
	}
	im.pipe, err = nbopen.Write(im.target)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = im.name
		}
	}
	return err
}

// mapTemp maps the temporary file of a mmap-mode image; when the file
// system refuses, the image falls back to copy mode unless Options.Mode
// asked for mmap, which is then an error (and the image is aborted).
func (im *Image) mapTemp() error {
	data, err := mmapFile(im.f, im.size)
	if err != nil {
		if im.opts.Mode == ModeMmap {
			im.Abort()
			return fmt.Errorf("%w: %s: %v", ErrNoMmap, im.name, err)
		}
		im.mode = ModeCopy // the file system refuses mappings
		return nil
	}
	im.data = data
	im.initTrack()
	return nil
}

// Name returns the final path of the image, as given to Create, or "" for an
// image made by CreateMemory or CreateWriterAt.
func (im *Image) Name() string {
	if im.mem {
		return ""
	}
	return im.name
}

// Size returns the size of the image in bytes.
func (im *Image) Size() int64 { return im.size }

// Mode returns the effective cache mode: ModeMmap or ModeCopy for an image
// file, ModeMemory for the memory targets, never ModeAuto.
func (im *Image) Mode() Mode { return im.mode }

// checkRange reports an error unless [off, off+n) lies within the image;
// off is an offset of the file (or bytes) the image is in, base added
// (an exported method's offset plus im.base, which wraps around for
// offsets near the int64 limits and back again here). The error gives
// the image's own offsets.
func (im *Image) checkRange(off, n int64) error {
	rel := off - im.base
	if rel < 0 || n < 0 || rel > im.size || n > im.size-rel {
		return fmt.Errorf("%w: [%#x, +%#x) in an image of %#x bytes", ErrRange, rel, n, im.size)
	}
	return nil
}

// checkOpen reports ErrClosed once the image, or the image it is built in
// (a section's), is committed or aborted.
func (im *Image) checkOpen() error {
	for p := im; p != nil; p = p.parent {
		if p.state != stateOpen {
			return ErrClosed
		}
	}
	return nil
}

// WriteAt writes p at byte offset off of the image. It implements
// io.WriterAt, for metadata written in one go. A held buffer that overlaps
// the range sees the new bytes in both modes.
//
// In both modes WriteAt is one pwrite(2), never a copy into the mapping: the
// first touch of a page of the mapping faults, and on Linux that fault reads
// around the page, which for the holes of a new sparse image means
// allocating and zeroing up to read_ahead_kb of page cache per fault (8 MiB
// on the benchmark machine). Metadata scattered over an image, as FAT and
// FFS writers make it, paid that on almost every write (see the package
// documentation for the numbers). In mmap mode held buffers still see the
// bytes, because the mapping and pwrite share the page cache. In a memory
// image WriteAt copies p into the image's bytes.
func (im *Image) WriteAt(p []byte, off int64) (int, error) {
	if err := im.checkOpen(); err != nil {
		return 0, err
	}
	return im.writeAt(p, off+im.base)
}

// writeAt is WriteAt at an offset of the image's file, base added.
func (im *Image) writeAt(p []byte, off int64) (int, error) {
	if err := im.checkRange(off, int64(len(p))); err != nil {
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if im.data != nil {
		im.markTouched(off, int64(len(p)))
	}
	if im.mem {
		im.wrote(int64(len(p)))
		return copy(im.data[off:], p), nil
	}
	n, err := im.f.WriteAt(p, off)
	im.wrote(int64(n))
	if err != nil {
		return n, fmt.Errorf("writing %s at offset %#x: %w", im.name, off, im.untemp(err))
	}
	if im.data == nil {
		im.writeThrough(p, off)
	}
	return n, nil
}

// WriteVAt writes the buffers of bufs one after the other from byte
// offset off of the image, as WriteAt would their concatenation, and
// returns how many bytes it wrote. On Linux it is one pwritev(2) (more
// only if the kernel writes less than asked): a writer whose pieces lie
// apart in its memory and follow each other in the image, as a file's
// data and the indirect block between its runs do, writes them in one
// call instead of one each, without copying them together first.
func (im *Image) WriteVAt(bufs [][]byte, off int64) (int, error) {
	if err := im.checkOpen(); err != nil {
		return 0, err
	}
	off += im.base
	var n int64
	for _, b := range bufs {
		n += int64(len(b))
	}
	if err := im.checkRange(off, n); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	if len(bufs) == 1 || im.mem {
		done := 0
		for _, b := range bufs {
			k, err := im.writeAt(b, off+int64(done))
			done += k
			if err != nil {
				return done, err
			}
		}
		return done, nil
	}
	if im.data != nil {
		im.markTouched(off, n)
	}
	done, err := pwritev(im.f, bufs, off)
	im.wrote(done)
	if err != nil {
		return int(done), fmt.Errorf("writing %s at offset %#x: %w", im.name, off+done, im.untemp(err))
	}
	if im.data == nil {
		at := off
		for _, b := range bufs {
			im.writeThrough(b, at)
			at += int64(len(b))
		}
	}
	return int(done), nil
}

// wrote adds n bytes written into the image to Options.Progress.
func (im *Image) wrote(n int64) { im.opts.Progress.Add(n) }

// writeThrough copies p, just written to the file at off, into every held
// copy-mode buffer it overlaps, so that they see what a mapping would show.
func (im *Image) writeThrough(p []byte, off int64) {
	end := off + int64(len(p))
	i := im.heldEndingAfter(off)
	for ; i < len(im.held) && im.held[i].off < end; i++ {
		b := im.held[i]
		lo, hi := max(off, b.off), min(end, b.end())
		copy(b.data[lo-b.off:hi-b.off], p[lo-off:hi-off])
	}
}

// refreshHeld re-reads from the file the parts of held copy-mode buffers that
// overlap [off, off+n), after a write that bypassed them.
func (im *Image) refreshHeld(off, n int64) error {
	end := off + n
	i := im.heldEndingAfter(off)
	for ; i < len(im.held) && im.held[i].off < end; i++ {
		b := im.held[i]
		lo, hi := max(off, b.off), min(end, b.end())
		if _, err := im.f.ReadAt(b.data[lo-b.off:hi-b.off], lo); err != nil {
			return fmt.Errorf("reading %s at offset %#x: %w", im.name, lo, im.untemp(err))
		}
	}
	return nil
}

// CopyFrom copies exactly n bytes from r into the image at byte offset off.
// It is the bulk path for file contents; Options.Bulk chooses how (see Bulk,
// and DETAILS.md for the default). A source that ends before n bytes is an
// error wrapping ErrShortSrc. A held buffer that overlaps the range sees the
// new bytes in both modes. A memory image reads r straight into its bytes,
// whatever Options.Bulk says.
func (im *Image) CopyFrom(off int64, r io.Reader, n int64) error {
	if err := im.checkOpen(); err != nil {
		return err
	}
	return im.copyFromAt(off+im.base, r, n)
}

// copyFromAt is CopyFrom at an offset of the image's file, base added.
func (im *Image) copyFromAt(off int64, r io.Reader, n int64) error {
	if err := im.checkRange(off, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if src, ok := r.(*os.File); ok {
		if handled, err := im.copyHoles(off, src, n); handled {
			return err // holes.go: the holes of src are not read
		}
	}
	return im.copyFrom(off, r, n)
}

// copyFrom is CopyFrom of a checked, non-empty range, reading every byte.
func (im *Image) copyFrom(off int64, r io.Reader, n int64) error {
	if im.data != nil {
		// Every path below writes the whole range or fails; a range
		// marked but not reached costs Getblk a needless clear, no more.
		im.markTouched(off, n)
	}
	if im.mem {
		m, err := io.ReadFull(r, im.data[off:off+n])
		im.wrote(int64(m))
		return im.shortErr(err, off, int64(m), n)
	}
	bulk := im.opts.Bulk
	if bulk == BulkAuto {
		bulk = defaultBulkCopy
		if im.data != nil {
			bulk = defaultBulkMmap
		}
	}
	if src, ok := r.(*os.File); ok {
		if cloned, err := im.cloneFrom(off, src, n); cloned {
			return err
		}
	}
	if n >= preallocCopyMin {
		// Every byte of the range is written below: allocating its blocks
		// first makes the writes cheaper on ext4 (preallocate), and
		// leaves nothing allocated that stays unwritten.
		preallocate(im.f, off, n)
	}
	if src, ok := r.(*os.File); ok {
		if handled, err := im.copyFromFile(off, src, n, &bulk); handled {
			return err
		}
	}
	if im.data != nil && bulk == BulkRead {
		return im.Guard(func() error {
			m, err := io.ReadFull(r, im.data[off:off+n])
			im.wrote(int64(m))
			return im.shortErr(err, off, int64(m), n)
		})
	}
	return im.copyViaHeap(off, r, n)
}

// copyFromFile copies n bytes of src into the image at off with the
// kernel's help, as bulk (BulkCopyFileRange or BulkMapSource) asks. It
// reports whether it handled the copy, with the copy's error; when nothing
// was copied because the call is refused (another file system, an old
// kernel, a source that is not a regular file), it reports false and
// leaves in *bulk the way CopyFrom falls back to.
func (im *Image) copyFromFile(off int64, src *os.File, n int64, bulk *Bulk) (bool, error) {
	var done int64
	var err error
	switch {
	case *bulk == BulkCopyFileRange && copyFileRangeSupported:
		done, err = copyFileRange(im.f, off, src, n, im.wrote)
		if err == nil && done < n {
			err = fmt.Errorf("%w: %d of %d bytes", ErrShortSrc, done, n)
		}
	case *bulk == BulkMapSource && mmapSupported:
		done, err = im.copyMappedSource(off, src, n)
		if done == 0 && err == nil {
			break // not a regular file, or too short: read it below
		}
		if err == nil {
			done = n
		}
	}
	if err == nil && done == n {
		if im.data == nil {
			return true, im.refreshHeld(off, n)
		}
		return true, nil
	}
	if done > 0 {
		return true, fmt.Errorf("copying into %s at offset %#x: %w", im.name, off+done, im.untemp(err))
	}
	if *bulk == BulkMapSource {
		*bulk = BulkPwrite
	}
	return false, nil
}

// preallocCopyMin is the least CopyFrom copies for it to preallocate the
// range first: a copy_file_range of 1 GiB into a fresh range of an image
// on ext4 took 638 ms into a hole and 480 ms into blocks allocated with
// fallocate (BENCHMARKS.md, 2026-12-03); below 1 MiB one more system call
// is not worth it.
const preallocCopyMin = 1 << 20

// bulkSize is the size of the CopyFrom and CopyFiles heap buffers, in both
// modes, and of each pwrite from a source mapping.
const bulkSize = 1 << 20

// bulkBufs holds the heap buffers of bulkSize bytes that copies use and
// give back, so that a build does not allocate and clear one for every
// batch of files (each was 1 MiB of memclr and garbage, the larger part of
// the garbage collector's work in an ffs build that clones its files).
var bulkBufs = sync.Pool{New: func() any { return new([bulkSize]byte) }}

// getBulk returns a heap buffer of bulkSize bytes; putBulk gives it back.
func getBulk() *[bulkSize]byte  { return bulkBufs.Get().(*[bulkSize]byte) }
func putBulk(b *[bulkSize]byte) { bulkBufs.Put(b) }

// mapWindow is how much of a source file copyMappedSource maps at a time
// (on systems with mmap; the tests size copies that cross windows by it).
const mapWindow = 16 << 20

// copyViaHeap reads into a heap buffer of bulkBufs and writes it with pwrite.
// In mmap mode the writes reach the mapping through the page cache, which
// Linux and the BSDs keep coherent with file writes.
func (im *Image) copyViaHeap(off int64, r io.Reader, n int64) error {
	buf := getBulk()
	defer putBulk(buf)
	return im.readPwrite(buf[:], off, r, n)
}

// readPwrite copies n bytes of r to the image at off through buf: it reads
// a buf-sized piece at a time and writes it with pwrite, and copies it into
// the held copy-mode buffers it overlaps. A memory image has no file: the
// bytes are read straight into the image and buf is not used. Besides the
// file it only reads im.held, so CopyFiles workers, which run only when no
// buffer is held, call it concurrently.
func (im *Image) readPwrite(buf []byte, off int64, r io.Reader, n int64) error {
	if im.mem {
		m, err := io.ReadFull(r, im.data[off:off+n])
		im.wrote(int64(m))
		return im.shortErr(err, off, int64(m), n)
	}
	for done := int64(0); done < n; {
		chunk := buf[:min(int64(len(buf)), n-done)]
		m, err := io.ReadFull(r, chunk)
		if err != nil {
			return im.shortErr(err, off, done+int64(m), n)
		}
		w, err := im.f.WriteAt(chunk, off+done)
		im.wrote(int64(w))
		if err != nil {
			return fmt.Errorf("writing %s at offset %#x: %w", im.name, off+done, im.untemp(err))
		}
		if im.data == nil {
			im.writeThrough(chunk, off+done)
		}
		done += int64(m)
	}
	return nil
}

// shortErr turns the result of a ReadFull of a CopyFrom source into an error.
func (im *Image) shortErr(err error, off, done, n int64) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: %d of %d bytes for %s at offset %#x", ErrShortSrc, done, n, im.name, off)
	}
	return fmt.Errorf("copying into %s at offset %#x: %w", im.name, off+done, im.untemp(err))
}

// Commit makes the image visible at its final path: it flushes the mapping
// (msync in mmap mode), fsyncs when Options.Sync is set, sets the permission
// with fchmod, closes the file and renames it over the final path, so a
// reader of that path sees either the old file or the complete new one. For
// a non-regular output (a device, a fifo) the bytes are streamed to it
// instead. Commit fails with ErrHeld while buffers are held, and with
// ErrTampered, naming the image, when its temporary file is no longer the
// one Create made (same device and inode, at its name) or no longer of the
// image's size. On any failure
// the temporary file is removed and the final path is left as it was.
//
// A memory image (CreateMemory) is finished by Commit and its bytes are then
// Bytes. An image for an io.WriterAt (CreateWriterAt) is written to it by
// Commit, every byte of it (see CreateWriterAt); if that fails, the error
// names the offset, the image is discarded as by Abort and the writer may
// hold part of it. An image built in place in a Section has its bytes
// there already: Commit only ends it.
func (im *Image) Commit() error {
	if err := im.checkOpen(); err != nil {
		return err
	}
	if len(im.held) > 0 {
		return fmt.Errorf("%w: %d, the first at offset %#x", ErrHeld, len(im.held), im.held[0].off-im.base)
	}
	if err := im.commit(); err != nil {
		im.Abort()
		return err
	}
	im.state = stateCommitted
	return nil
}

func (im *Image) commit() error {
	if im.parent != nil {
		return nil // a section's bytes are already in the image it is in
	}
	if im.mem {
		return im.commitMemory()
	}
	if im.data != nil {
		err := msync(im.data, im.opts.Sync)
		if uerr := munmap(im.data); err == nil {
			err = uerr
		}
		im.data = nil
		if err != nil {
			return fmt.Errorf("flushing %s: %w", im.name, im.untemp(err))
		}
	}
	if err := im.checkTemp(); err != nil {
		return err
	}
	if im.stream {
		return im.streamOut()
	}
	if err := im.f.Chmod(im.opts.Perm & fs.ModePerm); err != nil {
		return im.targetErr("chmod", err)
	}
	if im.opts.Sync {
		im.opts.Progress.Step("syncing", 0)
		if err := im.f.Sync(); err != nil {
			return im.targetErr("sync", err)
		}
	}
	// The rename can take a while: ext4 starts writing the new file's
	// data back when it replaces another (1.6 s for 1.5 GiB here).
	im.opts.Progress.Step("renaming into place", 0)
	if err := im.f.Close(); err != nil {
		im.f = nil
		return im.targetErr("close", err)
	}
	im.f = nil
	if err := os.Rename(im.tmp, im.target); err != nil {
		return im.targetErr("rename", err)
	}
	tempfile.Forget(im.tmp)
	im.tmp = ""
	if im.opts.Sync {
		syncDir(tempDir(im.target))
	}
	return nil
}

// checkTemp makes sure that the temporary file is still the one Create
// made, at its name and of the image's size, before Commit renames it over
// the final path: another process may have truncated, replaced or removed
// it. (What happens between this check and the rename is beyond any
// portable check.)
func (im *Image) checkTemp() error {
	fi, err := im.f.Stat()
	if err != nil {
		return im.targetErr("stat", err)
	}
	if fi.Size() != im.size {
		return fmt.Errorf("%s: %w: it is %d bytes, the image %d", im.name, ErrTampered, fi.Size(), im.size)
	}
	li, err := os.Lstat(im.tmp)
	if err != nil {
		return fmt.Errorf("%s: %w: %v", im.name, ErrTampered, im.untemp(err))
	}
	if !os.SameFile(fi, li) {
		return fmt.Errorf("%s: %w: another file now has its name", im.name, ErrTampered)
	}
	return nil
}

// streamOut copies the finished temporary file to an output written in
// place: a device or named pipe as it is, a TargetRewrite file truncated
// first. Options.Progress shows the step "writing to NAME", counted a
// bulkSize piece at a time.
func (im *Image) streamOut() error {
	flag := os.O_WRONLY
	if im.kind == TargetRewrite {
		flag |= os.O_TRUNC
	}
	out, err := im.pipe, error(nil)
	im.pipe = nil
	if out == nil {
		out, err = os.OpenFile(im.target, flag, 0)
	}
	if err != nil {
		return err // it names the target
	}
	step := im.opts.Progress.Step("writing to "+im.name, im.size)
	buf := getBulk()
	for off := int64(0); off < im.size; {
		n, rerr := im.f.ReadAt(buf[:min(bulkSize, im.size-off)], off)
		w, werr := out.Write(buf[:n])
		step.Add(int64(w))
		off += int64(w)
		if err = cmp.Or(werr, rerr); err != nil {
			if err == io.EOF { // checkTemp found the file of its size
				err = nil
			}
			break
		}
	}
	putBulk(buf)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", im.name, im.untemp(err))
	}
	im.f.Close()
	im.f = nil
	os.Remove(im.tmp)
	tempfile.Forget(im.tmp)
	im.tmp = ""
	return nil
}

// syncDir fsyncs a directory so that a rename in it is durable. Errors are
// ignored: not every system can sync a directory.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Abort discards the image: it unmaps and removes the temporary file and
// leaves the final path as it was; a memory image drops its bytes, and the
// io.WriterAt of CreateWriterAt is never written to. It is a no-op after
// Commit or a previous Abort, so `defer im.Abort()` is the idiom.
func (im *Image) Abort() error {
	if im.state != stateOpen {
		return nil
	}
	im.state = stateAborted
	if im.parent != nil {
		// A section's image owns nothing of the image it is in: what it
		// wrote stays there, for that image's own Abort to drop.
		im.data, im.touched, im.f = nil, nil, nil
		for _, b := range im.held {
			b.held = false
		}
		im.held = nil
		return nil
	}
	var err error
	if im.pipe != nil {
		im.pipe.Close()
		im.pipe = nil
	}
	if im.mem {
		im.data, im.touched, im.out = nil, nil, nil
	} else if im.data != nil {
		err = munmap(im.data)
		im.data = nil
	}
	if im.f != nil {
		im.f.Close()
		im.f = nil
	}
	if im.tmp != "" {
		if rerr := os.Remove(im.tmp); rerr != nil && err == nil {
			err = im.targetErr("remove the temporary file of", rerr)
		}
		tempfile.Forget(im.tmp)
		im.tmp = ""
	}
	for _, b := range im.held {
		b.held = false
	}
	im.held = nil
	return err
}
