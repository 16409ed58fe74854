package ext

import "strconv"

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
// of its allocation, its physical block, and the extent tree blocks a
// lookup of it reads.
type blockIO struct {
	ops  []ioOp
	phys uint64
	path []uint64
}

// copyWrites holds a file's blocks of data as the layout allocated them,
// for replay in the order mke2fs's copy_file writes them.
type copyWrites struct {
	first map[uint64]blockIO
}

func (c *copyWrites) add(l, phys uint64, ops []ioOp, path []uint64) {
	c.first[l] = blockIO{ops, phys, path}
}

// copyWindow is COPY_FILE_BUFLEN: copy_file_chunk reads this much from
// each data region's start and writes every block of data in it, past
// the region's end too.
const copyWindow = 64 << 10

// replay makes the calls of copy_file over the file's data regions raw
// (as SEEK_DATA gives them): ext2fs_file_write of each block of data of
// each window, which flushes the block it holds (a lookup, then the
// write) when it moves to another, allocates a block at its first write
// and looks it up at a later one; the last block is flushed at close.
func (c *copyWrites) replay(m *ioModel, raw [][2]int64, size, bs int64) {
	done := map[uint64]bool{}
	var cur uint64
	have := false
	// path is the tree as the latest first write left it: what a lookup
	// then reads
	var path []uint64
	lookup := func() {
		for _, p := range path {
			m.r(p)
		}
	}
	flush := func() {
		lookup()
		m.w(c.first[cur].phys)
	}
	for _, reg := range raw {
		for off := reg[0]; off < reg[1]; off += copyWindow {
			end := min(off+copyWindow, size)
			for l := uint64(off / bs); int64(l)*bs < end; l++ {
				b, ok := c.first[l]
				if !ok || have && l == cur {
					continue
				}
				if have {
					flush()
				}
				cur, have = l, true
				if !done[l] {
					m.replay(b.ops)
					done[l], path = true, b.path
					continue
				}
				lookup() // load_buffer
				if int64(l+1)*bs > size {
					m.r(b.phys) // a partial block is read before it is written
				}
			}
		}
	}
	if have {
		flush()
	}
}
