package msdos

import (
	"crypto/sha256"
	"fmt"
	"path"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

var typeWords = map[fstree.Type]string{
	fstree.TypeSymlink: "symbolic link",
	fstree.TypeFIFO:    "fifo",
	fstree.TypeSocket:  "socket",
	fstree.TypeChar:    "character device",
	fstree.TypeBlock:   "block device",
}

// pent is one entry a directory will hold.
type pent struct {
	node  *fstree.Node
	path  string
	short [11]byte
	long  []uint16 // nil when the short name is the name itself
	dir   *pdir    // for directories
	ext   []extent // for files: the clusters, filled by allocate
}

func (e *pent) slots() int {
	if e.long == nil {
		return 1
	}
	return longSlots(len(e.long)) + 1
}

// pdir is a directory of the plan: its entries in on-disk order.
type pdir struct {
	node    *fstree.Node
	path    string
	parent  *pdir
	entries []*pent
	slots   int      // 32-byte entries in use, with ".", ".." and the label
	ext     []extent // clusters, filled by allocate (none for a FAT12/16 root)
}

func (d *pdir) firstCluster() uint32 {
	if len(d.ext) == 0 {
		return 0
	}
	return d.ext[0].start
}

// extent is a run of consecutive clusters.
type extent struct{ start, n uint32 }

// plan is the tree as FAT will hold it, independent of the volume
// geometry: names made, entries counted, nodes FAT cannot hold dropped.
type plan struct {
	root     *pdir
	dirs     []*pdir // pre-order
	files    []*pent // files with contents, in layout order
	sizes    []int64 // sizes of all regular files
	needFor  map[int64]uint64
	label    bool   // the root holds a volume label entry
	nextFree uint32 // first cluster after the allocated ones
}

// makePlan walks t and decides every name, as FreeBSD makefs would lay the
// tree out: depth-first, pre-order, children in bytewise order.
func makePlan(t *fstree.Tree, label bool, warn func(string)) (*plan, error) {
	if t == nil || t.Root == nil {
		return nil, fmt.Errorf("msdos: no source tree")
	}
	p := &plan{needFor: map[int64]uint64{}}
	p.root = &pdir{node: t.Root, path: "."}
	if label {
		p.root.slots = 1
		p.label = true
	}
	if err := p.addDir(p.root, warn); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *plan) addDir(d *pdir, warn func(string)) error {
	p.dirs = append(p.dirs, d)
	if d.parent != nil {
		d.slots = 2 // "." and ".."
	}
	folded := map[string]string{}
	names := shortNames{used: map[[11]byte]bool{}, nextGen: map[[11]byte]int{}}
	for _, c := range d.node.Children {
		cpath := c.Name
		if d.path != "." {
			cpath = d.path + "/" + c.Name
		}
		keep, err := keepNode(c, cpath, warn)
		if err != nil {
			return err
		}
		if !keep {
			continue
		}
		w, err := checkName(c.Name)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrName, cpath, err)
		}
		key := foldName(c.Name)
		if other, ok := folded[key]; ok {
			return fmt.Errorf("%w: %s and %s differ only by case; FAT cannot hold both", ErrName, path.Join(d.path, other), cpath)
		}
		folded[key] = c.Name
		e := &pent{node: c, path: cpath}
		var conv int
		if e.short, conv, err = names.unique(c.Name, cpath); err != nil {
			return err
		}
		if conv != convSame {
			e.long = w
		}
		d.entries = append(d.entries, e)
		d.slots += e.slots()
		if d.slots > maxDirSlots {
			return fmt.Errorf("%w: %s: the directory needs more than %d 32-byte entries (long names take several); FAT allows %d",
				ErrDirFull, d.path, maxDirSlots, maxDirSlots)
		}
		if err := p.addEntry(d, e, warn); err != nil {
			return err
		}
	}
	return nil
}

