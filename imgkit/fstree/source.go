package fstree

import (
	"embed"
	"io/fs"
	"testing/fstest"
)

// A Source is where an image's files come from: a host directory (Dir), an
// io/fs.FS (FS), or a Tree built already, for example from an mtree spec
// with ApplySpec. The image writers take a Source, so that building an
// image from any of them is one call.
type Source interface {
	// Tree returns the source's tree with the metadata rules of opts
	// applied (see Times in DETAILS.md for the time rule).
	Tree(opts *Options) (*Tree, error)
}

// Dir returns the Source of the host directory path, walked as WalkDir
// walks it: with lstat, never following symbolic links, with owners,
// modes, times and hard-link groups as the host has them.
func Dir(path string) Source { return dirSource(path) }

type dirSource string

func (d dirSource) Tree(opts *Options) (*Tree, error) { return WalkDir(string(d), opts) }

// FS returns the Source of the root of fsys, read as FromFS reads it.
//
// Where an entry's FileInfo.Sys is a *syscall.Stat_t (os.DirFS on Unix)
// its metadata is the host's, as with Dir. Otherwise (testing/fstest.MapFS,
// embed.FS, a reader's fs.FS) the fs.FS can say only a type, permission
// bits, a size and one time, and the rest is assumed:
//
//   - Modes: the permission, setuid, setgid and sticky bits of
//     FileInfo.Mode, except where the fs.FS made the mode up rather than
//     being told it. An entry with no permission bits at all (a MapFile
//     without a Mode) is an ordinary file, 0644, a directory, 0755, or a
//     symbolic link, 0777 (as symlink(2) makes links on Linux). A
//     directory that a testing/fstest.MapFS synthesises, because a key
//     below it names a file but the map has no key for the directory
//     itself, is 0755, although MapFS reports 0555; a directory with a key
//     of its own keeps its Mode, 0555 included. A MapFS is recognised as
//     the value or pointer FS is given (fs.Sub of one hides the map, so
//     its synthesised directories stay 0555). An embed.FS keeps no modes
//     (it reports 0444 and 0555 for all), so its files are 0644 and its
//     directories 0755. These are the modes of a tree written to disk
//     under umask 022, so a MapFS and that tree give the same image.
//   - Owner and group: uid 0 and gid 0.
//   - Hard links: none; every file is its own inode with one link, and a
//     directory has 2 plus its subdirectories, as in any tree.
//   - Times: FileInfo.ModTime is the access, modification and change
//     time, and the birth time is unknown (zero). A MapFile without a
//     ModTime has the zero time, which the writers store as their
//     format's earliest or unset time; Options.Timestamp (makefs -T)
//     replaces every time.
//   - Device numbers and file flags: 0, since fs.FileMode has neither.
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

// madeUpModes returns the test telling which entries of fsys have a mode
// the fs.FS made up rather than was given, by path and type: for a
// testing/fstest.MapFS, the directories the map has no key for; for an
// embed.FS, which keeps no modes and reports 0444 and 0555, every entry.
// Every other fs.FS is taken to report the modes it was given.
func madeUpModes(fsys fs.FS) func(name string, typ Type) bool {
	var m fstest.MapFS
	switch v := fsys.(type) {
	case fstest.MapFS:
		m = v
	case *fstest.MapFS:
		if v != nil {
			m = *v
		}
	case embed.FS, *embed.FS:
		return func(string, Type) bool { return true }
	}
	if m == nil {
		return func(string, Type) bool { return false }
	}
	return func(name string, typ Type) bool {
		_, ok := m[name]
		return typ == TypeDir && !ok
	}
}

// givenMode gives node n, built from fi at path name of its fs.FS, the
// mode a file (0644) or directory (0755) made on disk under umask 022 has
// when the fs.FS made its mode up (madeUp) and fi carries no host
// metadata.
func givenMode(n *Node, fi fs.FileInfo, madeUp func(string, Type) bool, name string) {
	if fi.Sys() != nil || !madeUp(name, n.Type) {
		return
	}
	switch n.Type {
	case TypeDir:
		n.Mode = 0o755
	case TypeFile:
		n.Mode = 0o644
	}
}
