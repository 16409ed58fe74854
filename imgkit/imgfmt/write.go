package imgfmt

import (
	"errors"
	"io"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// A Target is where a format's writer makes an image: a file (ToFile, for
// the format's WriteFile), an io.WriterAt (ToWriterAt, for Write) or
// memory (ToMemory, for Build). A format writes one function from a
// Target to an image, and its WriteFile, Write and Build each call it:
//
//	func Build(src fstree.Source, opts *Options) ([]byte, error) {
//		im, err := writeTarget(imgfmt.ToMemory(), src, opts)
//		if err != nil {
//			return nil, err
//		}
//		return im.Bytes(), nil
//	}
type Target struct {
	path string
	w    io.WriterAt
	mem  bool
}

// ToFile returns the Target of the image file path, which appears only
// when the image is complete (bcache.Create).
func ToFile(path string) Target { return Target{path: path} }

// ToWriterAt returns the Target of w: the image is made in memory and
// then written to w from offset 0 (bcache.CreateWriterAt), or, when w is
// a bcache.InPlaceCreator (a section of a disk being written), built in
// place in w.
func ToWriterAt(w io.WriterAt) Target { return Target{w: w} }

// ToMemory returns the Target of an image kept in memory
// (bcache.CreateMemory), whose Bytes are the image.
func ToMemory() Target { return Target{mem: true} }

// InMemory reports whether the image is held whole in memory until it is
// complete, as it is for ToMemory and for ToWriterAt but of an image
// built in place: a format that bounds the memory an image takes checks
// it then.
func (t Target) InMemory() bool {
	_, inPlace := t.w.(bcache.InPlaceCreator)
	return t.path == "" && !inPlace
}

// InPlace reports whether the image is built in place in a
// bcache.InPlaceCreator (a section of a disk being written): its writes
// reach the destination as they are made, not only once it is complete.
func (t Target) InPlace() bool {
	_, inPlace := t.w.(bcache.InPlaceCreator)
	return inPlace
}

// create makes the block-cache image of size bytes at t.
func (t Target) create(size int64, c *bcache.Options) (*bcache.Image, error) {
	switch {
	case t.mem:
		return bcache.CreateMemory(size, c)
	case t.w != nil:
		return bcache.CreateWriterAt(t.w, size, c)
	}
	return bcache.Create(t.path, size, c)
}

// WriteImage makes the image of size bytes at t through the block cache
// with the options c, calls fill to write it (inside Image.Guard, so that
// a failed block write is fill's error) and commits it. On any error the
// image is aborted: a file is left as it was, and nothing is written to a
// WriterAt.
func WriteImage(t Target, size int64, c *bcache.Options, fill func(im *bcache.Image) error) (*bcache.Image, error) {
	im, err := t.create(size, c)
	if err != nil {
		return nil, err
	}
	defer im.Abort()
	if err := im.Guard(func() error { return fill(im) }); err != nil {
		return nil, err
	}
	if err := im.Commit(); err != nil {
		return nil, err
	}
	return im, nil
}

// ErrNoSource is the error of SourceTree for a source that holds no tree:
// a nil Source, or a nil *fstree.Tree or one without a Root.
var ErrNoSource = errors.New("no source tree")

// SourceTree returns the tree of src read with the options o (the time
// rule of the format's Options) and checks its paths, which bounds its
// depth so that a format's layout of it is linear. A *fstree.Tree source
// is changed in place, as its Tree method does. The caller prefixes the
// error with its format's name.
func SourceTree(src fstree.Source, o *fstree.Options) (*fstree.Tree, error) {
	if t, ok := src.(*fstree.Tree); src == nil || ok && (t == nil || t.Root == nil) {
		return nil, ErrNoSource
	}
	t, err := src.Tree(o)
	if err == nil {
		err = t.CheckPaths()
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}
