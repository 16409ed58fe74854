package bcache

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/fixturegen/fixturegen/imgkit/internal/hostfile"
)

// A FileCopy is one file, or one piece of a file, of a CopyFiles batch: N
// bytes of it, from byte SrcOff on, go to byte offset Off of the image.
// They come from the host file Path or, when Path is empty, from the reader
// Open returns (which CopyFiles closes; it seeks it to SrcOff when it is an
// io.Seeker, and otherwise reads and drops the first SrcOff bytes).
//
// Data, when not nil, is the copy's bytes themselves (N of them), held by
// the caller until CopyFiles returns, and Path, Open and SrcOff are not
// used: a block of the format's own that sits between the pieces of
// files, such as an FFS indirect block between a file's direct and
// indirect blocks, so that it goes to the image in the same write as they
// do instead of in one of its own.
//
// Pad, when positive, says that the Pad bytes after the copied ones belong
// to this copy too and are zero in the image (the slack of a file's last
// cluster or fragment): CopyFiles may then write zeros there, so that the
// contents of files that follow each other can go to the image in one
// write.
type FileCopy struct {
	Off    int64
	N      int64
	SrcOff int64
	Pad    int64
	Path   string
	Open   func() (io.ReadCloser, error)
	Data   []byte
}

// copyWorkers is how many goroutines CopyFiles copies with at most (and no
// more than twice GOMAXPROCS). A file write holds the image's inode lock, so
// the writes do not overlap each other; what the workers overlap is the
// opening and reading of the next sources with the current write; 4 was
// fastest on 2 cores (BENCHMARKS.md). It is a variable so that tests and
// benchmarks can run one worker too (tests that run in parallel call
// copyFiles with their own count instead).
var copyWorkers = 4

// CopyFiles copies a batch of files into the image, as many CopyFrom calls
// would, and may copy several at once. The bytes are the same whatever the
// order the copies finish in, because the ranges of different files do not
// overlap (overlapping ranges are the caller's bug; which file's bytes win
// then is undefined).
//
// On failure it returns the index of the failed file and the error; with
// several failures, the lowest index, so the report does not depend on
// scheduling: every file before it was copied. On success the index is -1.
//
// The copies run concurrently only where nothing else can observe them: no
// buffer is held, every file has a Path or Data, and Options.Bulk is BulkAuto or
// BulkPwrite (each worker reads into its own buffer and writes with
// pwrite(2)). Otherwise the files are copied one by one with CopyFrom. A
// memory image ignores Options.Bulk: its workers read each file straight
// into the image's bytes, with no buffer of their own.
func (im *Image) CopyFiles(files []FileCopy) (int, error) {
	return im.copyFiles(files, copyWorkers)
}

// inFile returns files with their offsets made offsets of the image's
// file (base added), a copy of them for a section's image.
func (im *Image) inFile(files []FileCopy) []FileCopy {
	if im.base == 0 {
		return files
	}
	moved := make([]FileCopy, len(files))
	for i, fc := range files {
		fc.Off += im.base
		moved[i] = fc
	}
	return moved
}

// copyFiles is CopyFiles with at most maxWorkers goroutines. A source that
// may have holes is copied by CopyFrom, which skips them (holes.go), one
// at a time after the batch's other files, and such a batch is not
// preallocated (the span of the others would take in its holes).
func (im *Image) copyFiles(files []FileCopy, maxWorkers int) (int, error) {
	if err := im.checkOpen(); err != nil {
		return -1, err
	}
	files = im.inFile(files)
	holey := holeyFiles(files)
	if len(holey) == 0 {
		return im.copyBatch(files, maxWorkers, true)
	}
	rest, index := withoutFiles(files, holey)
	failed, err := -1, error(nil)
	if j, e := im.copyBatch(rest, maxWorkers, false); e != nil {
		failed, err = index[j], e
	}
	for _, i := range holey {
		if failed >= 0 && i > failed {
			break // the files before the failure are copied, as promised
		}
		if e := im.copyOne(&files[i]); e != nil {
			return i, e
		}
	}
	return failed, err
}

