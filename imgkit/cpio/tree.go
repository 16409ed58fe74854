package cpio

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// WriteFile makes the cpio image of src with opts (nil is the zero
// Options), as GNU cpio -o --reproducible given the tree's paths as find
// prints them, sorted bytewise (LC_ALL=C sort), does, and writes it to the
// file path through the block cache (Options.Cache). The image appears at path only when
// complete: on any error the temporary file is removed and path is left as
// it was. The tree of src is read with the time rule of opts.Timestamp and
// opts.ClampTimes.
func WriteFile(path string, src fstree.Source, opts *Options) error {
	_, err := writeTarget(imgfmt.ToFile(path), src, opts)
	return err
}

// Write makes the image WriteFile makes and writes it to dst, every byte of
// it from offset 0, and returns its size (0 on any error). A dst that is a
// bcache.InPlaceCreator (a bcache.Section, or a partition mkimg writes)
// gets the image built in place instead: the same bytes, but what the image
// leaves zero is not written (it stays a hole of a disk file) and memory
// does not grow with the image.
func Write(dst io.WriterAt, src fstree.Source, opts *Options) (int64, error) {
	im, err := writeTarget(imgfmt.ToWriterAt(dst), src, opts)
	if err != nil {
		return 0, err
	}
	return im.Size(), nil
}

// Build makes the image WriteFile makes, in memory, and returns it.
func Build(src fstree.Source, opts *Options) ([]byte, error) {
	im, err := writeTarget(imgfmt.ToMemory(), src, opts)
	if err != nil {
		return nil, err
	}
	return im.Bytes(), nil
}

// writeTarget is the one path of WriteFile, Write and Build.
func writeTarget(t imgfmt.Target, src fstree.Source, opts *Options) (*bcache.Image, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	tree, err := imgfmt.SourceTree(src, &fstree.Options{Timestamp: o.Timestamp, ClampTimes: o.ClampTimes})
	if err != nil {
		if errors.Is(err, imgfmt.ErrNoSource) {
			return nil, fmt.Errorf("cpio: %w", err)
		}
		return nil, err
	}
	p, err := PlanTree(tree, &o)
	if err != nil {
		return nil, err
	}
	return imgfmt.WriteImage(t, p.Size(), o.Cache, p.WriteAtTo)
}

// A Plan is an archive laid out in full before any byte is written: each
// entry's header, the offset of its data and the archive's size, padded to
// whole blocks. WriteTo streams it; WriteAtTo writes it at fixed offsets
// into an image such as a *bcache.Image.
type Plan struct {
	format Format
	recs   []*record
	hdrs   [][]byte
	offs   []int64 // header offsets
	size   int64
}

// NewPlan lays out the archive "cpio -o" writes for the names of a list,
// read as Writer.AddFile reads them. For FormatCRC it reads every regular
// file once for its sum.
func NewPlan(names []string, opts *Options) (*Plan, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	var recs []*record
	l := newLister(&o, func(r *record) error { recs = append(recs, r); return nil })
	for _, n := range names {
		r, err := l.stat(n)
		if err != nil {
			return nil, err
		}
		if err := l.add(r); err != nil {
			return nil, err
		}
	}
	if err := l.final(); err != nil {
		return nil, err
	}
	return layout(recs, &o)
}

