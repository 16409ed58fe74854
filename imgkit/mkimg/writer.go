package mkimg

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// WriteFile writes the disk o describes to path, as freebsd-mkimg -f raw
// does. The disk goes through the block cache as the file-system images
// do (imgkit/bcache): made under a temporary name beside path and renamed
// over it only when complete, or written in place when path is a device
// or a pipe; the sectors no partition or metadata fills are holes where
// the file system allows them. o.Output is ignored.
func WriteFile(path string, o *Options) error {
	var spool spoolPlace
	if t, err := bcache.ResolveTarget(path); err == nil && t.Regular() {
		spool = spoolPlace{dir: t.Dir(), target: t.Path} // beside the disk, where its extents can be shared
	}
	_, err := writeTarget(imgfmt.ToFile(path), spool, o)
	return err
}

// Write writes the disk o describes to w, every byte of it from offset 0,
// and returns its size. The disk is built in memory first, so nothing is
// written to w when it cannot be made.
func Write(w io.WriterAt, o *Options) (int64, error) {
	im, err := writeTarget(imgfmt.ToWriterAt(w), spoolPlace{}, o)
	if err != nil {
		return 0, err
	}
	return im.Size(), nil
}

// Build returns the disk o describes, built in memory.
func Build(o *Options) ([]byte, error) {
	im, err := writeTarget(imgfmt.ToMemory(), spoolPlace{}, o)
	if err != nil {
		return nil, err
	}
	return im.Bytes(), nil
}

// writeTarget is the one path of WriteFile, Write and Build: it lays the
// disk out, running the partitions' commands and spooling what they write
// in spool, and writes it at t through imgfmt.WriteImage.
func writeTarget(t imgfmt.Target, spool spoolPlace, o *Options) (*bcache.Image, error) {
	if o.Query != "" {
		return nil, fmt.Errorf("%w: Query %q asks for no disk", ErrOption, o.Query)
	}
	l, err := planIn(o, spool, t.InMemory())
	if err != nil {
		return nil, err
	}
	defer l.close()
	cache := *diskCache
	cache.Progress = o.Progress
	var im *bcache.Image
	if l.format != nil {
		im, err = writeContainer(t, spool, l, &cache)
	} else {
		im, err = imgfmt.WriteImage(t, int64(l.sectors*l.secsz), &cache, l.write)
	}
	if err != nil && !strings.HasPrefix(err.Error(), "mkimg: ") {
		err = fmt.Errorf("mkimg: %w", err) // the block cache's errors name the path only
	}
	return im, err
}

// write copies the partitions' contents into im, then the scheme's
// metadata, whose GUIDs may depend on those contents. A partition placed
// over a bsd or vtoc8 scheme's metadata by an absolute offset may hold
// data only where the metadata's sectors are zeros (checkMetadataClash),
// as mkimg allows; the other schemes' metadata holds no partition
// (checkReserved).
func (l *layout) write(im *bcache.Image) error {
	sums := make([][sha256.Size]byte, len(l.parts))
	for i := range l.parts {
		sum, err := l.copyPartition(im, &l.parts[i])
		if err != nil {
			return err
		}
		sums[i] = sum
	}
	if err := l.checkMetadataClash(im); err != nil {
		return err
	}
	if l.hashes() {
		l.idSeed = l.seed(sums) // the container formats derive their ids from it
	}
	if l.s == nil {
		return nil // a disk without a scheme is its partitions' zeros
	}
	g := l.guids()
	return l.s.write(l, im, g)
}