// copyBatch copies files, none of whose sources has holes, with up to
// maxWorkers goroutines where nothing else can observe them (see
// CopyFiles), else one by one; with prealloc, it may preallocate their
// span first.
func (im *Image) copyBatch(files []FileCopy, maxWorkers int, prealloc bool) (int, error) {
	if prealloc {
		im.preallocateBatch(files)
	}
	workers := min(maxWorkers, 2*runtime.GOMAXPROCS(0), len(files))
	parallel := workers > 1 && len(im.held) == 0 &&
		(im.mem || im.opts.Bulk == BulkAuto || im.opts.Bulk == BulkPwrite)
	for i := 0; parallel && i < len(files); i++ {
		parallel = files[i].Path != "" || files[i].Data != nil
	}
	if !parallel {
		for i := range files {
			if err := im.copyOne(&files[i]); err != nil {
				return i, err
			}
		}
		return -1, nil
	}
	units := im.copyUnits(files)
	if im.data != nil {
		im.touchUnits(files, units)
	}
	return im.copyUnitsParallel(files, units, workers)
}

// withoutFiles returns files but those at the ascending indices drop, and
// the index in files of each file it returns.
func withoutFiles(files []FileCopy, drop []int) ([]FileCopy, []int) {
	rest := make([]FileCopy, 0, len(files)-len(drop))
	index := make([]int, 0, len(files)-len(drop))
	for i := range files {
		if len(drop) > 0 && drop[0] == i {
			drop = drop[1:]
			continue
		}
		rest = append(rest, files[i])
		index = append(index, i)
	}
	return rest, index
}

// copyUnits groups files into the units a worker copies at once: runs of
// files that follow each other (through their Pad) and fit the copy
// buffer together, as [first, end).
func (im *Image) copyUnits(files []FileCopy) [][2]int {
	var units [][2]int
	for i := 0; i < len(files); {
		j := i + 1
		for j < len(files) && im.follows(&files[j-1], &files[j]) &&
			files[j].Off+files[j].N-files[i].Off <= bulkSize {
			j++
		}
		units = append(units, [2]int{i, j})
		i = j
	}
	return units
}

// touchUnits marks as touched the valid ranges the files of units write,
// each with the Pad that joins it to the next file of its unit.
func (im *Image) touchUnits(files []FileCopy, units [][2]int) {
	for _, u := range units {
		for i := u[0]; i < u[1]; i++ {
			n := files[i].N
			if i+1 < u[1] {
				n += files[i].Pad
			}
			if im.checkRange(files[i].Off, n) == nil {
				im.markTouched(files[i].Off, n)
			}
		}
	}
}

// copyUnitsParallel copies the units of files with workers goroutines and
// returns the lowest index of a file that failed and its error, or -1.
// Workers take no unit past the lowest failure so far.
func (im *Image) copyUnitsParallel(files []FileCopy, units [][2]int, workers int) (int, error) {
	errs := make([]error, len(files))
	var next atomic.Int64
	var failAt atomic.Int64 // lowest failed index so far
	failAt.Store(int64(len(files)))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			if !im.mem {
				b := getBulk()
				defer putBulk(b)
				buf = b[:]
			}
			for {
				u := next.Add(1) - 1
				if u >= int64(len(units)) || int64(units[u][0]) > failAt.Load() {
					return
				}
				if i, err := im.copyUnit(buf, files, units[u]); err != nil {
					errs[i] = err
					for f := failAt.Load(); int64(i) < f && !failAt.CompareAndSwap(f, int64(i)); f = failAt.Load() {
					}
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return i, err
		}
	}
	return -1, nil
}

// copyUnit copies the files of the unit u = [first, end) with buf and
// returns the index of the file that failed with its error.
func (im *Image) copyUnit(buf []byte, files []FileCopy, u [2]int) (int, error) {
	first, end := u[0], u[1]
	if end-first == 1 {
		return first, im.copyPath(buf, &files[first])
	}
	return im.copyRun(buf, files, first, end)
}

