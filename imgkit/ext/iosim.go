package ext

import (
	"cmp"
	"slices"
	"strconv"
)

// ioSim models the write-back cache of e2fsprogs' unix I/O manager
// (lib/ext2fs/unix_io.c: 8 blocks, the least recently used one reused),
// to count what mke2fs's I/O channel has written when ext2fs_close reads
// its statistics: the bytes s_kbytes_written adds.
type ioSim struct {
	bs      int64
	access  uint64
	written int64
	slots   [8]ioSlot
	log     *[]string // the calls, for tests; nil: none
}

type ioSlot struct {
	inUse, dirty bool
	block        uint64
	access       uint64
}

// find is find_cached_block: the slot holding b (its access time
// renewed), else the one to reuse (the first unused, else the oldest).
func (s *ioSim) find(b uint64) (*ioSlot, bool) {
	var unused, oldest *ioSlot
	for i := range s.slots {
		c := &s.slots[i]
		if !c.inUse {
			if unused == nil {
				unused = c
			}
			continue
		}
		if c.block == b {
			s.access++
			c.access = s.access
			return c, true
		}
		if oldest == nil || c.access < oldest.access {
			oldest = c
		}
	}
	if unused != nil {
		return unused, false
	}
	return oldest, false
}

// reuse is reuse_cache: the slot's dirty block is written out.
func (s *ioSim) reuse(c *ioSlot, b uint64) {
	if c.inUse && c.dirty {
		s.written += s.bs
	}
	c.inUse, c.dirty, c.block = true, false, b
	s.access++
	c.access = s.access
}

// read is io_channel_read_blk64 of n blocks (1 to 4) at b.
func (s *ioSim) read(b uint64, n int) {
	if s.log != nil {
		*s.log = append(*s.log, "R "+strconv.FormatUint(b, 10)+" "+strconv.Itoa(n))
	}
	for k := range uint64(n) {
		if _, hit := s.find(b + k); hit {
			continue
		}
		if c, hit := s.find(b + k); !hit {
			s.reuse(c, b+k)
		}
	}
}

// write is io_channel_write_blk64 of n blocks (1 to 4) at b.
func (s *ioSim) write(b uint64, n int) {
	if s.log != nil {
		*s.log = append(*s.log, "W "+strconv.FormatUint(b, 10)+" "+strconv.Itoa(n))
	}
	for k := range uint64(n) {
		c, hit := s.find(b + k)
		if !hit {
			s.reuse(c, b+k)
		}
		c.dirty = true
	}
}

// flush is flush_cached_blocks: the dirty blocks are written out; with
// invalidate the cache is emptied.
func (s *ioSim) flush(invalidate bool) {
	for i := range s.slots {
		c := &s.slots[i]
		if c.inUse && c.dirty {
			s.written += s.bs
			c.dirty = false
		}
		if invalidate {
			c.inUse = false
		}
	}
}

// direct is a write past the cache (a count below 0 or above 4): the
// cache is flushed and emptied, then the bytes are written.
func (s *ioSim) direct(bytes int64) {
	s.flush(true)
	s.written += bytes
}

// ioModel replays the block I/O mke2fs -d makes through libext2fs on the
// cache ioSim models: inodes through the inode cache (4 inodes, replaced
// in turn) and its one-block buffer, directory, extent and data blocks
// as they are read and written. Its count at ext2fs_close is what
// s_kbytes_written adds. A nil *ioModel does nothing.
type ioModel struct {
	sim     ioSim
	f       *fsys
	icache  [4]uint32
	last    int
	buf     uint64 // icache->buffer_blk
	closed  bool
	atClose int64
	// capture, when not nil, takes the calls instead of making them,
	// for replay (a file's blocks, replayed in copy_file's order).
	capture *[]ioOp
}

// ioOp is one captured call: r, w (block), i (ri), I (wiFull).
type ioOp struct {
	kind byte
	v    uint64
}