// keepNode reports whether the node c (at cpath) goes into the image:
// hard links and nodes other than files and directories are skipped with
// a warning; a file too large for FAT is an error.
func keepNode(c *fstree.Node, cpath string, warn func(string)) (bool, error) {
	switch {
	case c.HardLink != nil:
		warn(fmt.Sprintf("msdos: skipping hard link %s (FAT cannot share %s's clusters)", cpath, c.HardLink.Path()))
		return false, nil
	case c.Type == fstree.TypeFile:
		if c.Size > MaxFileSize {
			return false, fmt.Errorf("%w: %s: file of %d bytes; FAT holds at most %d bytes per file", ErrFileTooBig, cpath, c.Size, int64(MaxFileSize))
		}
	case c.Type == fstree.TypeDir:
	default:
		warn(fmt.Sprintf("msdos: skipping %s %s: FAT holds only files and directories", typeWords[c.Type], cpath))
		return false, nil
	}
	return true, nil
}

// shortNames holds the short names of one directory's entries so far.
type shortNames struct {
	used    map[[11]byte]bool
	nextGen map[[11]byte]int // per stem, the generation to try first
}

// unique returns the short name of name (at cpath) that is not used yet,
// and its conv* result, and marks it used. It takes the first free
// generation number, as FreeBSD's uniqdosname does; nextGen remembers
// where earlier searches for the same stem stopped, since names are never
// removed.
func (s *shortNames) unique(name, cpath string) ([11]byte, int, error) {
	stem, _ := shortName(name, 0)
	for gen := max(1, s.nextGen[stem]); ; gen++ {
		dn, cv := shortName(name, gen)
		if cv == convInvalid {
			return dn, cv, fmt.Errorf("%w: %s: no unique short name left", ErrName, cpath)
		}
		if !s.used[dn] {
			s.used[dn] = true
			s.nextGen[stem] = gen + 1
			return dn, cv, nil
		}
	}
}

// addEntry records the entry e of d in the plan: a directory is planned
// in turn (depth-first), a file's size is counted and, when it has
// contents, it takes its place in the layout order.
func (p *plan) addEntry(d *pdir, e *pent, warn func(string)) error {
	c := e.node
	switch c.Type {
	case fstree.TypeDir:
		e.dir = &pdir{node: c, path: e.path, parent: d}
		return p.addDir(e.dir, warn)
	case fstree.TypeFile:
		p.sizes = append(p.sizes, c.Size)
		if c.Size > 0 {
			p.files = append(p.files, e)
		}
	}
	return nil
}

// clustersNeeded counts the clusters the tree takes with clusters of cb
// bytes: files, subdirectories and, on FAT32, the root directory.
func (p *plan) clustersNeeded(cb int64, fat32 bool) uint64 {
	key := cb
	if fat32 {
		key = -cb
	}
	if n, ok := p.needFor[key]; ok {
		return n
	}
	var n uint64
	for _, s := range p.sizes {
		n += uint64((s + cb - 1) / cb)
	}
	for _, d := range p.dirs {
		if d.parent == nil && !fat32 {
			continue
		}
		n += uint64(max(1, (int64(d.slots)*dirEntrySize+cb-1)/cb))
	}
	p.needFor[key] = n
	return n
}

// fitError is a tree that does not fit a geometry; small tells whether a
// larger volume would cure it.
type fitError struct {
	err   error
	small bool
}

func (e *fitError) Error() string { return e.err.Error() }
func (e *fitError) Unwrap() error { return e.err }

// fits reports whether the tree fits the volume g.
func (p *plan) fits(g *geometry) error {
	if g.FATType != 32 && uint32(p.root.slots) > g.RootEntCnt {
		return &fitError{err: fmt.Errorf("%w: the root directory needs %d entries; the FAT%d root holds %d (raise Options.DirectoryEntries or use Options.FATType = 32)",
			ErrRootFull, p.root.slots, g.FATType, g.RootEntCnt)}
	}
	need := p.clustersNeeded(g.clusterBytes(), g.FATType == 32)
	avail := uint64(g.maxCluster() - 1)
	if need > avail {
		return &fitError{small: true, err: fmt.Errorf("%w: the tree needs %d clusters of %d bytes; the volume has %d",
			ErrNoSpace, need, g.clusterBytes(), avail)}
	}
	return nil
}