// follows reports whether file b of a batch starts where a and its Pad end,
// both copying something into a valid range, from a host file (at any
// offset of it, which copyRun reads with pread) or from Data.
func (im *Image) follows(a, b *FileCopy) bool {
	return a.Pad >= 0 && a.N > 0 && b.N > 0 && a.SrcOff >= 0 && b.SrcOff >= 0 &&
		b.Off == a.Off+a.N+a.Pad && im.checkRange(a.Off, a.N+a.Pad) == nil &&
		im.checkRange(b.Off, b.N) == nil && !im.cloneWorthy(a) && !im.cloneWorthy(b)
}

// writeData writes the bytes of a FileCopy that holds them (Data) into
// the image, as WriteAt would.
func (im *Image) writeData(fc *FileCopy) error {
	if err := im.checkData(fc); err != nil {
		return err
	}
	_, err := im.writeAt(fc.Data, fc.Off)
	return err
}

// checkData reports a FileCopy whose Data does not hold its N bytes.
func (im *Image) checkData(fc *FileCopy) error {
	if int64(len(fc.Data)) != fc.N {
		return fmt.Errorf("copying into %s at offset %#x: %d bytes of data for a copy of %d", im.name, fc.Off, len(fc.Data), fc.N)
	}
	return nil
}

// readRunPiece reads the N bytes of fc, a file of a run, into out: from
// Data, or from its host file at SrcOff.
func (im *Image) readRunPiece(out []byte, fc *FileCopy) error {
	if fc.Data != nil {
		if err := im.checkData(fc); err != nil {
			return err
		}
		copy(out, fc.Data)
		return nil
	}
	f, err := hostfile.Open(fc.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	m, err := readFullAt(f, out, fc.SrcOff)
	return im.shortErr(err, fc.Off, int64(m), fc.N)
}

// copyRun copies the files [first, end) of a batch, which follow each other
// and fit buf together, by reading them into buf (their Pad zeroed) and
// writing it with one pwrite instead of one per file, which matters for
// trees of many small files (BENCHMARKS.md). A memory image reads the files
// and clears their Pad in its own bytes instead, and writes nothing. It
// returns the index of the file that failed.
func (im *Image) copyRun(buf []byte, files []FileCopy, first, end int) (int, error) {
	base := files[first].Off
	last := &files[end-1]
	var out []byte
	if im.mem {
		out = im.data[base : last.Off+last.N]
	} else {
		out = buf[:last.Off+last.N-base]
	}
	var data int64 // the file bytes read into out, which Progress counts (not the Pad)
	for i := first; i < end; i++ {
		fc := &files[i]
		if i+1 < end {
			clear(out[fc.Off+fc.N-base:][:fc.Pad])
		}
		if err := im.readRunPiece(out[fc.Off-base:][:fc.N], fc); err != nil {
			if im.mem {
				im.wrote(data)
				return i, err
			}
			// The files before this one are copied all the same, as
			// CopyFiles promises.
			if _, werr := im.f.WriteAt(out[:fc.Off-base], base); werr != nil {
				return first, fmt.Errorf("writing %s at offset %#x: %w", im.name, base, im.untemp(werr))
			}
			im.wrote(data)
			return i, err
		}
		data += fc.N
	}
	if im.mem {
		im.wrote(data)
		return 0, nil
	}
	if _, err := im.f.WriteAt(out, base); err != nil {
		return first, fmt.Errorf("writing %s at offset %#x: %w", im.name, base, im.untemp(err))
	}
	im.wrote(data)
	return 0, nil
}

// preallocMinDensity is how much of the span of a batch (from its first
// byte to its last) its files must fill, in quarters, for CopyFiles to
// preallocate the span: the gaps between the files are allocated too, and a
// sparse image (FFS files spread over cylinder groups far apart) should stay
// sparse.
const preallocMinDensity = 3

// preallocOn turns preallocateBatch on; benchmarks turn it off to measure
// what it gains.
var preallocOn = true

// preallocateBatch preallocates the image range a batch writes when the
// files fill most of it (see preallocate). A memory image has nothing to
// preallocate.
func (im *Image) preallocateBatch(files []FileCopy) {
	if im.mem {
		return
	}
	lo, hi, total := int64(-1), int64(0), int64(0)
	for _, fc := range files {
		if fc.N <= 0 || im.checkRange(fc.Off, fc.N) != nil {
			continue
		}
		if lo < 0 || fc.Off < lo {
			lo = fc.Off
		}
		hi = max(hi, fc.Off+fc.N)
		total += fc.N - im.cloneBytes(&fc)
	}
	if preallocOn && lo >= 0 && total*4 >= (hi-lo)*preallocMinDensity {
		preallocate(im.f, lo, hi-lo)
	}
}

// copyOne copies one file of a batch with CopyFrom.
func (im *Image) copyOne(fc *FileCopy) error {
	if err := im.checkRange(fc.Off, fc.N); err != nil || fc.N == 0 {
		return err
	}
	if fc.Data != nil {
		return im.writeData(fc)
	}
	var r io.ReadCloser
	var err error
	if fc.Path != "" {
		r, err = hostfile.OpenOS(fc.Path)
	} else if fc.Open != nil {
		r, err = fc.Open()
	} else {
		return fmt.Errorf("copying into %s at offset %#x: no source", im.name, fc.Off)
	}
	if err != nil {
		return err
	}
	if err = skipTo(r, fc.SrcOff); err == nil {
		err = im.copyFromAt(fc.Off, r, fc.N)
	}
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyPath copies one file of a batch by reading it into buf and writing it
// with pwrite (readPwrite). It runs on a CopyFiles worker: it touches
// nothing of the Image but the file and read-only fields. The source is
// opened by hostfile.Open, which on unix skips what os.Open does for a
// file that might be pollable (fcntl calls and an epoll registration that
// a regular file refuses): five system calls per file, a few percent of a
// build of 5,000 small files.
func (im *Image) copyPath(buf []byte, fc *FileCopy) error {
	if err := im.checkRange(fc.Off, fc.N); err != nil || fc.N == 0 {
		return err
	}
	if fc.Data != nil {
		return im.writeData(fc)
	}
	f, err := hostfile.Open(fc.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	if cloned, err := im.cloneFile(buf, fc, f); cloned {
		return err
	}
	if err := skipTo(f, fc.SrcOff); err != nil {
		return err
	}
	return im.readPwrite(buf, fc.Off, f, fc.N)
}

// readFullAt reads len(p) bytes of the source r, just opened, from byte
// off on: with pread where r has it, else by seeking or skipping to off.
func readFullAt(r io.Reader, p []byte, off int64) (int, error) {
	if ra, ok := r.(io.ReaderAt); ok {
		n, err := ra.ReadAt(p, off)
		if err == io.EOF && n > 0 {
			err = io.ErrUnexpectedEOF
		}
		return n, err
	}
	if err := skipTo(r, off); err != nil {
		return 0, err
	}
	return io.ReadFull(r, p)
}

// skipTo moves the reader r, just opened, to byte off of its source: by
// seeking when it can, else by reading and dropping off bytes.
func skipTo(r io.Reader, off int64) error {
	if off == 0 {
		return nil
	}
	if off < 0 {
		return fmt.Errorf("bcache: negative source offset %d", off)
	}
	if sk, ok := r.(io.Seeker); ok {
		_, err := sk.Seek(off, io.SeekStart)
		return err
	}
	if m, err := io.CopyN(io.Discard, r, off); err != nil {
		if err == io.EOF {
			return fmt.Errorf("%w: source ends at byte %d, before %d", ErrShortSrc, m, off)
		}
		return err
	}
	return nil
}
