package fstree

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/internal/hostfile"
)

// Sentinel errors. Errors returned by this package wrap one of these where
// one applies, so callers can test them with errors.Is.
var (
	ErrNotRegular    = errors.New("fstree: not a regular file")
	ErrSpecSyntax    = errors.New("fstree: mtree spec syntax error")
	ErrSpecKeyword   = errors.New("fstree: unknown mtree keyword")
	ErrSpecValue     = errors.New("fstree: bad mtree keyword value")
	ErrSpecMissing   = errors.New("fstree: mtree entry lacks a required keyword")
	ErrTypeConflict  = errors.New("fstree: type in mtree spec differs from the file")
	ErrBadFlag       = errors.New("fstree: unknown file flag")
	ErrTimestamp     = errors.New("fstree: bad timestamp")
	ErrSpecDuplicate = errors.New("fstree: duplicate definition in mtree spec")
	ErrPathTooLong   = errors.New("fstree: path too long")
)

// MaxPath is the longest path, in bytes, that a tree may hold: Linux's
// PATH_MAX (4096) less its terminating NUL. No host path longer than that
// can be opened, so WalkDir could never read such a tree, and the limit
// bounds the depth of every tree at 2048 levels (one-byte names and their
// slashes), which keeps the time and memory of walks and writers linear in
// the number of nodes. (FreeBSD makefs stops earlier, at MAXPATHLEN, 1024
// bytes.) WalkDir, FromFS and the writers of imgkit report a longer path
// with an error wrapping ErrPathTooLong; see Tree.CheckPaths.
const MaxPath = 4095

// Type is the type of a node, named as mtree(5) names it in its type keyword.
type Type uint8

// The node types. The zero Type is not valid.
const (
	TypeFile Type = iota + 1
	TypeDir
	TypeSymlink
	TypeFIFO
	TypeSocket
	TypeChar
	TypeBlock
)

var typeNames = [...]string{
	TypeFile:    "file",
	TypeDir:     "dir",
	TypeSymlink: "link",
	TypeFIFO:    "fifo",
	TypeSocket:  "socket",
	TypeChar:    "char",
	TypeBlock:   "block",
}

// String returns the mtree(5) name of the type: "file", "dir", "link",
// "fifo", "socket", "char" or "block".
func (t Type) String() string {
	if int(t) < len(typeNames) && typeNames[t] != "" {
		return typeNames[t]
	}
	return "Type(" + strconv.FormatUint(uint64(t), 10) + ")"
}

// parseType returns the Type that mtree(5) names s, or 0.
func parseType(s string) Type {
	for t, name := range typeNames {
		if name != "" && name == s {
			return Type(t)
		}
	}
	return 0
}

// Node is one file, directory, symbolic link or special file of a tree.
type Node struct {
	Name     string // base name; the root's Name is "."
	Type     Type
	Mode     uint32 // permission bits plus setuid 04000, setgid 02000 and sticky 01000 (mask 07777)
	UID, GID uint32
	// Uname and Gname are the user and group names from an mtree spec,
	// when it gives them; a walk of a directory leaves them empty.
	Uname, Gname string
	// Size is the file size in bytes; 0 for directories and special
	// files, len(Link) for symbolic links.
	Size int64
	// Atime, Mtime, Ctime and Birthtime are in UTC. Birthtime is zero where
	// the operating system does not report one.
	Atime, Mtime, Ctime, Birthtime time.Time
	Link                           string // symbolic link target
	// Rdev is the device number of a character or block device in the
	// Linux (glibc) encoding on every host; use Major and Minor.
	Rdev uint64
	// Flags holds file flags (chflags(2)) from an mtree spec, as FreeBSD's
	// UF_ and SF_ values (see FlagNodump and the others).
	Flags uint32
	// Nlink is the number of names this node has inside the tree: for a
	// member of a hard-link group the size of the group, for a directory
	// 2 plus its subdirectories, else 1.
	Nlink uint32
	// HardLink is, for the second and later names of a hard-link group in
	// walk order, the first node of the group; nil otherwise.
	HardLink *Node
	// Children of a directory, sorted bytewise by Name.
	Children []*Node
	// Parent is nil for the root.
	Parent *Node
	// SourcePath is the host path of the file's contents when they come
	// from the host file system (a directory walk, or an mtree contents
	// keyword); Open then returns an *os.File.
	SourcePath string
	// Xattrs are the extended attributes of a host file, in the host's
	// listing order, when WalkDir was asked for them (Options.Xattrs);
	// nil otherwise.
	Xattrs []Xattr

	fsys      fs.FS  // with fsPath: contents for trees built by FromFS
	fsPath    string //
	dev, ino  uint64 // host identity, for hard-link groups; ino 0 = none
	hostNlink uint64 // the host's link count; > 1 makes a hard-link candidate
}

