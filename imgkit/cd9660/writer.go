package cd9660

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// WriteFile makes the ISO 9660 image of src with opts (nil is the zero
// Options), as FreeBSD makefs -t cd9660 does, and writes it to the file
// path through the block cache (Options.Cache). The image appears at path
// only when complete: on any error the temporary file is removed and path
// is left as it was. The tree of src is read with the time rule of
// opts.Timestamp and opts.ClampTimes (a *fstree.Tree given as src has it
// applied in place, as its Tree method does).
func WriteFile(path string, src fstree.Source, opts *Options) error {
	_, err := writeTarget(imgfmt.ToFile(path), src, opts)
	return err
}

// Write makes the image WriteFile makes and writes it to dst, every byte of
// it from offset 0, and returns its size (0 on any error). The image is
// built in memory first: nothing is written to dst when it cannot be made,
// and dst may hold part of it when a write to dst fails. A dst that is a
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

// writeTarget is the one path of WriteFile, Write and Build: it lays the
// volume out and writes it at t.
func writeTarget(t imgfmt.Target, src fstree.Source, opts *Options) (*bcache.Image, error) {
	v, err := prepare(src, opts)
	if err != nil {
		return nil, err
	}
	return imgfmt.WriteImage(t, v.fileSize(), v.o.Cache, v.write)
}

// volume is everything decided before the first byte is written.
type volume struct {
	o    Options
	tree *fstree.Tree
	*builder
	rr *rrPass

	next          int64 // first sector not yet placed
	descriptors   []placedDescriptor
	dirs          []*isoNode // in path table order
	ptLen         int
	lPath, mPath  int64
	caInline      bool  // continuation areas after their directories
	volumeSectors int64 // the Volume Space Size
	joliet        *jolietVolume
	boot          *bootArea
}

// fileSize is the size of the image file.
func (v *volume) fileSize() int64 { return v.next * SectorSize }

// prepare checks the options, reads the tree and lays the volume out.
func prepare(src fstree.Source, opts *Options) (*volume, error) {
	v := &volume{}
	if opts != nil {
		v.o = *opts
	}
	if err := v.o.check(); err != nil {
		return nil, err
	}
	t, err := imgfmt.SourceTree(src, v.o.treeOptions())
	if errors.Is(err, imgfmt.ErrNoSource) {
		return nil, fmt.Errorf("%w: %w", ErrParams, err)
	}
	if err != nil {
		return nil, fmt.Errorf("cd9660: %w", err)
	}
	v.tree = t
	v.builder = &builder{o: &v.o, rules: v.o.nameRules(), volTime: v.o.volumeTime(t)}
	if err := v.buildTree(t); err != nil {
		return nil, err
	}
	if v.o.Archimedes {
		addArchimedes(v.root)
	}
	if v.o.RockRidge {
		v.rr = &rrPass{root: v.root, rrMoved: v.rrMoved, serials: map[*fstree.Node]uint32{}, attrsFirst: v.o.Joliet,
			debian: v.o.debian()}
		if v.rr.debian {
			v.rr.serials = debianSerials(t)
		}
		v.rr.initialize(v.root, v.root, nil)
	}
	if v.o.Joliet {
		if err := v.buildJoliet(); err != nil {
			return nil, err
		}
	}
	for _, step := range layoutSteps {
		if err := step(v); err != nil {
			return nil, err
		}
	}
	v.warnSizes()
	return v, nil
}

// volumeTime is the time of the volume descriptors and of the records
// makefs dates with its clock (the root, RR_MOVED, relocation
// placeholders): Timestamp when set (-T, or SOURCE_DATE_EPOCH as an upper
// bound, which the clock is past), else the root directory's modification
// time, so that the image depends on its inputs only.
func (o *Options) volumeTime(t *fstree.Tree) time.Time {
	if !o.Timestamp.IsZero() && !o.debian() {
		return o.Timestamp.UTC()
	}
	return t.Root.Mtime.UTC()
}

// warnSizes warns that Options.Size, MinSize and MaxSize change nothing.
func (v *volume) warnSizes() {
	if v.o.Warn != nil && (v.o.Size != 0 || v.o.MinSize != 0 || v.o.MaxSize != 0) {
		fmt.Fprintf(v.o.Warn, "cd9660: the image size (-s, -m, -M) is ignored, as makefs ignores it for cd9660: the image takes %d bytes\n",
			v.fileSize())
	}
}

// writeStep is one step of writing the image.
type writeStep func(v *volume, im *bcache.Image) error

// writeSteps lists the steps of writing the image. The image is zero
// where no step writes.
var writeSteps = []writeStep{
	(*volume).writeDescriptors,
	(*volume).writePathTables,
	(*volume).writeDirs,
	(*volume).writeContinuation,
	(*volume).writeJoliet,
	(*volume).writeFiles,
	(*volume).writeBoot,
}

// write runs the write steps.
func (v *volume) write(im *bcache.Image) error {
	for _, step := range writeSteps {
		if err := step(v, im); err != nil {
			return err
		}
	}
	return nil
}

// writeFiles copies the contents of every file into its extent, each
// hard-link group once, and, in an image with Joliet, the target of every
// symbolic link into its own (see linkContents).
func (v *volume) writeFiles(im *bcache.Image) error {
	var batch []bcache.FileCopy
	var nodes []*fstree.Node
	done := map[*fileData]bool{}
	v.eachRecord(v.root, func(n *isoNode) {
		if n.kind != kindFile || n.virtual || n.dataLen == 0 || done[n.data] {
			return
		}
		s := n.src
		if s.Type != fstree.TypeFile && s.Type != fstree.TypeSymlink {
			return
		}
		done[n.data] = true
		fc := bcache.FileCopy{Off: int64(n.data.sector) * SectorSize, N: s.Size, Path: s.SourcePath,
			Pad: (SectorSize - s.Size%SectorSize) % SectorSize}
		switch {
		case s.Type == fstree.TypeSymlink:
			fc.Path, fc.Open = "", linkContents(s)
		case s.SourcePath == "":
			fc.Open = func() (io.ReadCloser, error) { return s.Open() }
		}
		batch = append(batch, fc)
		nodes = append(nodes, s)
	})
	if i, err := im.CopyFiles(batch); err != nil {
		if i < 0 {
			return err
		}
		return fmt.Errorf("cd9660: %s: %w", nodes[i].Path(), err)
	}
	return nil
}

// eachRecord calls fn for every record under d, pre-order.
func (v *volume) eachRecord(d *isoNode, fn func(*isoNode)) {
	fn(d)
	for _, c := range d.children {
		if c.kind == kindDir {
			v.eachRecord(c, fn)
		} else {
			fn(c)
		}
	}
}

// linkContents returns the contents of the symbolic link n's extent in an
// image with Joliet: its target, which its Data Length counts. makefs
// gives a link no sector of its own (its extent is the next free sector,
// that of the file after it), which bsdtar reads without Rock Ridge as a
// hard link of that file, extracting the file with the link's size, and
// which 7z, iso-info and xorriso, reading the Joliet records, read as the
// next file's first bytes. Plain images keep makefs's bytes.
func linkContents(n *fstree.Node) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(n.Link)), nil }
}
