package imgfmt

import (
	"errors"
	"io/fs"
	"path"
	"strings"
)

// MaxLinkDepth is how many symbolic links one Tree.Lookup follows before
// it fails with ErrLinkLoop, as Linux's path walk does (40), so that a
// link cycle in a corrupt or crafted image ends.
const MaxLinkDepth = 40

// ErrLinkLoop is the error Tree.Lookup returns, inside an *fs.PathError,
// for a path that needs more than MaxLinkDepth symbolic links.
var ErrLinkLoop = errors.New("too many levels of symbolic links")

// A Tree is the directory tree of a format's FS, over the format's own
// node type N (an entry, an inode), as Lookup walks it: the FS gives the
// root and a directory's children, and a format with symbolic links says
// which nodes are links and where they point. An FS builds one where it
// looks a name up:
//
//	func (f *FS) lookup(op, name string, follow bool) (*Inode, error) {
//		t := imgfmt.Tree[*Inode]{Root: f.rootInode, Child: f.child, IsLink: isLink, ReadLink: f.readlink}
//		return t.Lookup(op, name, follow)
//	}
type Tree[N any] struct {
	// Root returns the root directory.
	Root func() (N, error)
	// Child returns the node named name in the directory dir: an error
	// wrapping fs.ErrNotExist when dir has no such node or is not a
	// directory, and any other error as the image's.
	Child func(dir N, name string) (N, error)
	// IsLink reports whether n is a symbolic link, and ReadLink returns
	// its target; both are nil for a format without links. ReadLink is
	// only called for a link Lookup follows.
	IsLink   func(n N) bool
	ReadLink func(n N) (string, error)
}

// Lookup returns the node of name, a path as fs.ValidPath requires, for
// the operation op of the FS (its errors are *fs.PathError values with
// op and name). Symbolic links are followed in every element of name but
// the last, and in the last too when follow is set. A link's target is
// taken from the link's directory, or from the root when it starts with
// "/"; a target that leaves the tree ("../..") does not exist, and more
// than MaxLinkDepth links is ErrLinkLoop.
func (t Tree[N]) Lookup(op, name string, follow bool) (N, error) {
	var none N
	if !fs.ValidPath(name) {
		return none, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n, err := t.walk(name, follow, 0)
	if err != nil {
		return none, &fs.PathError{Op: op, Path: name, Err: err}
	}
	return n, nil
}

// walk resolves the valid path name from the root; depth counts the
// symbolic links followed so far.
func (t Tree[N]) walk(name string, follow bool, depth int) (N, error) {
	var none N
	n, err := t.Root()
	if err != nil {
		return none, err
	}
	if name == "." {
		return n, nil
	}
	elems := strings.Split(name, "/")
	for i, el := range elems {
		if n, err = t.Child(n, el); err != nil {
			return none, err
		}
		last := i == len(elems)-1
		if t.IsLink == nil || !t.IsLink(n) || last && !follow {
			continue
		}
		if depth >= MaxLinkDepth {
			return none, ErrLinkLoop
		}
		target, err := t.ReadLink(n)
		if err != nil {
			return none, err
		}
		p := resolveLink(strings.Join(elems[:i], "/"), target)
		if p == "" {
			return none, fs.ErrNotExist
		}
		if !last {
			p = path.Join(p, strings.Join(elems[i+1:], "/"))
		}
		return t.walk(p, follow, depth+1)
	}
	return n, nil
}

// resolveLink returns the path that the link target target names from
// the directory dir, or "" when it leaves the tree.
func resolveLink(dir, target string) string {
	p := path.Join(dir, target)
	if strings.HasPrefix(target, "/") {
		p = path.Clean(strings.TrimPrefix(target, "/"))
	}
	switch {
	case p == "" || p == "/":
		return "."
	case p == ".." || strings.HasPrefix(p, "../"):
		return ""
	}
	return p
}