// replay makes captured calls.
func (m *ioModel) replay(ops []ioOp) {
	for _, op := range ops {
		switch op.kind {
		case 'r':
			m.r(op.v)
		case 'w':
			m.w(op.v)
		case 'i':
			m.ri(uint32(op.v))
		case 'I':
			m.wiFull(uint32(op.v))
		}
	}
}

// steadyCalls makes the calls of growLast's allocation of block phys
// for inode ino (steadyOps): ext2fs_alloc_block3 zeroes the block through
// the cache, ext2fs_extent_replace updates the inode (a read and a
// write), extent_bmap reads it back and ext2fs_bmap2 writes it.
func (m *ioModel) steadyCalls(phys uint64, ino uint32) {
	m.w(phys)
	m.wi(ino)
	m.ri(ino)
	m.wi(ino)
}

// took appends a call to the capture, reporting whether there is one.
func (m *ioModel) took(kind byte, v uint64) bool {
	if m.capture == nil {
		return false
	}
	*m.capture = append(*m.capture, ioOp{kind, v})
	return true
}

func newIOModel(f *fsys) *ioModel {
	m := &ioModel{sim: ioSim{bs: int64(f.g.bs)}, f: f, last: -1, buf: ^uint64(0)}
	if ioLogHook != nil {
		ioLogHook(m)
	}
	return m
}

// skipSteady makes the calls of copying n steady blocks of inode ino, the
// blocks after last (copyWrites.steady), in one step, reporting false
// (making none) when the cache is not in the steady state. Each block's
// calls are the flush of the one before it (a write, a hit), its own
// zeroing (a write, a miss), two writes of the inode's block (hits, the
// inode in the inode cache and its block the buffer's): in the steady
// state, the cache holds the inode's block, used last, and the 7 blocks
// up to last, dirty, the older the lower. Each block then writes out the
// oldest, and leaves the cache in that state one block on.
func (m *ioModel) skipSteady(ino uint32, last uint64, n int) bool {
	s := &m.sim
	ib := m.inodeBlock(ino)
	if s.log != nil || m.capture != nil || m.buf != ib || !slices.Contains(m.icache[:], ino) || last < 6 {
		return false
	}
	var at [8]uint64 // the access times: the data blocks' by age, the inode block's
	for i := range s.slots {
		c := &s.slots[i]
		switch {
		case !c.inUse || !c.dirty:
			return false
		case c.block == ib:
			at[7] = c.access
		case c.block <= last && last-c.block < 7:
			at[6-(last-c.block)] = c.access
		default:
			return false
		}
	}
	for i := 1; i < len(at); i++ {
		if at[i] <= at[i-1] {
			return false // a block twice, or out of order
		}
	}
	s.written += int64(n) * s.bs
	base := s.access
	for i := range s.slots {
		c := &s.slots[i]
		if c.block == ib {
			c.access = base + 8
			continue
		}
		c.block += uint64(n)
		c.access = base + 7 - (last + uint64(n) - c.block)
	}
	s.access = base + 8
	return true
}

// ioLogHook, set by tests, sees each new model.
var ioLogHook func(*ioModel)

func (m *ioModel) inodeBlock(ino uint32) uint64 {
	g := m.f.g
	return m.f.itLoc[(ino-1)/g.ipg] + uint64((ino-1)%g.ipg)*uint64(g.inodeSize)/uint64(g.bs)
}

// ri is ext2fs_read_inode: from the inode cache, else through the
// buffer block, then cached.
func (m *ioModel) ri(ino uint32) {
	if m == nil || m.took('i', uint64(ino)) {
		return
	}
	for _, c := range m.icache {
		if c == ino {
			return
		}
	}
	if b := m.inodeBlock(ino); b != m.buf {
		m.sim.read(b, 1)
		m.buf = b
	}
	m.last = (m.last + 1) % len(m.icache)
	m.icache[m.last] = ino
}

// wiFull is ext2fs_write_inode_full (and write_new_inode): the inode's
// block through the buffer, written.
func (m *ioModel) wiFull(ino uint32) {
	if m == nil || m.took('I', uint64(ino)) {
		return
	}
	b := m.inodeBlock(ino)
	if b != m.buf {
		m.sim.read(b, 1)
		m.buf = b
	}
	m.sim.write(b, 1)
}

