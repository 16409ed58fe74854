package ext

import (
	"errors"
	"io"
	"sync"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// prefetcher opens and reads the tree's regular files ahead of the
// layout, on a goroutine of its own, in the order the layout copies them
// (populate's). The layout's goroutine is the one-pass build's critical
// path: the opens, the SEEK_DATA calls and the reads took about 40% of
// it on the midsize tree (BENCHMARKS.md), and they now run beside it,
// the layout copying each piece read into the data writer's chunk.
//
// The reads are the ones the layout would make, piece for piece: the
// file's data regions (dataRegions), then each region a readChunk at a
// time. They go into slabs of readChunk bytes, small files' pieces
// sharing one; a slab is free again once the layout has taken a piece
// of a later one, so that memory is bounded by prefetchSlabs whatever the
// tree. The first error of a file (opening, seeking or reading it) ends
// the reads: the layout gets it where it would have met it.
type prefetcher struct {
	out  chan fetched
	free chan []byte
	done chan struct{}
	wg   sync.WaitGroup
	// the layout's side
	next *fetched // the piece taken and not yet used
	slab int      // the slab of the last piece used, -1 for none
	held []byte
}

// fetched is one message of the prefetcher, in order: a file's opening
// (node set: its regions, or the error opening it), or one of its pieces.
type fetched struct {
	node      *fstree.Node
	regs, raw [][2]int64
	off       int64  // the piece's byte offset in the file
	data      []byte // the piece's bytes, k of them read
	k         int
	slab      int // a count of the slabs taken, the piece's
	slabBuf   []byte
	err       error
}

// prefetchSlabs is how many readChunk slabs are in flight.
const prefetchSlabs = 4

// errPrefetchOrder is the layout asking for a file or piece the
// prefetcher did not read next: a bug, reported as one.
var errPrefetchOrder = errors.New("ext: internal error: files read out of order")

// newPrefetcher starts reading the files the layout of t copies, with
// block size bs.
func newPrefetcher(t *fstree.Node, bs int64) *prefetcher {
	p := &prefetcher{out: make(chan fetched, 64), free: make(chan []byte, prefetchSlabs), done: make(chan struct{}), slab: -1}
	for range prefetchSlabs {
		p.free <- make([]byte, readChunk)
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(p.out)
		r := prefetchRun{p: p, bs: bs, slab: -1}
		r.dir(t)
	}()
	return p
}

// prefetchRun is the prefetcher's goroutine's state.
type prefetchRun struct {
	p     *prefetcher
	bs    int64
	buf   []byte // the slab being filled
	used  int
	slab  int
	ended bool // an error was sent, or the layout stopped
}

// copied reports whether populate copies the contents of c: a regular
// file, not a second link, with bytes to read.
func copied(c *fstree.Node) bool {
	return c.Type == fstree.TypeFile && c.HardLink == nil && c.Size != 0 && !c.ZeroFilled()
}

// dir reads the files of d's tree in populate's order: depth first, each
// folder's entries in turn.
func (r *prefetchRun) dir(d *fstree.Node) {
	for _, c := range d.Children {
		if r.ended {
			return
		}
		switch {
		case c.Type == fstree.TypeDir && c.HardLink == nil:
			r.dir(c)
		case copied(c):
			r.file(c)
		}
	}
}

// send hands m to the layout, reporting false when it has stopped.
func (r *prefetchRun) send(m fetched) bool {
	select {
	case r.p.out <- m:
		return true
	case <-r.p.done:
		r.ended = true
		return false
	}
}

// fail sends the file's error and ends the reads.
func (r *prefetchRun) fail(m fetched, err error) {
	m.err = err
	r.send(m)
	r.ended = true
}

// file reads c as the layout's file would.
func (r *prefetchRun) file(c *fstree.Node) {
	head := fetched{node: c, slab: -1}
	src, err := c.Open()
	if err != nil {
		r.fail(head, err)
		return
	}
	defer src.Close()
	if head.regs, head.raw, err = dataRegions(src, c.Size, r.bs); err != nil {
		r.fail(head, err)
		return
	}
	if !r.send(head) {
		return
	}
	ra, hasAt := src.(io.ReaderAt)
	for _, reg := range head.regs {
		if sk, ok := src.(io.Seeker); ok && !hasAt {
			if _, err := sk.Seek(reg[0], io.SeekStart); err != nil {
				r.fail(fetched{off: reg[0], slab: -1}, err)
				return
			}
		}
		for chunk := reg[0]; chunk < reg[1]; chunk += readChunk {
			want := int(min(readChunk, reg[1]-chunk))
			if !r.space(want) {
				return
			}
			m := fetched{off: chunk, data: r.buf[r.used : r.used+want], slab: r.slab, slabBuf: r.buf}
			r.used += want
			m.k, m.err = readFull(src, ra, m.data, chunk)
			if m.err != nil {
				r.fail(m, m.err)
				return
			}
			if !r.send(m) {
				return
			}
		}
	}
}

// space makes room for n bytes in the slab being filled, taking a free
// one when it has none left, reporting false when the layout stopped.
func (r *prefetchRun) space(n int) bool {
	if r.buf != nil && len(r.buf)-r.used >= n {
		return true
	}
	select {
	case r.buf = <-r.p.free:
		r.used = 0
		r.slab++
		return true
	case <-r.p.done:
		r.ended = true
		return false
	}
}

// take returns the next message, which must be about file c (its opening
// when open is true).
func (p *prefetcher) take(c *fstree.Node, open bool) (fetched, error) {
	m, ok := <-p.out
	if !ok || (open && m.node != c) || (!open && m.node != nil) {
		return fetched{}, errPrefetchOrder
	}
	if m.slab >= 0 && m.slab != p.slab {
		if p.held != nil {
			p.free <- p.held // the layout is past every piece in it
		}
		p.slab, p.held = m.slab, m.slabBuf
	}
	return m, nil
}

// open is the layout's Open and dataRegions of c.
func (p *prefetcher) open(c *fstree.Node) (regs, raw [][2]int64, err error) {
	m, err := p.take(c, true)
	if err != nil {
		return nil, nil, err
	}
	return m.regs, m.raw, m.err
}

// read is the layout's readFull of buf at byte off of c: the piece read
// ahead, copied.
func (p *prefetcher) read(c *fstree.Node, buf []byte, off int64) (int, error) {
	m, err := p.take(c, false)
	if err != nil {
		return 0, err
	}
	if m.off != off || (m.err == nil && len(m.data) != len(buf)) {
		return 0, errPrefetchOrder
	}
	return copy(buf, m.data[:m.k]), m.err
}

// stop ends the reads, whether or not every file was read, and waits for
// the goroutine.
func (p *prefetcher) stop() {
	close(p.done)
	for range p.out {
	}
	p.wg.Wait()
}

// fileData is where the layout takes a file's bytes from: the
// prefetcher's pieces, else the file, opened by the layout itself.
type fileData struct {
	p  *prefetcher
	c  *fstree.Node
	r  io.ReadCloser
	ra io.ReaderAt
}

// openData opens c's data and finds its regions (dataRegions), through
// p when it is not nil.
func openData(p *prefetcher, c *fstree.Node, bs int64) (d fileData, regs, raw [][2]int64, err error) {
	d = fileData{p: p, c: c}
	if p != nil {
		regs, raw, err = p.open(c)
		return d, regs, raw, err
	}
	if d.r, err = c.Open(); err != nil {
		return d, nil, nil, err
	}
	d.ra, _ = d.r.(io.ReaderAt)
	regs, raw, err = dataRegions(d.r, c.Size, bs)
	return d, regs, raw, err
}

// region readies the reads of a region starting at byte off: a file read
// without io.ReaderAt is seeked there.
func (d *fileData) region(off int64) error {
	if d.p != nil || d.ra != nil {
		return nil
	}
	if sk, ok := d.r.(io.Seeker); ok {
		_, err := sk.Seek(off, io.SeekStart)
		return err
	}
	return nil
}

// read reads len(buf) bytes at byte off (readFull).
func (d *fileData) read(buf []byte, off int64) (int, error) {
	if d.p != nil {
		return d.p.read(d.c, buf, off)
	}
	return readFull(d.r, d.ra, buf, off)
}

// close closes the file the layout opened, if any.
func (d *fileData) close() {
	if d.r != nil {
		d.r.Close()
	}
}
