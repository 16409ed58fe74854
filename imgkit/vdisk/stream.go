package vdisk

import (
	"hash"
	"io"
	"os"
)

// A Streamer is a Format that spools a partition whose size is learned
// by reading it to its end (a command's output, a pipe) in the form its
// container stores it rather than raw, when the raw disk is held in a
// file: the partition then takes about the container's space beside the
// disk, not its whole raw size.
type Streamer interface {
	Format
	// SpoolStream reads r to its end into f, an unlinked temporary file:
	// the contents of a partition starting at the disk's byte start.
	SpoolStream(p *Params, f *os.File, start int64, r io.Reader) (Stream, error)
}

// A Stream is a partition's contents as a Streamer spooled them; each is
// read once, by CopyTo or by Link and the Streamer's Write.
type Stream interface {
	// Size is the contents' length in bytes.
	Size() int64
	// CopyTo writes the contents into w at off, hashing them into h
	// when h is not nil, as a raw spool would be copied.
	CopyTo(w io.WriterAt, off int64, h hash.Hash) error
	// Link writes into w, the raw disk, the contents' bytes the stream
	// does not hold in the container's form; the Streamer's Write takes
	// the rest from Disk.Streams.
	Link(w io.WriterAt) error
}
