package ar

import (
	"fmt"
	"io"
	"os"

	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// A Writer writes an archive tar-style: WriteHeader, then the member's data
// with Write, for each member, then Close.
//
// Both the GNU and the BSD layout start with the symbol index, and the index
// holds every member's offset, so no byte of the archive can be written
// before the last member is known. A Writer therefore keeps member data in a
// spool (memory up to Options.SpoolMemory bytes, then one temporary file)
// and writes the whole archive to the underlying io.Writer in Close, in one
// pass. Programs that have their members as files should build a Plan
// instead, which reads each file where it is and never spools.
//
// Errors are sticky: after one, every call returns it.
type Writer struct {
	w       io.Writer
	opts    Options
	sp      spool
	entries []Entry
	remain  int64 // bytes still expected for the current member
	err     error
	closed  bool
}

// NewWriter returns a Writer that writes an archive to w laid out as opts
// says (nil: what GNU "ar rcsD" writes).
func NewWriter(w io.Writer, opts *Options) *Writer {
	aw := &Writer{w: w}
	if opts != nil {
		aw.opts = *opts
	}
	aw.sp.limit = aw.opts.SpoolMemory
	if aw.sp.limit <= 0 {
		aw.sp.limit = defaultSpoolMemory
	}
	return aw
}

// WriteHeader starts a new member. h.Size bytes must then be written. For a
// thin archive no data is written; the member's symbols are read from the
// file h.Name names, relative to the current directory, when it exists.
func (aw *Writer) WriteHeader(h *Header) error {
	if aw.err != nil {
		return aw.err
	}
	if aw.closed {
		return ErrWriteAfterClose
	}
	if aw.remain > 0 {
		aw.err = fmt.Errorf("%w: %d bytes missing before the next header", ErrShortWrite, aw.remain)
		return aw.err
	}
	if h.Name == "" {
		aw.err = fmt.Errorf("%w: empty Name", ErrName)
		return aw.err
	}
	if h.Size < 0 {
		aw.err = fmt.Errorf("%w: member %q: negative Size %d", ErrHeader, h.Name, h.Size)
		return aw.err
	}
	e := Entry{Header: *h}
	if aw.opts.Thin {
		if f, err := os.Open(h.Name); err == nil {
			e.Symbols, e.IsObject = elfSymbols(f, h.Size)
			f.Close()
		}
		if e.Symbols == nil {
			e.Symbols = []string{}
		}
	} else {
		aw.remain = h.Size
		e.Data = io.NewSectionReader(&aw.sp, aw.sp.size, h.Size)
	}
	aw.entries = append(aw.entries, e)
	return nil
}

// Write writes data of the current member.
func (aw *Writer) Write(p []byte) (int, error) {
	if aw.err != nil {
		return 0, aw.err
	}
	if aw.closed {
		return 0, ErrWriteAfterClose
	}
	if int64(len(p)) > aw.remain {
		aw.err = ErrWriteTooLong
		return 0, aw.err
	}
	if err := aw.sp.write(p); err != nil {
		aw.err = err
		return 0, err
	}
	aw.remain -= int64(len(p))
	return len(p), nil
}

// Close writes the archive and releases the spool. It does not close the
// underlying writer.
func (aw *Writer) Close() error {
	if aw.closed {
		return aw.err
	}
	aw.closed = true
	defer aw.sp.release()
	if aw.err != nil {
		return aw.err
	}
	if aw.remain > 0 {
		aw.err = fmt.Errorf("%w: %d bytes missing", ErrShortWrite, aw.remain)
		return aw.err
	}
	p, err := NewPlan(aw.entries, &aw.opts)
	if err != nil {
		aw.err = err
		return err
	}
	if _, err := p.WriteTo(aw.w); err != nil {
		aw.err = err
		return err
	}
	return nil
}

// spool keeps written bytes in memory, up to limit bytes, then in a
// temporary file.
type spool struct {
	mem   []byte
	f     *os.File
	size  int64
	limit int64
}

func (s *spool) write(p []byte) error {
	if s.f == nil && s.size+int64(len(p)) > s.limit {
		// Made tracked, so that a signal between the create and the
		// unlink does not leave it; unlinked, it is gone when closed,
		// even on a crash.
		f, err := tempfile.Create("", "ar-spool")
		if err != nil {
			return fmt.Errorf("ar: spool: %w", err)
		}
		os.Remove(f.Name())
		tempfile.Forget(f.Name())
		if _, err := f.Write(s.mem); err != nil {
			f.Close()
			return fmt.Errorf("ar: spool: %w", err)
		}
		s.f, s.mem = f, nil
	}
	if s.f != nil {
		if _, err := s.f.WriteAt(p, s.size); err != nil {
			return fmt.Errorf("ar: spool: %w", err)
		}
	} else {
		s.mem = append(s.mem, p...)
	}
	s.size += int64(len(p))
	return nil
}

func (s *spool) ReadAt(p []byte, off int64) (int, error) {
	if s.f != nil {
		return s.f.ReadAt(p, off)
	}
	if off >= int64(len(s.mem)) {
		return 0, io.EOF
	}
	n := copy(p, s.mem[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (s *spool) release() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	s.mem = nil
}
