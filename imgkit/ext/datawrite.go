package ext

import (
	"hash"
	"sync"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// dataWriter writes files' data into the image on a goroutine of its
// own, so that the layout scans a file's next chunk while the last one
// is written: the one-pass layout's reads and the image's writes
// overlap. Writes go in the order they were queued; the first error
// stops the writes that follow and is what close returns.
//
// Its chunks go round: the prefetcher reads files into a free one, the
// layout adopts each piece read (the space it finds blocks of zeros in
// and queues runs and hashes of), and a chunk goes to the writer once
// the layout has moved to a later one, then back to the free ones. Each
// piece starts a block into its chunk, its last block padded with
// zeros, so that a chunk is laid out as the image is: a run that starts
// where the one before it ends, in the chunk and in the image (small
// files whose blocks follow each other), is one write with it. Writing
// the midsize tree took 11,400 writes before, 6,200 of them a file's
// partial last block (BENCHMARKS.md).
type dataWriter struct {
	im   *bcache.Image
	jobs chan *dataChunk
	free chan *dataChunk
	cur  *dataChunk // the chunk of the piece the layout has
	used int        // where that piece starts in cur's buffer
	// early is the hashing queued before the first piece (files of
	// holes), run where the first chunk's is
	early []hashStep
	// file numbers the files the layout copies, from 1 (startFile), so
	// that flush knows which files' indirect blocks are complete: those
	// of the files before the one being laid out
	file int
	// final returns the bytes of metadata block blk of a file laid out
	// in full, and notes that they are written (the writer's metaDone)
	final func(blk uint64) []byte
	iov   [][]byte // the pieces of one write, reused by writeRuns
	wg    sync.WaitGroup
	mu    sync.Mutex
	err   error
}

// dataChunk is a read buffer, the runs of it that go into the image and
// the hashing of the files' contents it holds, done after the writes.
type dataChunk struct {
	buf    []byte
	runs   []imageRun
	hashes []hashStep
	// meta holds the indirect blocks its runs write, copied by flush
	meta []byte
}

// imageRun is buf[at:at+n] written at the image's byte off. With blk not
// 0 it is instead n bytes of metadata block blk, an indirect block of
// the layout's file number file that lies between two of the file's
// runs: meta[at:at+n] once flush has copied them, or n zeros when at is
// -1 (the file was not complete then, and the block is written with the
// metadata at the end).
type imageRun struct {
	at, n, off int64
	blk        uint64
	file       int
}

// hashStep is a step of hashing a file's contents, in the file's order:
// buf[at:at+n] written to h, else zeros bytes of zeros, else, when out is
// not nil, the sum taken into out.
type hashStep struct {
	h     hash.Hash
	at, n int64
	zeros int64
	out   *[32]byte
}

// dataBuffers is how many chunks are in flight: filled by the
// prefetcher, scanned by the layout, queued or being written. Eight (2
// MiB, one huge page of hugemem's) took 99 ms at best and 109 ms in the
// median on the midsize tree against 110 and 115 ms with four, and
// sixteen no less than eight (BENCHMARKS.md): the slack lets the three
// goroutines run at their own pace. (Before hugemem, each chunk's pages
// were faulted in one by one, and six took longer than four.)
const dataBuffers = 8

// newDataWriter starts a data writer of im whose chunks are mem, cut in
// dataBuffers of readChunk bytes (hugemem's: one huge page rather than
// a fault for each 4 KiB page on their first touch).
func newDataWriter(im *bcache.Image, mem []byte) *dataWriter {
	d := &dataWriter{im: im, jobs: make(chan *dataChunk, dataBuffers), free: make(chan *dataChunk, dataBuffers)}
	for i := range dataBuffers {
		d.free <- &dataChunk{buf: mem[i*readChunk : (i+1)*readChunk : (i+1)*readChunk]}
	}
	d.wg.Add(1)
	go d.run()
	return d
}

func (d *dataWriter) run() {
	defer d.wg.Done()
	for c := range d.jobs {
		if d.failed() == nil {
			err := d.im.Guard(func() error { return d.writeRuns(c) })
			if err != nil {
				d.mu.Lock()
				d.err = &imageWriteError{err}
				d.mu.Unlock()
			}
		}
		for _, s := range c.hashes {
			s.run(c.buf)
		}
		clear(c.hashes) // the hashes, for the collector
		c.runs, c.hashes, c.meta = c.runs[:0], c.hashes[:0], c.meta[:0]
		d.free <- c
	}
}

// writeRuns writes c's runs, those that follow each other in the image
// (a file's data runs and the indirect blocks between them) with one
// vectored write.
func (d *dataWriter) writeRuns(c *dataChunk) error {
	var off, end int64
	write := func() error {
		if len(d.iov) == 0 {
			return nil
		}
		_, err := d.im.WriteVAt(d.iov, off)
		clear(d.iov)
		d.iov = d.iov[:0]
		return err
	}
	for _, r := range c.runs {
		var p []byte
		switch {
		case r.blk == 0:
			p = c.buf[r.at : r.at+r.n]
		case r.at >= 0:
			p = c.meta[r.at : r.at+r.n]
		default:
			p = zeroChunk()[:r.n]
		}
		if len(d.iov) > 0 && r.off == end {
			d.iov = append(d.iov, p)
			end += r.n
			continue
		}
		if err := write(); err != nil {
			return err
		}
		d.iov = append(d.iov, p)
		off, end = r.off, r.off+r.n
	}
	return write()
}

// run takes the step.
func (s hashStep) run(buf []byte) {
	switch {
	case s.out != nil:
		s.h.Sum(s.out[:0])
	case s.zeros > 0:
		hashZeros(s.h, s.zeros, zeroChunk())
	default:
		s.h.Write(buf[s.at : s.at+s.n])
	}
}

// failed returns the first write's error, if any.
func (d *dataWriter) failed() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

// adopt makes the piece at byte at of chunk c the space the layout
// queues runs and hashes of; a chunk before c is queued to be written.
// It returns the first write's error, if any.
func (d *dataWriter) adopt(c *dataChunk, at int) error {
	if d.cur != c {
		d.flush()
		d.cur = c
		if len(d.early) > 0 {
			c.hashes = append(c.hashes, d.early...)
			d.early = nil
		}
	}
	d.used = at
	return d.failed()
}

// write queues n bytes of the piece adopted, from its byte at, to be
// written at the image's byte off; n may reach into the zeros that pad
// the piece to its last block. A run that goes on from the one
// queued before it, in the chunk and in the image, lengthens it.
func (d *dataWriter) write(at, n, off int64) {
	at += int64(d.used)
	if k := len(d.cur.runs) - 1; k >= 0 {
		if r := &d.cur.runs[k]; r.blk == 0 && r.at+r.n == at && r.off+r.n == off {
			r.n += n
			return
		}
	}
	d.cur.runs = append(d.cur.runs, imageRun{at: at, n: n, off: off})
}

// startFile tells the writer that the layout starts on its next file:
// the indirect blocks of the files before it are complete.
func (d *dataWriter) startFile() { d.file++ }

// indirect queues metadata block blk of the file being laid out, n bytes
// at the image's byte off, to be written with the runs around it: an
// indirect block ext2fs_bmap2 allocated between two of the file's data
// blocks. Writing it there lets the data before and after it go in one
// write with it; without it, every file past its direct blocks took
// three writes (BENCHMARKS.md).
func (d *dataWriter) indirect(blk uint64, n, off int64) {
	d.cur.runs = append(d.cur.runs, imageRun{n: n, off: off, blk: blk, file: d.file})
}

// hash queues hashing the first n bytes of the piece adopted into
// h, on the writer's goroutine: the SHA-256 of every file the UUID rule
// takes costs as much as the copy (BENCHMARKS.md), so it runs beside the
// layout.
func (d *dataWriter) hash(h hash.Hash, n int64) {
	d.cur.hashes = append(d.cur.hashes, hashStep{h: h, at: int64(d.used), n: n})
}

// hashZeros queues hashing n zero bytes into h after the steps queued.
func (d *dataWriter) hashZeros(h hash.Hash, n int64) {
	if n > 0 {
		d.step(hashStep{h: h, zeros: n})
	}
}

// sum queues taking h's sum into out after the steps queued; out holds
// it once close returns.
func (d *dataWriter) sum(h hash.Hash, out *[32]byte) { d.step(hashStep{h: h, out: out}) }

// step queues a hashing step that reads no buffer, in the chunk of the
// piece the layout has; before the first piece, with the first chunk's.
// (Taking a free chunk for it could wait for ever: the prefetcher may
// hold them all, read ahead.)
func (d *dataWriter) step(s hashStep) {
	if d.cur == nil {
		d.early = append(d.early, s)
		return
	}
	d.cur.hashes = append(d.cur.hashes, s)
}

// flush queues the chunk being filled, if any, with a copy of each
// indirect block it writes whose file is complete; the others it writes
// as zeros, for the metadata's writes to overwrite.
func (d *dataWriter) flush() {
	c := d.cur
	if c == nil {
		return
	}
	d.cur = nil
	if len(c.runs) == 0 && len(c.hashes) == 0 {
		d.free <- c
		return
	}
	for i := range c.runs {
		r := &c.runs[i]
		switch {
		case r.blk == 0:
		case r.file < d.file:
			r.at = int64(len(c.meta))
			c.meta = append(c.meta, d.final(r.blk)...)
		default:
			r.at = -1
		}
	}
	d.jobs <- c
}

// close waits for the writes queued and returns the first error.
func (d *dataWriter) close() error {
	d.file++ // the last file is complete
	d.flush()
	for _, s := range d.early { // no piece at all: files of holes only
		s.run(nil)
	}
	close(d.jobs)
	d.wg.Wait()
	return d.failed()
}

// spare returns the buffer of a chunk no one holds once close has
// returned, nil if none is left: memory whose pages were touched
// already, for the metadata's writes (runWriter).
func (d *dataWriter) spare() []byte {
	select {
	case c := <-d.free:
		return c.buf
	default:
		return nil
	}
}

// imageWriteError is a write of the image that failed, reported when the
// layout next takes a buffer, maybe for another file than the one whose
// data it was: it names the image, not a file of the tree.
type imageWriteError struct{ err error }

func (e *imageWriteError) Error() string { return e.err.Error() }

func (e *imageWriteError) Unwrap() error { return e.err }
