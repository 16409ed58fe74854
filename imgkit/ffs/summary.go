package ffs

// summaryChunk bounds the bytes of the summary area that summaryWriter
// holds: a 64 TiB image has 1.4 MB of it (16 bytes a group).
const summaryChunk = 64 << 10

// A summaryWriter writes the summary area at fs_csaddr (the struct csum of
// every group, then zeros to fs_cssize) a chunk at a time, as writeMeta
// passes the groups in order.
type summaryWriter struct {
	w   *writer
	buf []byte // a multiple of csumSize bytes, no more than fs_cssize
	n   int    // bytes of buf filled
	off int64  // where buf goes in the area
}

// add appends the struct csum of the next group.
func (s *summaryWriter) add(cs []byte) error {
	s.n += copy(s.buf[s.n:], cs)
	if s.n < len(s.buf) {
		return nil
	}
	return s.flush(s.n)
}

// finish writes what add left and the zeros up to fs_cssize.
func (s *summaryWriter) finish() error {
	if rest := s.w.g.cssize - s.off; rest > 0 {
		return s.flush(int(min(rest, int64(len(s.buf)))))
	}
	return nil
}

// flush writes the first n bytes of buf, zero past s.n, and starts a new
// chunk.
func (s *summaryWriter) flush(n int) error {
	clear(s.buf[s.n:n])
	err := s.w.writeAt(s.buf[:n], s.w.g.csaddr*s.w.g.fsize+s.off)
	s.off += int64(n)
	s.n = 0
	return err
}