// PlanTree lays out the archive of tree: its nodes in the bytewise order
// of their paths from "." ("find . | LC_ALL=C sort"), named without "./",
// inodes numbered from 0 in that order, hard-link groups (fstree's) held
// back as GNU cpio holds back the links of a file, device numbers 0.
// Node.Nlink is c_nlink. The times in tree are stored as they are.
func PlanTree(tree *fstree.Tree, opts *Options) (*Plan, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if tree == nil || tree.Root == nil {
		return nil, fmt.Errorf("cpio: %w", imgfmt.ErrNoSource)
	}
	type item struct {
		key  string // the path find(1) prints
		node *fstree.Node
	}
	var items []item
	var walk func(n *fstree.Node, p string)
	walk = func(n *fstree.Node, p string) {
		items = append(items, item{p, n})
		for _, c := range n.Children {
			walk(c, p+"/"+c.Name)
		}
	}
	walk(tree.Root, ".")
	slices.SortFunc(items, func(a, b item) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	var recs []*record
	l := newLister(&o, func(r *record) error { recs = append(recs, r); return nil })
	for _, it := range items {
		r, err := nodeRecord(l, it.node, stripDotSlash(it.key))
		if err != nil {
			return nil, err
		}
		if err := l.add(r); err != nil {
			return nil, err
		}
	}
	if err := l.final(); err != nil {
		return nil, err
	}
	return layout(recs, &o)
}

// typeBits maps fstree's node types to c_mode's type bits.
var typeBits = map[fstree.Type]uint32{
	fstree.TypeFile:    ModeRegular,
	fstree.TypeDir:     ModeDir,
	fstree.TypeSymlink: ModeSymlink,
	fstree.TypeFIFO:    ModeFIFO,
	fstree.TypeSocket:  ModeSocket,
	fstree.TypeChar:    ModeChar,
	fstree.TypeBlock:   ModeBlock,
}

// nodeRecord returns the record of the node n named name.
func nodeRecord(l *lister, n *fstree.Node, name string) (*record, error) {
	bits, ok := typeBits[n.Type]
	if !ok {
		return nil, fmt.Errorf("cpio: %s: node type %v", name, n.Type)
	}
	r := &record{}
	h := &r.h
	h.Name = name
	h.Mode = bits | n.Mode&0o7777
	h.Nlink = max(n.Nlink, 1)
	h.UID, h.GID = l.opts.owner(n.UID, n.GID)
	h.Mtime = l.opts.mtime(n.Mtime)
	group := n
	if n.HardLink != nil {
		group = n.HardLink
	}
	h.Ino = l.number(group, h.Nlink)
	switch n.Type {
	case fstree.TypeFile:
		h.Size = group.Size
		r.open = func() (io.ReadCloser, error) { return group.Open() }
	case fstree.TypeSymlink:
		r.data = []byte(linkTarget(n.Link))
		h.Size = int64(len(r.data))
	case fstree.TypeChar, fstree.TypeBlock:
		h.RdevMajor, h.RdevMinor = fstree.Major(n.Rdev), fstree.Minor(n.Rdev)
	}
	return r, nil
}

// layout places the records one after another, then the trailer, and
// pads the archive to whole blocks.
func layout(recs []*record, o *Options) (*Plan, error) {
	block, err := o.blockSize()
	if err != nil {
		return nil, err
	}
	if o.Format < FormatNewc || o.Format > FormatODC {
		return nil, fmt.Errorf("%w: %v", ErrUnsupportedFormat, o.Format)
	}
	p := &Plan{format: o.Format, recs: append(recs, &record{h: *trailer()})}
	var off int64
	for _, r := range p.recs {
		if o.Format == FormatCRC && r.h.Size > 0 && r.open != nil {
			if r.h.Check, err = r.checksum(); err != nil {
				return nil, err
			}
		}
		b, err := encode(o.Format, &r.h)
		if err != nil {
			return nil, err
		}
		p.hdrs = append(p.hdrs, b)
		p.offs = append(p.offs, off)
		off += int64(len(b)) + r.h.Size + dataPad(o.Format, r.h.Size)
	}
	p.size = roundUp(off, block)
	return p, nil
}

// Size returns the archive's size in bytes, whole blocks.
func (p *Plan) Size() int64 { return p.size }

// Names returns the names of the entries in archive order, the trailer
// left out.
func (p *Plan) Names() []string {
	var out []string
	for _, r := range p.recs[:len(p.recs)-1] {
		out = append(out, r.h.Name)
	}
	return out
}

// WriteTo streams the archive to w.
func (p *Plan) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	for i, r := range p.recs {
		if _, err := cw.Write(p.hdrs[i]); err != nil {
			return cw.n, err
		}
		if err := r.copyData(cw); err != nil {
			return cw.n, err
		}
		if pad := dataPad(p.format, r.h.Size); pad > 0 {
			if _, err := cw.Write(make([]byte, pad)); err != nil {
				return cw.n, err
			}
		}
	}
	if rest := p.size - cw.n; rest > 0 {
		if _, err := cw.Write(make([]byte, rest)); err != nil {
			return cw.n, err
		}
	}
	return cw.n, nil
}

// An Image is where WriteAtTo puts an archive: fixed-offset writes for the
// headers and a bulk copy for file data. *bcache.Image satisfies it.
type Image interface {
	WriteAt(p []byte, off int64) (int, error)
	CopyFrom(off int64, r io.Reader, n int64) error
}

// WriteAtTo writes the archive into img, whose bytes are zero, at offsets
// 0..Size: the padding is not written.
func (p *Plan) WriteAtTo(img *bcache.Image) error { return p.writeAt(img) }

func (p *Plan) writeAt(img Image) error {
	for i, r := range p.recs {
		off := p.offs[i]
		if _, err := img.WriteAt(p.hdrs[i], off); err != nil {
			return err
		}
		off += int64(len(p.hdrs[i]))
		switch {
		case r.h.Size == 0:
		case r.data != nil:
			if _, err := img.WriteAt(r.data, off); err != nil {
				return err
			}
		default:
			rc, err := r.open()
			if err != nil {
				return err
			}
			err = img.CopyFrom(off, rc, r.h.Size)
			rc.Close()
			if err != nil {
				return fmt.Errorf("cpio: %s: %w", r.h.Name, err)
			}
		}
	}
	return nil
}

// copyData writes the record's Size data bytes to w.
func (r *record) copyData(w io.Writer) error {
	switch {
	case r.h.Size == 0:
		return nil
	case r.data != nil:
		_, err := w.Write(r.data)
		return err
	}
	rc, err := r.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	if _, err := io.CopyN(w, rc, r.h.Size); err != nil {
		if err == io.EOF {
			err = fmt.Errorf("%w: %s", ErrShortWrite, r.h.Name)
		}
		return err
	}
	return nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