// copyPartition copies a partition's bytes (its Source, file or command
// output) to its place on the disk and returns their content digest
// (digest.go) when the rule's seed is needed (l.hashes; an empty
// partition's is that of no bytes). Otherwise (in FreeBSD's test mode, or for a raw disk of a scheme
// without GUIDs or with every GUID given) nothing is hashed and the sum is
// zero.
func (l *layout) copyPartition(im *bcache.Image, p *placed) ([sha256.Size]byte, error) {
	var h hash.Hash
	var d *contentDigest
	if l.hashes() {
		d = newContentDigest()
		h = d
	}
	name := p.meterName()
	d.meter(l.meter, "hashing "+name, int64(p.bytes), nil) // a linked file is only hashed
	if p.stream != nil && l.links != nil {
		// A stream spooled by the container was hashed as it came.
		var sum [sha256.Size]byte
		b, err := l.links.linkStream(im, p, h)
		if err != nil {
			return sum, fmt.Errorf("%w: partition %d: %s: %w", ErrPartition, p.index+1, p.content(), err)
		}
		copy(sum[:], b)
		return sum, nil
	}
	if linked, err := l.links.link(l, p, h); linked || err != nil {
		if err != nil {
			return [sha256.Size]byte{}, fmt.Errorf("%w: partition %d: %s: %w", ErrPartition, p.index+1, p.content(), bareError(err))
		}
	} else if src := p.content(); src != nil {
		verb := "copying "
		if _, ok := src.(*builderSource); ok {
			verb = "writing "
		}
		d.meter(l.meter, "hashing "+name, int64(p.bytes), l.meter.Step(verb+name, int64(p.bytes)))
		if err := src.copyTo(im, int64(p.start*l.secsz), int64(p.bytes), h); err != nil {
			return [sha256.Size]byte{}, fmt.Errorf("%w: partition %d: %s: %w", ErrPartition, p.index+1, src, bareError(err))
		}
	}
	if h == nil {
		return [sha256.Size]byte{}, nil
	}
	return [sha256.Size]byte(h.Sum(nil)), nil
}

// spoolPlace is where the temporary files of a disk go (the raw disk of a
// container, the spools of commands' output and of a container's tables):
// beside a disk written to a regular file, named for it
// (tempfile.Pattern of the disk's name with what they hold added, as
// .fixturegen-tmp-disk.vmdk-raw-1a2b3c4d5e6f), so that the next write of
// the disk finds what a killed run left (tempfile.Leftovers); in
// os.TempDir, named for mkimg, for any other target.
type spoolPlace struct {
	dir    string // "" for os.TempDir
	target string // the disk's path; "" for none
}

// create makes a new temporary file in s holding what ("raw",
// "partition", ...).
func (s spoolPlace) create(what string) (*os.File, error) {
	name := "mkimg-" + what
	if s.target != "" {
		name = filepath.Base(s.target) + "-" + what
	}
	return tempfile.Create(s.dir, name)
}

// meterName names p's contents in the steps a progress meter shows
// ("copying part.img", "hashing part.img"): a file by its base name, a
// command by its output, any other Source as its String says.
func (p *placed) meterName() string {
	switch {
	case p.Source != nil:
		if f, ok := p.Source.(fileSource); ok {
			return filepath.Base(string(f))
		}
		return p.Source.String()
	case p.Command != "":
		return fmt.Sprintf("the output of %q", p.Command)
	}
	return filepath.Base(p.File)
}

// writeAt writes b, whole sectors of the scheme's metadata, at sector
// lba. As mkimg's image_write, it skips the sectors that are all zeros,
// which leaves a partition's data there when an absolute offset put a
// partition over them; the rest of the disk is zeros already.
func (l *layout) writeAt(w io.WriterAt, b []byte, lba uint64) error {
	for off := uint64(0); off < uint64(len(b)); {
		for off < uint64(len(b)) && diskio.IsZero(b[off:min(off+l.secsz, uint64(len(b)))]) {
			off += l.secsz
		}
		end := off
		for end < uint64(len(b)) && !diskio.IsZero(b[end:min(end+l.secsz, uint64(len(b)))]) {
			end += l.secsz
		}
		if end == off {
			break
		}
		at := lba + off/l.secsz
		if _, err := w.WriteAt(b[off:min(end, uint64(len(b)))], int64(at*l.secsz)); err != nil {
			return fmt.Errorf("mkimg: writing sector %d: %w", at, err)
		}
		off = end
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
