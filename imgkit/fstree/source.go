package fstree

import "io/fs"

// A Source is where an image's files come from: a host directory (Dir), an
// io/fs.FS (FS), or a Tree built already, for example from an mtree spec
// with ApplySpec. The image writers take a Source, so that building an
// image from any of them is one call.
type Source interface {
	// Tree returns the source's tree with the metadata rules of opts
	// applied (see the package documentation for the time rule).
	Tree(opts *Options) (*Tree, error)
}

// Dir returns the Source of the host directory path, walked as WalkDir
// walks it: with lstat, never following symbolic links, with owners,
// modes, times and hard-link groups as the host has them.
func Dir(path string) Source { return dirSource(path) }

type dirSource string

func (d dirSource) Tree(opts *Options) (*Tree, error) { return WalkDir(string(d), opts) }

// FS returns the Source of the root of fsys, read as FromFS reads it.
// An entry of fsys that carries no host metadata (its FileInfo.Sys is not
// a stat structure, as with testing/fstest.MapFS) and no permission bits
// gets mode 0644 for a file and 0755 for a directory, since a
// MapFile{Data: ...} without a Mode means an ordinary file; any other mode
// is kept as the FS reports it.
func FS(fsys fs.FS) Source { return fsSource{fsys} }

type fsSource struct{ fsys fs.FS }

func (s fsSource) Tree(opts *Options) (*Tree, error) { return FromFS(s.fsys, ".", opts) }

// Tree returns t itself after applying the time rule of opts to it, so
// that a tree built by hand or from a spec is a Source. The rule is
// idempotent: applying the options a tree was built with changes nothing,
// and only the times it changes are written, so builds that share a tree
// whose times already follow their options (a first Tree call with them
// does that) only read it and may run at once; builds with other time
// options need a tree each.
func (t *Tree) Tree(opts *Options) (*Tree, error) {
	opts.normalize(t)
	return t, nil
}
