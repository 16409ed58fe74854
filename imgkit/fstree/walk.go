package fstree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"
)

// WalkDir builds the tree of the directory dir, as makefs(8) reads its
// source directory. Every entry below dir is examined with lstat: symbolic
// links are recorded, never followed. dir itself may be a symbolic link to
// a directory, which is followed, as makefs follows it (it stats and opens
// its argument). Children are sorted bytewise by name. Hard-link groups are found by
// device and inode number; see Node.Nlink and Node.HardLink. Owners, modes
// and hard links then follow opts.Metadata, and times are normalised by
// opts, as the package documentation describes; opts may be nil.
func WalkDir(dir string, opts *Options) (*Tree, error) {
	root := &Node{Name: "."}
	if err := lstatNode(dir, root); err != nil {
		return nil, err
	}
	if root.Type == TypeSymlink {
		// The source directory named through a link: walk its target.
		target, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return nil, &fs.PathError{Op: "walk", Path: dir, Err: err}
		}
		*root = Node{Name: "."}
		if err := lstatNode(target, root); err != nil {
			return nil, err
		}
		dir = target
	}
	if root.Type != TypeDir {
		return nil, &fs.PathError{Op: "walk", Path: dir, Err: fmt.Errorf("not a directory (%v)", root.Type)}
	}
	root.Size = 0
	hw := &hostWalk{errs: map[*Node]dirErr{}, xattrs: opts != nil && opts.Xattrs && opts.Metadata != MetadataGit}
	if hw.xattrs {
		var err error
		if root.Xattrs, err = readXattrs(dir); err != nil {
			return nil, err
		}
	}
	hw.sem = make(chan struct{}, max(0, min(walkWorkers, 2*runtime.GOMAXPROCS(0))-1))
	hw.dir(dir, root, 0)
	hw.wg.Wait()
	if err := hw.firstErr(root); err != nil {
		return nil, err
	}
	t := &Tree{Root: root}
	opts.metadata(t)
	linkHardLinks(t)
	opts.normalize(t)
	return t, nil
}

// walkWorkers is how many goroutines WalkDir examines directories with at
// most (and no more than twice GOMAXPROCS). Each directory is read and its
// entries examined by one goroutine; the tree is the same whatever the
// scheduling. Four workers overlap the system calls of several directories
// on 2 cores (BENCHMARKS.md). It is a variable so that tests can walk with
// one.
var walkWorkers = 4

// A hostWalk is one WalkDir in progress: directories are examined on the
// calling goroutine or, while a slot of sem is free, on a new one.
type hostWalk struct {
	sem  chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs map[*Node]dirErr
	// xattrs asks for each node's extended attributes.
	xattrs bool
}

// A dirErr is why a directory's walk stopped: at its entry index at (in
// bytewise order of the names), or at -1 when reading the directory failed.
type dirErr struct {
	at  int
	err error
}

// dir adds the entries of the host directory path to node d, in bytewise
// order of their names, and walks the subdirectories among them; plen is
// the length of d's path in the tree. It stops at the first entry that
// fails and records the error for firstErr.
func (hw *hostWalk) dir(path string, d *Node, plen int) {
	at, err := hw.entries(path, d, plen)
	if err != nil {
		hw.mu.Lock()
		hw.errs[d] = dirErr{at, err}
		hw.mu.Unlock()
	}
}

// entries does the work of dir and returns where and why it stopped.
// Each entry is examined relative to the open folder (lstatNodeAt); its
// subfolders are walked once it is closed, so that a walk holds one
// folder open, however deep the tree.
func (hw *hostWalk) entries(dir string, d *Node, plen int) (int, error) {
	f, err := os.Open(dir)
	if err != nil {
		return -1, err
	}
	names, err := f.Readdirnames(-1)
	if err != nil {
		f.Close()
		return -1, &fs.PathError{Op: "readdir", Path: dir, Err: err}
	}
	slices.Sort(names)
	d.Children = make([]*Node, 0, len(names))
	type subdir struct {
		path string
		n    *Node
		plen int
	}
	var subdirs []subdir
	at, err := 0, error(nil)
	for i, name := range names {
		p := filepath.Join(dir, name)
		n := &Node{Name: name, Parent: d}
		nlen := childPathLen(plen, name)
		if err = hw.entry(f, name, p, n, nlen); err != nil {
			at = i
			break
		}
		if n.Type == TypeDir {
			subdirs = append(subdirs, subdir{p, n, nlen})
		}
		d.Children = append(d.Children, n)
	}
	f.Close()
	// the folders before a failed entry are walked all the same: firstErr
	// reports their errors first
	for _, s := range subdirs {
		select {
		case hw.sem <- struct{}{}:
			hw.wg.Add(1)
			go func() {
				defer func() { <-hw.sem; hw.wg.Done() }()
				hw.dir(s.path, s.n, s.plen)
			}()
		default:
			hw.dir(s.path, s.n, s.plen)
		}
	}
	return at, err
}

