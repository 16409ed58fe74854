package vdisk

import (
	"errors"
	"io"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// The errors a Format returns wrap one of these; mkimg returns them as
// its own (mkimg.ErrTooLarge is ErrTooLarge, ...).
var (
	// ErrOption reports a Params value the format cannot write, such as a
	// time its header cannot hold.
	ErrOption = errors.New("mkimg: bad option")
	// ErrTooLarge reports a disk past what the format holds.
	ErrTooLarge = errors.New("mkimg: disk too large")
	// ErrSourceChanged reports a disk whose bytes changed between the
	// scan that laid the container out and its writing.
	ErrSourceChanged = errors.New("partition source changed")
)

// An Opener reads a container format: Match tells its file by its first
// bytes, Open returns the virtual disk it holds.
type Opener interface {
	// Name is the format's name, as mkimg's -f takes it.
	Name() string
	// Match reports whether head, the first describe.HeadSize bytes of a
	// file (or fewer), begins a container of the format.
	Match(head []byte) bool
	// Open returns the virtual disk the container in r (size bytes)
	// holds. It is bounded and fuzzed as every reader is.
	Open(r io.ReaderAt, size int64) (Reader, error)
}

// A Format is a container format mkimg writes, as its format.h describes
// one (a resize and a write hook), and reads.
type Format interface {
	Opener
	// Description is the line mkimg's usage gives the format.
	Description() string
	// Resize returns the disk's size in sectors as the format needs it,
	// given the size the scheme and the capacities chose (mkimg's
	// format_resize, which may round it up). It runs before the scheme
	// writes its metadata, so that a table at the disk's end sits at the
	// grown end.
	Resize(p *Params, sectors uint64) (uint64, error)
	// Write lays out the container of d, the finished raw disk of
	// p.Sectors sectors, and returns its size in bytes and the function
	// that writes it into an image of that size (zeros, through the block
	// cache).
	Write(p *Params, d *Disk) (size int64, write func(im *bcache.Image) error, err error)
}

// A Reader is the virtual disk of a container, as Open returns it.
type Reader interface {
	io.ReaderAt
	// Size is the virtual disk's size in bytes.
	Size() int64
	// Fields are the fields of the container's own records, named as its
	// specification names them, at their offsets in the container's file,
	// for describe and diff.
	Fields() []describe.Field
	// Close closes the files Open opened besides the container's own (a
	// VMDK descriptor's extents).
	Close() error
}

// A Spanner is a Reader that says where the virtual disk's bytes lie in
// the container's file, so that the fields of the disk's tables and file
// systems can be placed there; a Reader that is no Spanner leaves them
// at their offsets on the virtual disk.
type Spanner interface {
	// FileSpans returns the file's ranges holding the n bytes of the
	// disk at off, in order; bytes the file does not hold have none.
	FileSpans(off, n int64) [][2]int64
}

// A TailMatcher is a Format whose file is told by its last bytes rather
// than its first (a fixed VHD's footer): a file no Format matches is
// tried with MatchTail before it is taken for a raw disk.
type TailMatcher interface {
	MatchTail(r io.ReaderAt, size int64) bool
}
