package bcache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A TargetKind says how an output is written to the path ResolveTarget
// looked at.
type TargetKind int

const (
	// TargetCreate is a path where nothing exists (or a symbolic link
	// to nothing): the output is written into a temporary file beside
	// Target.Path and renamed there when complete.
	TargetCreate TargetKind = iota
	// TargetReplace is a regular file, or a symbolic link to one: the
	// output is written into a temporary file beside Target.Path and
	// renamed over it when complete, so the file holds the old bytes or
	// exactly the new ones, never a mixture.
	TargetReplace
	// TargetStream is a character or block device or a named pipe: the
	// output is opened for writing and written from its first byte,
	// never truncated, renamed over or given a file beside it.
	TargetStream
	// TargetRewrite is a regular file that the path reaches through a
	// link naming no path that leads back to it, such as /dev/stdout
	// when the shell's descriptor holds a file since deleted or in
	// another mount namespace: the file is opened with O_TRUNC and
	// written from its first byte, since there is no name to rename
	// over.
	TargetRewrite
)

// maxLinks is how many symbolic links ResolveTarget follows in a row
// before it gives up, as open(2) gives ELOOP (Linux follows 40).
const maxLinks = 40

// A Target is what an output path names, as ResolveTarget found it.
type Target struct {
	// Kind says how the output is written.
	Kind TargetKind
	// Path is where it is written. For TargetCreate and TargetReplace
	// it is the name the finished temporary file is renamed to: the
	// path given, or, when that is a symbolic link, the name the last
	// link of the chain leads to, so that the links stay and the file
	// they lead to is replaced (or created). For the other kinds it is
	// the path given.
	Path string
	// Info is the file as stat(2) shows it through the links (nil for
	// TargetCreate): its mode and permission bits, its size.
	Info fs.FileInfo
}

// Regular reports whether the output is a regular file written through a
// temporary file beside it (TargetCreate, TargetReplace).
func (t Target) Regular() bool { return t.Kind == TargetCreate || t.Kind == TargetReplace }

// Dir returns the folder in which the temporary file of a TargetCreate or
// TargetReplace output is made: the folder part of Path as the system
// reads it (not cleaned by its letters, since a folder in it may be a
// link), "." for a bare name.
func (t Target) Dir() string { return tempDir(t.Path) }

// ResolveTarget decides how an output is written to path from what path
// is, never from its name: every command of this module that writes an
// image or archive file (Create, and through it the format writers, the
// makefs and ar commands and the catalogue's) decides through it.
//
// A regular file, or a new name, is replaced through a temporary file
// beside it (TargetReplace, TargetCreate). A symbolic link is followed,
// link by link, and the file it leads to is the target: a link to a
// regular file keeps pointing at its file, which is replaced by a new file
// of that name, and a link to nothing gets its file made where it points,
// as open(2) with O_CREAT would make it. (FreeBSD makefs opens the path
// with O_TRUNC, which also follows the link and keeps it; it rewrites the
// file in place where this makes a new one, so that a failed build leaves
// the old bytes whole. Other hard links to the file keep the old bytes.)
// A character or block device or a named pipe is written in place
// (TargetStream), even under /dev/shm or another ordinary file system;
// /dev/stdout is whatever its descriptor holds. A directory is an error
// wrapping ErrNotFile, and a socket or any other kind of file an
// *fs.PathError "create PATH: ..." wrapping ErrNotWritable.
func ResolveTarget(path string) (Target, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Nothing at the end of the chain, or nothing at all.
		p, _, err := followLinks(path)
		if err != nil {
			return Target{}, err
		}
		return Target{Kind: TargetCreate, Path: p}, nil
	case err != nil:
		return Target{}, &fs.PathError{Op: "create", Path: path, Err: bareErr(err)}
	}
	m := fi.Mode()
	switch {
	case m.IsDir():
		return Target{}, fmt.Errorf("%s: %w", path, ErrNotFile)
	case m&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
		return Target{Kind: TargetStream, Path: path, Info: fi}, nil
	case !m.IsRegular():
		return Target{}, &fs.PathError{Op: "create", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotWritable, fileKind(m))}
	}
	p, li, err := followLinks(path)
	if err != nil {
		return Target{}, err
	}
	if li == nil || !os.SameFile(fi, li) {
		// The links end at a name that is not this file: a descriptor
		// link of /proc whose file was deleted or is out of reach.
		return Target{Kind: TargetRewrite, Path: path, Info: fi}, nil
	}
	return Target{Kind: TargetReplace, Path: p, Info: fi}, nil
}

// followLinks follows the symbolic links path leads through, one name at a
// time, and returns the first name that is no symbolic link with its
// lstat(2), or a nil FileInfo when nothing has that name. Links in the
// folders of a name are left to the system, which resolves them when the
// name is used; only the last element of each name is read as a link, so
// that a rename to the result replaces a file, never a link.
func followLinks(path string) (string, fs.FileInfo, error) {
	p := path
	for range maxLinks {
		li, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil, nil
		}
		if err != nil {
			return "", nil, &fs.PathError{Op: "create", Path: path, Err: bareErr(err)}
		}
		if li.Mode()&fs.ModeSymlink == 0 {
			return p, li, nil
		}
		t, err := os.Readlink(p)
		if err != nil {
			return "", nil, &fs.PathError{Op: "create", Path: path, Err: bareErr(err)}
		}
		if !filepath.IsAbs(t) {
			t = linkDir(p) + t
		}
		p = t
	}
	return "", nil, &fs.PathError{Op: "create", Path: path, Err: errTooManyLinks}
}

// linkDir returns the folder part of p with its trailing separator ("" for
// a bare name), uncleaned: a relative link target is read from the folder
// that holds the link, and cleaning "dir/../x" by its letters would be
// wrong where dir is itself a link.
func linkDir(p string) string {
	i := len(p) - 1
	for i >= 0 && !os.IsPathSeparator(p[i]) {
		i--
	}
	return p[:i+1]
}

// tempDir returns the folder in which the temporary file of the output p
// is made: the folder part of p, uncleaned as linkDir says, or "." for a
// bare name.
func tempDir(p string) string {
	if d := linkDir(p); d != "" {
		return d
	}
	return "."
}

// errTooManyLinks is the cause of a path whose links lead on through more
// than maxLinks links.
var errTooManyLinks = errors.New("too many levels of symbolic links")

// fileKind names the type of a file that is neither regular, a folder, a
// device nor a named pipe.
func fileKind(m fs.FileMode) string {
	if m&fs.ModeSocket != 0 {
		return "a socket"
	}
	return "an irregular file"
}
