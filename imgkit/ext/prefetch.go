package ext

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/internal/hostfile"
)

// prefetcher opens and reads the tree's regular files ahead of the
// layout, on two goroutines of its own (one opens files and finds the
// regions of those past a readChunk, openAhead files ahead of the other,
// which reads them and finds the smaller ones' with probe), in the
// order the layout copies them (populate's). The layout's goroutine is
// the one-pass build's critical path: the opens, the SEEK_DATA calls and
// the reads took about 40% of it on the midsize tree (BENCHMARKS.md),
// and they now run beside it.
//
// The reads are the ones the layout would make, piece for piece: the
// file's data regions (dataRegions), then each region a readChunk at a
// time, into the data writer's free chunks, as the data writer lays
// pieces out (a block into the chunk, the rest of the last block
// zeros). The layout adopts each piece where it lies, and the chunk goes
// on to be written: memory is bounded by the data writer's chunks
// whatever the tree. The first error of a file (opening, seeking or
// reading it) ends the reads: the layout gets it where it would have met
// it.
type prefetcher struct {
	out  chan fetched
	free chan *dataChunk
	done chan struct{}
	wg   sync.WaitGroup
}

// fetched is one message of the prefetcher, in order: a file's opening
// (node set: its regions, or the error opening it), or one of its pieces
// (data, chunk[at:], k bytes of it read).
type fetched struct {
	node      *fstree.Node
	regs, raw [][2]int64
	off       int64 // the piece's byte offset in the file
	chunk     *dataChunk
	at        int
	data      []byte
	k         int
	err       error
}

// errPrefetchOrder is the layout asking for a file or piece the
// prefetcher did not read next: a bug, reported as one.
var errPrefetchOrder = errors.New("ext: internal error: files read out of order")

// newPrefetcher starts reading the files the layout of t copies, with
// block size bs, into the chunks free gives.
func newPrefetcher(t *fstree.Node, bs int, free chan *dataChunk) *prefetcher {
	p := &prefetcher{out: make(chan fetched, 64), free: free, done: make(chan struct{})}
	opens := make(chan openedFile, openAhead)
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		defer close(opens)
		p.openDir(t, int64(bs), opens)
	}()
	go func() {
		defer p.wg.Done()
		defer close(p.out)
		r := prefetchRun{p: p, bs: bs}
		for o := range opens {
			if r.ended {
				o.src.close() // the layout stopped: the files opened ahead
				continue
			}
			r.file(o)
		}
	}()
	return p
}

// openAhead is how many files the opening goroutine opens ahead of the
// reads.
const openAhead = 16

// openedFile is a file the opening goroutine opened, and its regions
// (openData's results), or, with probe, a host file opened only, whose
// regions the reads find (probe).
type openedFile struct {
	c         *fstree.Node
	src       fileData
	regs, raw [][2]int64
	err       error
	probe     bool
}

// openDir opens the files of d's tree in populate's order (depth first,
// each folder's entries in turn) and finds their regions (but for host
// files of a readChunk at most, which probe reads first), on a goroutine
// of its own: opening a file and its SEEK_HOLE took a third of the
// reads' goroutine, the longest of a build (BENCHMARKS.md). It reports
// false when the layout stopped.
func (p *prefetcher) openDir(d *fstree.Node, bs int64, opens chan<- openedFile) bool {
	for _, c := range d.Children {
		switch {
		case c.Type == fstree.TypeDir && c.HardLink == nil:
			if !p.openDir(c, bs, opens) {
				return false
			}
		case copied(c):
			o := openedFile{c: c}
			if c.SourcePath != "" && c.Size <= readChunk {
				o.probe = true
				o.src, o.err = openHostFile(fileData{c: c}, c.SourcePath)
			} else {
				o.src, o.regs, o.raw, o.err = openData(nil, c, bs)
			}
			select {
			case opens <- o:
			case <-p.done:
				o.src.close()
				return false
			}
		}
	}
	return true
}