// allocate gives every directory and file its clusters in the order
// FreeBSD makefs allocates them: a directory's first cluster before its
// entry is added to its parent, a parent's extension when the new entry
// does not fit, a file's clusters (all at once) after its entry.
func (p *plan) allocate(g *geometry) error {
	a := &allocator{next: reservedFATEnts, last: g.maxCluster(), cb: g.clusterBytes(), g: g, label: p.label}
	if g.FATType == 32 {
		e, err := a.take(1)
		if err != nil {
			return err
		}
		p.root.ext = []extent{e}
	}
	if err := a.walk(p.root); err != nil {
		return err
	}
	p.nextFree = a.next
	return nil
}

// allocator hands out clusters in order, as allocate lays the tree out.
type allocator struct {
	next, last uint32 // the next free cluster, the last one there is
	cb         int64  // bytes per cluster
	g          *geometry
	label      bool // the root holds a volume label entry
}

// take allocates n clusters.
func (a *allocator) take(n uint32) (extent, error) {
	if uint64(a.next)+uint64(n)-1 > uint64(a.last) {
		return extent{}, fmt.Errorf("%w: out of clusters", ErrNoSpace)
	}
	e := extent{a.next, n}
	a.next += n
	return e, nil
}

// walk allocates the clusters of d's entries in order, growing d as its
// entries need, and of each subdirectory in turn (depth-first).
func (a *allocator) walk(d *pdir) error {
	fixedRoot := a.g.FATType != 32 && d.parent == nil
	used := 2
	if d.parent == nil {
		used = 0
		if a.label {
			used = 1 // the volume label entry
		}
	}
	for _, e := range d.entries {
		if e.dir != nil {
			x, err := a.take(1)
			if err != nil {
				return err
			}
			e.dir.ext = []extent{x}
		}
		used += e.slots()
		if !fixedRoot {
			if err := a.grow(d, used); err != nil {
				return err
			}
		} else if uint32(used) > a.g.RootEntCnt {
			return fmt.Errorf("%w: root directory full", ErrRootFull)
		}
		if e.dir != nil {
			if err := a.walk(e.dir); err != nil {
				return err
			}
		} else if e.node.Size > 0 {
			x, err := a.take(uint32((e.node.Size + a.cb - 1) / a.cb))
			if err != nil {
				return err
			}
			e.ext = []extent{x}
		}
	}
	return nil
}

// grow allocates the clusters d lacks to hold used 32-byte entries,
// merging them into its last extent when they follow it.
func (a *allocator) grow(d *pdir, used int) error {
	var have int64
	for _, x := range d.ext {
		have += int64(x.n)
	}
	need := (int64(used)*dirEntrySize + a.cb - 1) / a.cb
	if need <= have {
		return nil
	}
	x, err := a.take(uint32(need - have))
	if err != nil {
		return err
	}
	if k := len(d.ext); k > 0 && d.ext[k-1].start+d.ext[k-1].n == x.start {
		d.ext[k-1].n += x.n
	} else {
		d.ext = append(d.ext, x)
	}
	return nil
}

// volumeID is the default volume serial number: the first four bytes
// (little-endian) of the SHA-256 of a description of the volume and the
// tree. See DETAILS.md.
func (p *plan) volumeID(g *geometry, o *Options) uint32 {
	h := sha256.New()
	fmt.Fprintf(h, "fixturegen msdos volume id v1\n")
	fmt.Fprintf(h, "geometry %d %d %d %d %d %d %d\n", g.FATType, g.BytesPerSec, g.SecPerClus, g.TotSec, g.RsvdSecCnt, g.NumFATs, g.RootEntCnt)
	var oem string
	if o.OEMString != nil {
		oem = *o.OEMString
	}
	fmt.Fprintf(h, "label %q oem %q\n", o.VolumeLabel, oem)
	var walk func(d *pdir)
	walk = func(d *pdir) {
		for _, e := range d.entries {
			n := e.node
			ro := e.dir == nil && n.Mode&0o200 == 0
			// The tree's times follow Options.Timestamp already.
			fmt.Fprintf(h, "%s %q %d %d %v\n", n.Type, e.path, n.Size, n.Mtime.UnixNano(), ro)
			if e.dir != nil {
				walk(e.dir)
			}
		}
	}
	walk(p.root)
	sum := h.Sum(nil)
	return le.Uint32(sum)
}