// wi is ext2fs_write_inode of the small struct: the inode read first.
func (m *ioModel) wi(ino uint32) {
	if m == nil {
		return
	}
	m.ri(ino)
	m.wiFull(ino)
}

func (m *ioModel) r(b uint64) {
	if m != nil && !m.took('r', b) {
		m.sim.read(b, 1)
	}
}

func (m *ioModel) w(b uint64) {
	if m != nil && !m.took('w', b) {
		m.sim.write(b, 1)
	}
}

// prologue is mke2fs's zap_sector calls: direct reads and writes of
// sectors 2 to 7 and 0 to 1.
func (m *ioModel) prologue() {
	if m == nil {
		return
	}
	m.sim.flush(false) // should_do_undo's read of the superblock
	m.sim.direct(3072) // zap_sector(2, 6)
	m.sim.flush(false) // zap_sector(0, 2) reads sector 0
	m.sim.direct(1024)
}

// close takes the statistics as ext2fs_close does.
func (m *ioModel) close() {
	if m != nil && !m.closed {
		m.closed, m.atClose = true, m.sim.written
		if m.sim.log != nil {
			*m.sim.log = append(*m.sim.log, "CLOSE")
		}
	}
}

// blockIO is what mke2fs does at a file block's first write: the calls
// of its allocation (ops[lo:hi] of its copyWrites), its physical block,
// and the tree or indirect blocks a lookup of it reads.
type blockIO struct {
	l, phys uint64
	lo, hi  int
	seq     int      // its allocation's place among the file's, from 1
	path    pathAt   // what a lookup reads after its allocation
	later   []pathAt // what it reads after later ones, as the tree changed
	done    bool     // the first write was replayed
	// steady, when not 0, is the inode whose last extent, in the inode,
	// grew over the block (growBy): its calls, not captured, are
	// steadyCalls', and its path is empty
	steady uint32
}

// latest is the path a lookup of b reads after the allocations taken.
func (b *blockIO) latest() []uint64 {
	if k := len(b.later); k > 0 {
		return b.later[k-1].path
	}
	return b.path.path
}

// pathAt is the blocks a lookup of a file block reads (ext2fs_bmap2's
// goto, or its indirect blocks) once the file's allocation from has
// been made: a leaf split moves the last extent of the leaf, a root
// split every one.
type pathAt struct {
	from int
	path []uint64
}

// copyWrites replays a file's blocks of data, as the layout allocates
// them, in the order mke2fs's copy_file writes them: over the file's
// data regions raw (as SEEK_DATA gives them), a window at a time, each
// window once the layout has allocated every block in it. It holds the
// blocks no later window is past yet, so its memory is bounded by the
// layout's read chunk, whatever the file's size.
type copyWrites struct {
	m        *ioModel
	raw      [][2]int64
	size, bs int64
	ri       int   // the raw region of the next window
	off      int64 // the next window's start
	pend     []blockIO
	ops      []ioOp // the calls of pend's allocations
	lo       int    // where the calls of the allocation captured start
	cur      blockIO
	have     bool // cur is the block ext2fs_file_write holds
	// pathOf is what a lookup of a logical block reads as the tree is
	// now (the layout's tree, ahead of the replay)
	pathOf func(l uint64) []uint64
	// blockMapped is a file without extents: its indirect blocks never
	// move, and a flush makes no lookup
	blockMapped bool
	nalloc      int      // the allocations taken
	seq         int      // the allocations replayed
	last        []uint64 // the path of the latest allocation taken
}

// start readies c for a file of size bytes whose data regions are raw,
// keeping the room it has.
func (c *copyWrites) start(m *ioModel, raw [][2]int64, size, bs int64, pathOf func(uint64) []uint64, blockMapped bool) {
	*c = copyWrites{m: m, raw: raw, size: size, bs: bs, pend: c.pend[:0], ops: c.ops[:0], pathOf: pathOf, blockMapped: blockMapped}
	if len(raw) > 0 {
		c.off = raw[0][0]
	}
}