// Open returns the contents of a regular file. For a node whose SourcePath
// is set it returns an *os.File, opened without waiting should a named
// pipe have taken the file's name since the walk (a FIFO then reads as
// empty); for a tree from FromFS, the fs.FS's file;
// for a file an mtree spec creates without contents, Size zero bytes.
// Open on any other type returns an error wrapping ErrNotRegular.
func (n *Node) Open() (fs.File, error) {
	if n.Type != TypeFile {
		return nil, &fs.PathError{Op: "open", Path: n.Path(), Err: ErrNotRegular}
	}
	switch {
	case n.SourcePath != "":
		return hostfile.OpenOS(n.SourcePath)
	case n.fsys != nil:
		return n.fsys.Open(n.fsPath)
	}
	return &zeroFile{node: n}, nil
}

// ZeroFilled reports whether n is a regular file that an mtree spec
// creates without contents: Size zero bytes that no source holds, which
// an image writer can leave as a hole instead of reading and writing.
func (n *Node) ZeroFilled() bool {
	return n.Type == TypeFile && n.SourcePath == "" && n.fsys == nil
}

// Path returns the slash-separated path of n from the root of its tree;
// the root's path is ".".
func (n *Node) Path() string {
	if n.Parent == nil {
		return "."
	}
	var parts []string
	for m := n; m.Parent != nil; m = m.Parent {
		parts = append(parts, m.Name)
	}
	slices.Reverse(parts)
	return strings.Join(parts, "/")
}

// child returns the child of directory n named name, or nil.
func (n *Node) child(name string) *Node {
	i, ok := slices.BinarySearchFunc(n.Children, name, func(c *Node, name string) int {
		return cmp.Compare(c.Name, name)
	})
	if !ok {
		return nil
	}
	return n.Children[i]
}

// addChild inserts c into the children of n, keeping them sorted.
func (n *Node) addChild(c *Node) {
	i, _ := slices.BinarySearchFunc(n.Children, c.Name, func(c *Node, name string) int {
		return cmp.Compare(c.Name, name)
	})
	n.Children = slices.Insert(n.Children, i, c)
	c.Parent = n
}

// sortChildren sorts the children of n bytewise by name.
func (n *Node) sortChildren() {
	slices.SortFunc(n.Children, func(a, b *Node) int { return cmp.Compare(a.Name, b.Name) })
}

// Tree is a tree of nodes rooted at a directory.
type Tree struct {
	Root *Node
}