// entry examines the entry name of the open folder f, the host file p,
// as n, whose path in the tree is nlen bytes long.
func (hw *hostWalk) entry(f *os.File, name, p string, n *Node, nlen int) error {
	if nlen > MaxPath {
		return pathTooLong(n)
	}
	if err := lstatNodeAt(f, name, p, n); err != nil {
		if errors.Is(err, syscall.ENAMETOOLONG) {
			return pathTooLong(n) // the host's limit, and a shorter message
		}
		return err
	}
	var err error
	if hw.xattrs {
		if n.Xattrs, err = readXattrs(p); err != nil {
			return err
		}
	}
	switch n.Type {
	case TypeFile:
		n.SourcePath = p
	case TypeSymlink:
		if n.Link, err = os.Readlink(p); err != nil {
			return err
		}
		n.Size = int64(len(n.Link))
	}
	if n.Type != TypeFile && n.Type != TypeSymlink {
		n.Size = 0
	}
	return nil
}

// firstErr returns the error a walk of one goroutine would have stopped
// at: the first in depth-first pre-order of the sorted tree. Every
// directory is walked to its end or its own first error whatever happens
// elsewhere, so the choice does not depend on scheduling.
func (hw *hostWalk) firstErr(d *Node) error {
	if len(hw.errs) == 0 {
		return nil
	}
	de, failed := hw.errs[d]
	if failed && de.at < 0 {
		return de.err
	}
	for _, c := range d.Children {
		if c.Type == TypeDir {
			if err := hw.firstErr(c); err != nil {
				return err
			}
		}
	}
	if failed {
		return de.err
	}
	return nil
}

// FromFS builds the tree of the directory root of fsys, for library users
// whose source is an fs.FS (an embed.FS, an fstest.MapFS, os.DirFS, an image
// reader). Entries are examined with fs.ReadDir and fs.DirEntry.Info. Where
// FileInfo.Sys returns a *syscall.Stat_t (os.DirFS on Unix), ownership,
// device numbers and hard links are taken from it; otherwise the type and
// permission bits come from the fs.FileMode and uid and gid are 0, except
// that a mode the fs.FS made up is taken as not given (a directory that a
// testing/fstest.MapFS synthesises for a path with no key of its own,
// reported as 0555, and every entry of an embed.FS; see FS for all that is
// assumed), and an
// entry with no permission bits at all (testing/fstest.MapFile without a
// Mode) is taken as an ordinary file (0644) or directory (0755). Symbolic
// links are read with fs.ReadLink. Node.Open reads from fsys. Owners,
// modes and hard links then follow opts.Metadata, and times are normalised
// by opts, as the package documentation describes.
func FromFS(fsys fs.FS, root string, opts *Options) (*Tree, error) {
	if root == "" {
		root = "."
	}
	fi, err := fs.Stat(fsys, root)
	if err != nil {
		return nil, err
	}
	r := &Node{Name: "."}
	madeUp := madeUpModes(fsys)
	fillInfo(r, fi)
	givenMode(r, fi, madeUp, root)
	if r.Type != TypeDir {
		return nil, &fs.PathError{Op: "walk", Path: root, Err: fmt.Errorf("not a directory (%v)", r.Type)}
	}
	r.Size = 0
	if err := walkFS(fsys, madeUp, root, r, 0); err != nil {
		return nil, err
	}
	t := &Tree{Root: r}
	opts.metadata(t)
	linkHardLinks(t)
	opts.normalize(t)
	return t, nil
}

// walkFS adds the entries of directory dir of fsys to node d, whose path in
// the tree is plen bytes long; madeUp tells the entries whose
// modes fsys made up (see madeUpModes).
func walkFS(fsys fs.FS, madeUp func(string, Type) bool, dir string, d *Node, plen int) error {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return err
	}
	d.Children = make([]*Node, 0, len(ents))
	for _, e := range ents {
		p := path.Join(dir, e.Name())
		fi, err := e.Info()
		if err != nil {
			return err
		}
		n := &Node{Name: e.Name(), Parent: d}
		nlen := childPathLen(plen, n.Name)
		if nlen > MaxPath {
			return pathTooLong(n)
		}
		fillInfo(n, fi)
		givenMode(n, fi, madeUp, p)
		switch n.Type {
		case TypeFile:
			n.fsys, n.fsPath = fsys, p
		case TypeSymlink:
			if n.Link, err = fs.ReadLink(fsys, p); err != nil {
				return err
			}
			n.Size = int64(len(n.Link))
		case TypeDir:
			if err := walkFS(fsys, madeUp, p, n, nlen); err != nil {
				return err
			}
		}
		if n.Type != TypeFile && n.Type != TypeSymlink {
			n.Size = 0
		}
		d.Children = append(d.Children, n)
	}
	d.sortChildren()
	return nil
}

