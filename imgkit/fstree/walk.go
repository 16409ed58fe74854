package fstree

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"
)

// WalkDir builds the tree of the directory dir, as makefs(8) reads its
// source directory. Every entry is examined with lstat: symbolic links are
// recorded, never followed (dir itself must be a directory, not a link to
// one). Children are sorted bytewise by name. Hard-link groups are found by
// device and inode number; see Node.Nlink and Node.HardLink. Times are then
// normalised by opts as the package documentation describes; opts may be
// nil.
func WalkDir(dir string, opts *Options) (*Tree, error) {
	root := &Node{Name: "."}
	if err := lstatNode(dir, root); err != nil {
		return nil, err
	}
	if root.Type != TypeDir {
		return nil, &fs.PathError{Op: "walk", Path: dir, Err: fmt.Errorf("not a directory (%v)", root.Type)}
	}
	root.Size = 0
	if err := walkHost(dir, root); err != nil {
		return nil, err
	}
	t := &Tree{Root: root}
	linkHardLinks(t)
	opts.normalize(t)
	return t, nil
}

// walkHost adds the entries of the host directory dir to node d.
func walkHost(dir string, d *Node) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return &fs.PathError{Op: "readdir", Path: dir, Err: err}
	}
	d.Children = make([]*Node, 0, len(names))
	for _, name := range names {
		p := filepath.Join(dir, name)
		n := &Node{Name: name, Parent: d}
		if err := lstatNode(p, n); err != nil {
			return err
		}
		switch n.Type {
		case TypeFile:
			n.SourcePath = p
		case TypeSymlink:
			if n.Link, err = os.Readlink(p); err != nil {
				return err
			}
			n.Size = int64(len(n.Link))
		case TypeDir:
			if err := walkHost(p, n); err != nil {
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

// FromFS builds the tree of the directory root of fsys, for library users
// whose source is an fs.FS (an embed.FS, an fstest.MapFS, os.DirFS, an image
// reader). Entries are examined with fs.ReadDir and fs.DirEntry.Info. Where
// FileInfo.Sys returns a *syscall.Stat_t (os.DirFS on Unix), ownership,
// device numbers and hard links are taken from it; otherwise the type and
// permission bits come from the fs.FileMode and uid and gid are 0. Symbolic
// links are read with fs.ReadLink. Node.Open reads from fsys. Times are
// normalised by opts as the package documentation describes.
func FromFS(fsys fs.FS, root string, opts *Options) (*Tree, error) {
	if root == "" {
		root = "."
	}
	fi, err := fs.Stat(fsys, root)
	if err != nil {
		return nil, err
	}
	r := &Node{Name: "."}
	fillInfo(r, fi)
	if r.Type != TypeDir {
		return nil, &fs.PathError{Op: "walk", Path: root, Err: fmt.Errorf("not a directory (%v)", r.Type)}
	}
	r.Size = 0
	if err := walkFS(fsys, root, r); err != nil {
		return nil, err
	}
	t := &Tree{Root: r}
	linkHardLinks(t)
	opts.normalize(t)
	return t, nil
}

// walkFS adds the entries of directory dir of fsys to node d.
func walkFS(fsys fs.FS, dir string, d *Node) error {
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
		fillInfo(n, fi)
		switch n.Type {
		case TypeFile:
			n.fsys, n.fsPath = fsys, p
		case TypeSymlink:
			if n.Link, err = fs.ReadLink(fsys, p); err != nil {
				return err
			}
			n.Size = int64(len(n.Link))
		case TypeDir:
			if err := walkFS(fsys, p, n); err != nil {
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

// typeFromUnixMode returns the Type of a Unix st_mode, or 0.
func typeFromUnixMode(mode uint32) Type {
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