// CheckPaths returns an error wrapping ErrPathTooLong if the path of a node
// of t (as Node.Path writes it, without "./") is longer than MaxPath bytes.
// It takes time linear in the number of nodes, however deep the tree.
func (t *Tree) CheckPaths() error {
	if t == nil || t.Root == nil {
		return nil
	}
	type item struct {
		n    *Node
		plen int // length of n's path
	}
	stack := []item{{t.Root, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range it.n.Children {
			l := it.plen + len(c.Name)
			if it.n != t.Root {
				l++ // the slash
			}
			if l > MaxPath {
				return pathTooLong(c)
			}
			stack = append(stack, item{c, l})
		}
	}
	return nil
}

// eachNode calls fn for every node of t, in no particular order, without
// building paths: time and memory are linear in the number of nodes,
// however deep the tree.
func (t *Tree) eachNode(fn func(*Node)) {
	if t == nil || t.Root == nil {
		return
	}
	stack := []*Node{t.Root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fn(n)
		stack = append(stack, n.Children...)
	}
}

// pathTooLong describes the node n whose path exceeds MaxPath, shortened.
func pathTooLong(n *Node) error {
	depth := 0
	for p := n; p.Parent != nil; p = p.Parent {
		depth++
	}
	p := n.Path()
	const keep = 32
	if len(p) > 2*keep {
		p = p[:keep] + "..." + p[len(p)-keep:]
	}
	return fmt.Errorf("%w: %s (%d levels deep): paths are at most %d bytes (fstree.MaxPath)", ErrPathTooLong, p, depth, MaxPath)
}

// Walk calls fn for every node of the tree, depth-first and pre-order, the
// children of each directory in bytewise order of their names: the order
// in which makefs(8) lays a tree out. The root's path is "."; other paths
// have no "./" prefix. If fn returns fs.SkipDir for a directory its
// children are skipped; fs.SkipAll stops the walk and Walk returns nil.
// Any other error stops the walk and is returned.
func (t *Tree) Walk(fn func(path string, n *Node) error) error {
	if t == nil || t.Root == nil {
		return nil
	}
	err := walk(".", t.Root, fn)
	if err == fs.SkipAll || err == fs.SkipDir {
		return nil
	}
	return err
}

func walk(p string, n *Node, fn func(string, *Node) error) error {
	if err := fn(p, n); err != nil {
		if err == fs.SkipDir && n.Type == TypeDir {
			return nil
		}
		return err
	}
	for _, c := range n.Children {
		cp := c.Name
		if p != "." {
			cp = p + "/" + c.Name
		}
		if err := walk(cp, c, fn); err != nil {
			return err
		}
	}
	return nil
}

// Lookup returns the node at the slash-separated path p ("." or "" for the
// root; a leading "./" or "/" is allowed), or nil if there is none.
func (t *Tree) Lookup(p string) *Node {
	if t == nil || t.Root == nil {
		return nil
	}
	p = path.Clean("/" + p)
	n := t.Root
	if p == "/" {
		return n
	}
	for _, name := range strings.Split(p[1:], "/") {
		if n = n.child(name); n == nil {
			return nil
		}
	}
	return n
}

// Major returns the major number of a device number in the encoding of
// Node.Rdev.
func Major(rdev uint64) uint32 {
	return uint32((rdev>>8)&0xfff) | uint32((rdev>>32)&^0xfff)
}

// Minor returns the minor number of a device number in the encoding of
// Node.Rdev.
func Minor(rdev uint64) uint32 {
	return uint32(rdev&0xff) | uint32((rdev>>12)&^0xff)
}

// Mkdev returns the device number with the given major and minor numbers in
// the encoding of Node.Rdev (that of Linux and glibc).
func Mkdev(major, minor uint32) uint64 {
	return uint64(major&0xfff)<<8 | uint64(major&^0xfff)<<32 |
		uint64(minor&0xff) | uint64(minor&^0xff)<<12
}

// zeroFile is the content of a regular file that an mtree spec creates
// without a contents keyword: Size zero bytes.
type zeroFile struct {
	node *Node
	off  int64
}

func (f *zeroFile) Stat() (fs.FileInfo, error) { return nodeInfo{f.node}, nil }
func (f *zeroFile) Close() error               { return nil }

func (f *zeroFile) Read(b []byte) (int, error) {
	n, err := f.ReadAt(b, f.off)
	f.off += int64(n)
	return n, err
}

// ReadAt reads zeros as io.ReaderAt does.
func (f *zeroFile) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("fstree: negative offset")
	}
	if off >= f.node.Size {
		return 0, io.EOF
	}
	n := len(b)
	if rem := f.node.Size - off; int64(n) > rem {
		n = int(rem)
	}
	clear(b[:n])
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// nodeInfo is the fs.FileInfo of a node.
type nodeInfo struct{ n *Node }

func (i nodeInfo) Name() string       { return i.n.Name }
func (i nodeInfo) Size() int64        { return i.n.Size }
func (i nodeInfo) ModTime() time.Time { return i.n.Mtime }
func (i nodeInfo) IsDir() bool        { return i.n.Type == TypeDir }
func (i nodeInfo) Sys() any           { return i.n }
func (i nodeInfo) Mode() fs.FileMode  { return FileMode(i.n.Type, i.n.Mode) }

// FileMode returns the io/fs mode of a node of type t whose permission bits
// are perm (07777: permissions, setuid 04000, setgid 02000, sticky 01000).
// A zero Type, one that TypeOfUnixMode does not know, gives
// fs.ModeIrregular.
func FileMode(t Type, perm uint32) fs.FileMode {
	m := fs.FileMode(perm & 0o777)
	if perm&0o4000 != 0 {
		m |= fs.ModeSetuid
	}
	if perm&0o2000 != 0 {
		m |= fs.ModeSetgid
	}
	if perm&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	switch t {
	case TypeFile:
	case TypeDir:
		m |= fs.ModeDir
	case TypeSymlink:
		m |= fs.ModeSymlink
	case TypeFIFO:
		m |= fs.ModeNamedPipe
	case TypeSocket:
		m |= fs.ModeSocket
	case TypeChar:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case TypeBlock:
		m |= fs.ModeDevice
	default:
		m |= fs.ModeIrregular
	}
	return m
}

// errUnknownType is the error for a file whose st_mode has no known type.
type errUnknownType uint32

func (e errUnknownType) Error() string {
	return "unknown file type in mode " + strconv.FormatUint(uint64(e), 10)
}
