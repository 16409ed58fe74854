package mkimg

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"io"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// WriteFile writes the disk o describes to path, as freebsd-mkimg -f raw
// does. The disk goes through the block cache as the file-system images
// do (imgkit/bcache): made under a temporary name beside path and renamed
// over it only when complete, or written in place when path is a device
// or a pipe; the sectors no partition or metadata fills are holes where
// the file system allows them. o.Output is ignored.
func WriteFile(path string, o *Options) error {
	_, err := writeTarget(imgfmt.ToFile(path), o)
	return err
}

// Write writes the disk o describes to w, every byte of it from offset 0,
// and returns its size. The disk is built in memory first, so nothing is
// written to w when it cannot be made.
func Write(w io.WriterAt, o *Options) (int64, error) {
	im, err := writeTarget(imgfmt.ToWriterAt(w), o)
	if err != nil {
		return 0, err
	}
	return im.Size(), nil
}

// Build returns the disk o describes, built in memory.
func Build(o *Options) ([]byte, error) {
	im, err := writeTarget(imgfmt.ToMemory(), o)
	if err != nil {
		return nil, err
	}
	return im.Bytes(), nil
}

// writeTarget is the one path of WriteFile, Write and Build: it lays the
// disk out and writes it at t through imgfmt.WriteImage.
func writeTarget(t imgfmt.Target, o *Options) (*bcache.Image, error) {
	l, err := plan(o)
	if err != nil {
		return nil, err
	}
	im, err := imgfmt.WriteImage(t, int64(l.sectors*l.secsz), diskCache, func(im *bcache.Image) error { return l.write(im) })
	if err != nil && !strings.HasPrefix(err.Error(), "mkimg: ") {
		err = fmt.Errorf("mkimg: %w", err) // the block cache's errors name the path only
	}
	return im, err
}

// write copies the partitions' contents into im, then the scheme's
// metadata, whose GUIDs may depend on those contents.
func (l *layout) write(im *bcache.Image) error {
	sums := make([][sha256.Size]byte, len(l.parts))
	for i := range l.parts {
		sum, err := l.copyPartition(im, &l.parts[i])
		if err != nil {
			return err
		}
		sums[i] = sum
	}
	g := l.guids(sums)
	return l.s.write(l, im, g)
}

// copyPartition copies a partition's bytes from its source to its place
// on the disk and returns their SHA-256 when the GUIDs are derived (an
// empty partition's is that of no bytes); in FreeBSD's test mode nothing
// is hashed and the sum is zero.
func (l *layout) copyPartition(im *bcache.Image, p *placed) ([sha256.Size]byte, error) {
	var h hash.Hash
	if !l.testMode {
		h = sha256.New()
	}
	if src := p.source(); src != nil {
		if err := src.copyTo(im, int64(p.start*l.secsz), int64(p.bytes), h); err != nil {
			return [sha256.Size]byte{}, fmt.Errorf("%w: partition %d: %s: %w", ErrPartition, p.index+1, src, bareError(err))
		}
	}
	if h == nil {
		return [sha256.Size]byte{}, nil
	}
	return [sha256.Size]byte(h.Sum(nil)), nil
}

// writeAt writes b, whole sectors, at sector lba.
func (l *layout) writeAt(w io.WriterAt, b []byte, lba uint64) error {
	if _, err := w.WriteAt(b, int64(lba*l.secsz)); err != nil {
		return fmt.Errorf("mkimg: writing sector %d: %w", lba, err)
	}
	return nil
}

// bootSector returns LBA 0's buffer: the boot code's bytes before the
// partition records, zeros after them, and the boot signature.
func (l *layout) bootSector() ([]byte, *mbrRecord) {
	b := make([]byte, l.secsz)
	m := (*mbrRecord)(b[:512])
	if l.bootcode != nil {
		copy(m.bootArea(), l.bootcode)
	}
	binary.LittleEndian.PutUint16(m.signature(), mbrSignature)
	return b, m
}

// lower7 lowers an ASCII type alias for the type tables.
func lower7(s string) string {
	return strings.ToLower(s)
}