// capture makes the model's calls go to c until took records them.
func (c *copyWrites) capture() {
	c.lo = len(c.ops)
	c.m.capture = &c.ops
}

// took records the calls since capture as the allocation of logical
// block l at phys. When the path to the last leaf changed, the tree was
// split: the blocks held whose lookup now reads another path get it,
// from this allocation on (the latest ones, back to the first whose
// path is the same).
func (c *copyWrites) took(l, phys uint64) {
	c.m.capture = nil
	c.nalloc++
	p := c.pathOf(l)
	if !c.blockMapped && !slices.Equal(p, c.last) {
		for k := len(c.pend) - 1; k >= 0 && c.repath(&c.pend[k]); k-- {
		}
		if c.have {
			c.repath(&c.cur)
		}
	}
	c.last = p
	c.pend = append(c.pend, blockIO{l: l, phys: phys, lo: c.lo, hi: len(c.ops), seq: c.nalloc, path: pathAt{c.nalloc, p}})
}

// tookSteady records the allocation of logical block l at phys as one of
// growBy's for inode ino: what took records of growLast's, its calls
// known (steadyOps) rather than captured. The tree lies in the inode, as
// it did at every allocation before (a tree never gets shallower), so
// the path is as empty as the last one's and nothing is looked up again.
func (c *copyWrites) tookSteady(l, phys uint64, ino uint32) {
	c.nalloc++
	c.pend = append(c.pend, blockIO{l: l, phys: phys, lo: len(c.ops), hi: len(c.ops), seq: c.nalloc, steady: ino})
}

// repath gives b the path a lookup of it reads after the latest
// allocation, reporting whether it changed.
func (c *copyWrites) repath(b *blockIO) bool {
	p := c.pathOf(b.l)
	if slices.Equal(p, b.latest()) {
		return false
	}
	b.later = append(b.later, pathAt{c.nalloc, p})
	return true
}

// lookup is the reads of a lookup of b (ext2fs_bmap2) with the
// allocations replayed so far made.
func (c *copyWrites) lookup(b *blockIO) {
	path := b.path.path
	for k := len(b.later) - 1; k >= 0; k-- {
		if b.later[k].from <= c.seq {
			path = b.later[k].path
			break
		}
	}
	for _, p := range path {
		c.m.r(p)
	}
}

// copyWindow is COPY_FILE_BUFLEN: copy_file_chunk reads this much from
// each data region's start and writes every block of data in it, past
// the region's end too.
const copyWindow = 64 << 10

// advance replays the windows that end at or before byte upTo, which
// the layout has allocated every block before: ext2fs_file_write of
// each block of data of each window, which flushes the block it holds
// (a lookup, then the write) when it moves to another, allocates a
// block at its first write and looks it up at a later one.
func (c *copyWrites) advance(upTo int64) {
	for c.ri < len(c.raw) {
		if c.off >= c.raw[c.ri][1] {
			if c.ri++; c.ri < len(c.raw) {
				c.off = c.raw[c.ri][0]
			}
			continue
		}
		end := min(c.off+copyWindow, c.size)
		if end > upTo {
			return
		}
		c.window(c.off, end)
		c.off += copyWindow
		next := c.off
		if c.off >= c.raw[c.ri][1] && c.ri+1 < len(c.raw) {
			next = c.raw[c.ri+1][0]
		}
		c.prune(uint64(next / c.bs))
	}
}

// window replays the writes of the blocks of data in [off, end).
func (c *copyWrites) window(off, end int64) {
	k, _ := slices.BinarySearchFunc(c.pend, uint64(off/c.bs), func(b blockIO, l uint64) int { return cmp.Compare(b.l, l) })
	for ; k < len(c.pend) && int64(c.pend[k].l)*c.bs < end; k++ {
		b := &c.pend[k]
		if c.have && b.l == c.cur.l {
			continue
		}
		if n := c.steadyRun(k, end); n > 0 {
			k += n - 1
			continue
		}
		c.flush()
		c.cur, c.have = *b, true
		if !b.done {
			if b.steady != 0 {
				c.m.steadyCalls(b.phys, b.steady)
			} else {
				c.m.replay(c.ops[b.lo:b.hi])
			}
			b.done, c.seq = true, b.seq
			continue
		}
		c.lookup(b) // load_buffer
		if int64(b.l+1)*c.bs > c.size {
			c.m.r(b.phys) // a partial block is read before it is written
		}
	}
}

