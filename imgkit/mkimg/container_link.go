package mkimg

import (
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"sync/atomic"

	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// A container format reads its raw disk only through vdisk.Disk's
// methods, never through its file: the raw disk's temporary file holds
// only the metadata, and each partition of a regular file is linked to
// its file instead of copied into it (vdisk.Piece), so that a container
// of a large partition copies its data once, from the partition file to
// the container, not twice.

// link links p's file to the raw disk instead of copying it, when its
// source is a regular file that no metadata can share sectors with (no
// absolute offset), and reports whether it did; the file is hashed into
// h, when h is not nil, as copyTo would hash it.
func (k *linkedDisk) link(l *layout, p *placed, h hash.Hash) (bool, error) {
	if k == nil {
		return false, nil
	}
	src, ok := p.content().(fileSource)
	if !ok || p.Absolute || p.bytes == 0 {
		return false, nil
	}
	f, err := os.Open(string(src))
	if err != nil {
		return true, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("%s is not a regular file", src)
	case fi.Size() < int64(p.bytes):
		err = fmt.Errorf("%w: shrank from %d to %d bytes before being read", ErrSourceChanged, p.bytes, fi.Size())
	case h != nil:
		var stop atomic.Bool
		err = hashFile(h, string(src), fi, int64(p.bytes), &stop)
	}
	if err != nil {
		f.Close()
		return true, err
	}
	k.pieces = append(k.pieces, vdisk.Piece{Off: int64(p.start * l.secsz), N: int64(p.bytes), F: f})
	return true, nil
}

// linkedDisk collects, while a container's raw disk is written
// (layout.links), the partitions linked to their files and the streams
// a vdisk.Streamer spooled.
type linkedDisk struct {
	pieces  []vdisk.Piece
	streams []vdisk.Stream
	adopted bool // a vdisk.Disk holds the pieces and closes their files
}

// startLinks returns the linkedDisk that collects the partitions of l's
// raw disk linked to their files, and sets l.links to it.
func (l *layout) startLinks() *linkedDisk {
	l.links = &linkedDisk{}
	return l.links
}

// endLinks clears l.links once the raw disk is written, and closes the
// linked files when no raw disk adopted them (its writing failed).
func (l *layout) endLinks(k *linkedDisk) {
	l.links = nil
	if k != nil && !k.adopted {
		for _, p := range k.pieces {
			p.F.Close()
		}
	}
}

// adopt hands the pieces to the raw disk, which closes their files.
func (k *linkedDisk) adopt() []vdisk.Piece {
	k.adopted = true
	return k.pieces
}

// linkStream links p's stream to the raw disk: the bytes it does not
// hold in its container's form are written into w (the raw disk), and
// the stream is left for the container's Write (vdisk.Disk.Streams). It
// returns the contents' digest when h is not nil.
func (k *linkedDisk) linkStream(w io.WriterAt, p *placed, h hash.Hash) ([]byte, error) {
	if err := p.stream.Link(w); err != nil {
		return nil, err
	}
	k.streams = append(k.streams, p.stream)
	if h == nil {
		return nil, nil
	}
	if p.streamSum == nil {
		return nil, errors.New("mkimg: a stream was not digested") // streaming hashes as layout.hashes does
	}
	return p.streamSum.Sum(nil), nil
}

// streaming is how l's streams are spooled by the container format:
// for a vdisk.Streamer whose raw disk is a file (rawInMemory false),
// where the partitions are linked; nil otherwise (a raw spool).
func (l *layout) streaming(rawInMemory bool) *streaming {
	s, ok := l.format.(vdisk.Streamer)
	if rawInMemory || !ok {
		return nil
	}
	// A container format hashes unless -y, whatever the GUIDs given
	// (layout.hashes), so the partitions not placed yet do not matter.
	return &streaming{f: s, p: l.params(), secsz: int64(l.secsz), hash: l.hashes(),
		absolute: l.s != nil && l.s.reserved != nil} // checkReserved keeps the metadata off every partition
}

// streaming is what contents needs to spool a stream as its container
// stores it: the format and its parameters, whether to digest the
// contents for the GUID rule as they come (layout.hashes), and whether a
// partition placed by an absolute offset may be spooled so: not where
// the scheme's metadata may go over its zero sectors (a BSD or VTOC8
// label), which checkMetadataClash reads back from the raw disk.
type streaming struct {
	f        vdisk.Streamer
	p        *vdisk.Params
	secsz    int64
	hash     bool
	absolute bool
}

// unlinked makes a new temporary file in s holding what, unlinked, for
// a container's own spools (vdisk.Disk.Spool).
func (s spoolPlace) unlinked(what string) (*os.File, error) {
	f, err := s.create(what)
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	tempfile.Forget(f.Name())
	return f, nil
}