// prefetchRun is the prefetcher's goroutine's state.
type prefetchRun struct {
	p     *prefetcher
	bs    int
	cur   *dataChunk // the chunk being filled
	used  int
	ended bool // an error was sent, or the layout stopped
}

// copied reports whether populate copies the contents of c: a regular
// file, not a second link, with bytes to read.
func copied(c *fstree.Node) bool {
	return c.Type == fstree.TypeFile && c.HardLink == nil && c.Size != 0 && !c.ZeroFilled()
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

// file reads the file o opened as the layout's file would, through the
// same fileData.
func (r *prefetchRun) file(o openedFile) {
	head := fetched{node: o.c}
	src, regs, raw, err := o.src, o.regs, o.raw, o.err
	defer src.close()
	if err != nil {
		r.fail(head, err)
		return
	}
	if o.probe {
		m, dense, ok := r.probe(o)
		if !ok {
			return
		}
		if dense {
			head.regs = [][2]int64{{0, o.c.Size}}
			head.raw = head.regs
			if r.send(head) {
				r.send(m)
			}
			return
		}
		if regs, raw, err = hostRegions(src, o.c.SourcePath, o.c.Size, int64(r.bs)); err != nil {
			r.fail(head, err)
			return
		}
	}
	head.regs, head.raw = regs, raw
	if !r.send(head) {
		return
	}
	for _, reg := range regs {
		if err := src.region(reg[0]); err != nil {
			r.fail(fetched{off: reg[0]}, err)
			return
		}
		for chunk := reg[0]; chunk < reg[1]; chunk += readChunk {
			want := int(min(readChunk, reg[1]-chunk))
			m, ok := r.space(want)
			if !ok {
				return
			}
			m.off = chunk
			if m.k, m.err = src.read(m.data, chunk); m.err != nil {
				r.fail(m, m.err)
				return
			}
			if !r.send(m) {
				return
			}
		}
	}
}

// probe reads the whole of o's file, of at most readChunk bytes, as the
// one piece of its one region, without asking the file for its regions
// first: that is one lseek (SEEK_HOLE) less for most files, a tenth of
// the reads' system calls on the midsize tree (BENCHMARKS.md). A file
// read in full with no 512-byte sector of zeros has no hole: a hole
// spans at least one of the host's blocks, a sector or more. Then probe
// reports dense, the piece read in m; else (zeros, a short read, an
// error) it gives its space back, and the file's regions are asked as
// before, so that what the layout gets is what SEEK_DATA and SEEK_HOLE
// say. It reports false when the layout stopped.
func (r *prefetchRun) probe(o openedFile) (m fetched, dense, ok bool) {
	n := int(o.c.Size)
	if m, ok = r.space(n); !ok {
		return m, false, false
	}
	m.off = 0
	k, err := o.src.read(m.data, 0)
	if err == nil && k == n && !zeroSector(m.data) {
		m.k = k
		return m, true, true
	}
	r.used -= (n + r.bs - 1) / r.bs * r.bs // the chunk space goes back
	return fetched{}, false, true
}

// zeroSector reports whether b, a file's bytes from its start, has a
// 512-byte sector (or a last part of one) that is all zeros.
func zeroSector(b []byte) bool {
	const sector = 512
	for at := 0; at < len(b); at += sector {
		s := b[at:min(at+sector, len(b))]
		if len(s) >= 8 && binary.LittleEndian.Uint64(s) != 0 {
			continue // most sectors: a byte that is not zero at once
		}
		if bytes.Equal(s, zeroChunk()[:len(s)]) {
			return true
		}
	}
	return false
}

// space places a piece of n bytes in the chunk being filled, or in a
// free one when it has no room left, its last block's bytes past n
// zeroed; it reports false when the layout stopped.
func (r *prefetchRun) space(n int) (fetched, bool) {
	padded := (n + r.bs - 1) / r.bs * r.bs
	if r.cur == nil || len(r.cur.buf)-r.used < padded {
		select {
		case r.cur = <-r.p.free:
			r.used = 0
		case <-r.p.done:
			r.ended = true
			return fetched{}, false
		}
	}
	m := fetched{chunk: r.cur, at: r.used, data: r.cur.buf[r.used : r.used+n]}
	clear(r.cur.buf[r.used+n : r.used+padded])
	r.used += padded
	return m, true
}

// take returns the next message, which must be about file c (its opening
// when open is true).
func (p *prefetcher) take(c *fstree.Node, open bool) (fetched, error) {
	m, ok := <-p.out
	if !ok || (open && m.node != c) || (!open && m.node != nil) {
		return fetched{}, errPrefetchOrder
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

// piece is the layout's read of want bytes at byte off of c: the piece
// read ahead, which dw adopts. On a read's error it returns how many
// bytes were read.
func (p *prefetcher) piece(dw *dataWriter, c *fstree.Node, off int64, want int) ([]byte, int, error) {
	m, err := p.take(c, false)
	if err != nil {
		return nil, 0, err
	}
	if m.off != off || (m.err == nil && len(m.data) != want) {
		return nil, 0, errPrefetchOrder
	}
	if m.err != nil {
		return nil, m.k, m.err
	}
	if err := dw.adopt(m.chunk, m.at); err != nil {
		return nil, 0, err
	}
	return m.data, m.k, nil
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
	if c.SourcePath != "" {
		return openHost(d, c.SourcePath, c.Size, bs)
	}
	if d.r, err = c.Open(); err != nil {
		return d, nil, nil, err
	}
	d.ra, _ = d.r.(io.ReaderAt)
	regs, raw, err = dataRegions(d.r, c.Size, bs)
	return d, regs, raw, err
}

// openHost is openData of the host file path, walked as a regular file
// of size bytes, through its bare descriptor (hostfile.Open). When its
// regions are not the whole file, or cannot be had, it makes sure that
// the file is still a regular one: a folder put in its place reads as
// one hole, a FIFO refuses the seeks.
func openHost(d fileData, path string, size, bs int64) (fileData, [][2]int64, [][2]int64, error) {
	d, err := openHostFile(d, path)
	if err != nil {
		return d, nil, nil, err
	}
	regs, raw, err := hostRegions(d, path, size, bs)
	return d, regs, raw, err
}

// openHostFile opens the host file path as d's, through its bare
// descriptor (hostfile.Open).
func openHostFile(d fileData, path string) (fileData, error) {
	f, err := hostfile.Open(path)
	if err != nil {
		return d, err
	}
	d.r, d.ra = f, f
	return d, nil
}

// hostRegions is dataRegions of d, opened by openHostFile, checking that
// the file is still a regular one as openHost says.
func hostRegions(d fileData, path string, size, bs int64) ([][2]int64, [][2]int64, error) {
	f := d.r.(hostfile.File)
	regs, raw, err := dataRegions(f, size, bs)
	if err != nil || len(regs) != 1 || regs[0] != [2]int64{0, size} {
		if rerr := f.Regular(path); rerr != nil {
			err = rerr
		}
	}
	return regs, raw, err
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

// chunk returns want bytes at byte off: the prefetched piece, which dw
// adopts, else read into buf (readFull). On a read's error it returns
// how many bytes were read.
func (d *fileData) chunk(dw *dataWriter, buf []byte, off int64, want int) ([]byte, int, error) {
	if d.p != nil {
		return d.p.piece(dw, d.c, off, want)
	}
	k, err := d.read(buf[:want], off)
	return buf[:want], k, err
}

// read reads len(buf) bytes at byte off of the file opened (readFull).
func (d *fileData) read(buf []byte, off int64) (int, error) { return readFull(d.r, d.ra, buf, off) }

// close closes the file the layout opened, if any.
func (d *fileData) close() {
	if d.r != nil {
		d.r.Close()
	}
}