// fillInfo sets the metadata of n from fi: from its Sys value when it is a
// *syscall.Stat_t, else from its mode and modification time.
func fillInfo(n *Node, fi fs.FileInfo) {
	n.Size = fi.Size()
	if fillSys(n, fi) {
		return
	}
	m := fi.Mode()
	n.Type = typeFromFileMode(m)
	n.Mode = uint32(m.Perm())
	if n.Mode == 0 && m&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) == 0 {
		// No host metadata and no permission bits: fstest.MapFS's
		// MapFile{Data: ...}, meant as an ordinary file, directory or
		// link, with the modes those get on disk under umask 022
		// (symlink(2) on Linux makes every link 0777).
		switch n.Type {
		case TypeFile:
			n.Mode = 0o644
		case TypeDir:
			n.Mode = 0o755
		case TypeSymlink:
			n.Mode = 0o777
		}
	}
	if m&fs.ModeSetuid != 0 {
		n.Mode |= 04000
	}
	if m&fs.ModeSetgid != 0 {
		n.Mode |= 02000
	}
	if m&fs.ModeSticky != 0 {
		n.Mode |= 01000
	}
	mt := fi.ModTime()
	n.Atime, n.Mtime, n.Ctime = mt, mt, mt
}

// typeFromFileMode returns the Type of an fs.FileMode.
func typeFromFileMode(m fs.FileMode) Type {
	switch {
	case m.IsDir():
		return TypeDir
	case m&fs.ModeSymlink != 0:
		return TypeSymlink
	case m&fs.ModeNamedPipe != 0:
		return TypeFIFO
	case m&fs.ModeSocket != 0:
		return TypeSocket
	case m&fs.ModeCharDevice != 0:
		return TypeChar
	case m&fs.ModeDevice != 0:
		return TypeBlock
	}
	// Regular files, and irregular ones (fs.ModeIrregular) treated as such.
	return TypeFile
}

// TypeOfUnixMode returns the Type of a Unix st_mode (its S_IFMT bits), as
// stat(2) and the di_mode of an FFS inode hold it, or 0 for none.
func TypeOfUnixMode(mode uint32) Type {
	switch mode & 0170000 {
	case 0100000:
		return TypeFile
	case 0040000:
		return TypeDir
	case 0120000:
		return TypeSymlink
	case 0010000:
		return TypeFIFO
	case 0140000:
		return TypeSocket
	case 0020000:
		return TypeChar
	case 0060000:
		return TypeBlock
	}
	return 0
}

// timespec returns the UTC time of a seconds and nanoseconds pair.
func timespec(sec, nsec int64) time.Time {
	return time.Unix(sec, nsec).UTC()
}

// linkHardLinks sets Nlink and HardLink on every node of t: non-directories
// that share a host device and inode number form a hard-link group, whose
// first node in walk order is the one the others point to.
func linkHardLinks(t *Tree) {
	type key struct{ dev, ino uint64 }
	first := make(map[key]*Node)
	t.Walk(func(_ string, n *Node) error {
		n.HardLink = nil
		n.Nlink = 1
		if n.Type == TypeDir {
			n.Nlink = 2
			for _, c := range n.Children {
				if c.Type == TypeDir {
					n.Nlink++
				}
			}
			return nil
		}
		if n.ino == 0 || n.hostNlink < 2 {
			return nil
		}
		k := key{n.dev, n.ino}
		if f, ok := first[k]; ok {
			n.HardLink = f
			f.Nlink++
		} else {
			first[k] = n
		}
		return nil
	})
	t.Walk(func(_ string, n *Node) error {
		if n.HardLink != nil {
			n.Nlink = n.HardLink.Nlink
		}
		return nil
	})
}

// childPathLen is the length of the tree path of a child called name of a
// directory whose path is plen bytes long (0 for the root).
func childPathLen(plen int, name string) int {
	if plen == 0 {
		return len(name)
	}
	return plen + 1 + len(name)
}