// steadyOps is the calls of a steady block's allocation: the block
// zeroed through the cache (ext2fs_alloc_block3), then the inode read
// and written as ext2fs_extent_replace's update and ext2fs_bmap2 make
// them.
var steadyOps = [...]byte{'w', 'i', 'I', 'i', 'i', 'I'}

// steady returns the inode of b when b is a steady block: the file's
// next block on disk after the one held, whose allocation grew the last
// extent of a tree that lies in the inode (steadyOps), so that neither
// its lookup nor its flush reads a tree block.
func (c *copyWrites) steady(b *blockIO, after uint64) (uint32, bool) {
	if b.done || b.phys != after+1 || len(b.path.path) != 0 || len(b.later) != 0 {
		return 0, false
	}
	if b.steady != 0 {
		return b.steady, true
	}
	if b.hi-b.lo != len(steadyOps) {
		return 0, false
	}
	ops := c.ops[b.lo:b.hi]
	ino := ops[1].v
	for k, kind := range steadyOps {
		if ops[k].kind != kind || k > 0 && ops[k].v != ino {
			return 0, false
		}
	}
	return uint32(ino), ops[0].v == b.phys
}

// steadyRun replays the steady blocks from pend[k] on, up to byte end, at
// once when the cache is in the state the copy of such blocks keeps it
// in (ioModel.skipSteady), and returns how many it replayed: none when
// pend[k] is not one, or the cache is in another state.
func (c *copyWrites) steadyRun(k int, end int64) int {
	if c.blockMapped || !c.have || len(c.cur.path.path) != 0 || len(c.cur.later) != 0 {
		return 0
	}
	ino, ok := c.steady(&c.pend[k], c.cur.phys)
	if !ok {
		return 0
	}
	n := 1
	for j := k + 1; j < len(c.pend) && int64(c.pend[j].l)*c.bs < end; j++ {
		if i, ok := c.steady(&c.pend[j], c.pend[j-1].phys); !ok || i != ino {
			break
		}
		n++
	}
	if !c.m.skipSteady(ino, c.cur.phys, n) {
		return 0
	}
	for j := k; j < k+n; j++ {
		c.pend[j].done = true
	}
	c.cur = c.pend[k+n-1]
	c.seq = c.cur.seq
	return n
}

// prune drops the blocks before logical block l, which no later window
// reaches.
func (c *copyWrites) prune(l uint64) {
	k := 0
	for k < len(c.pend) && c.pend[k].l < l {
		k++
	}
	// the blocks left move to the front, so that the array is reused: a
	// new one for every file's windows cost more in page faults than
	// the copy (BENCHMARKS.md)
	c.pend = c.pend[:copy(c.pend, c.pend[k:])]
	switch {
	case len(c.pend) == 0:
		c.ops = c.ops[:0]
	case c.pend[0].lo > len(c.ops)/2 && len(c.ops) > 1024:
		d := c.pend[0].lo
		c.ops = c.ops[:copy(c.ops, c.ops[d:])]
		for i := range c.pend {
			c.pend[i].lo -= d
			c.pend[i].hi -= d
		}
	}
}

// flush writes the block held (ext2fs_file_flush: a lookup, then the
// write), if any.
func (c *copyWrites) flush() {
	if c.have {
		if !c.blockMapped {
			c.lookup(&c.cur) // the uninit check of an extent
		}
		c.m.w(c.cur.phys)
		c.have = false
	}
}

// finish replays the windows left and the flush of ext2fs_file_close.
func (c *copyWrites) finish() {
	c.advance(c.size)
	c.flush()
}
