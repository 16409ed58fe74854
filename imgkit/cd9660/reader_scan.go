package cd9660

import ()

// maxDirSize bounds the bytes of one directory.
const maxDirSize = 1 << 26

// checkDirExtent checks that directory e, whose record is at byte off,
// lies within the image, is not interleaved and is at most maxDirSize
// bytes long.
func (f *FS) checkDirExtent(e *Entry, off int64) error {
	x := e.extents[0]
	if x.unit != 0 || x.n > maxDirSize || x.off < 0 || x.off > f.size || x.n > f.size-x.off {
		return formatErr(off, "Location of Extent", "directory of %d bytes at block %d (record at byte %#x) is outside the image, interleaved or too large", x.n, e.Extent, off)
	}
	return nil
}

// scan reads every directory of the tree once, depth-first from the root.
// A directory extent belongs to the first record that reaches it, except
// that a Rock Ridge CL entry takes it from a record without one (a
// relocated directory that lacks its RE entry, as NetBSD's makefs writes
// it); other records pointing at a claimed extent (cyclic or cross-linked
// directories) are dropped, so the tree is finite. The directories read
// may not add up to more bytes than the image holds. A directory left
// with nothing but relocated directories, the rr_moved directory of makefs
// and mkisofs, is hidden, so that the tree looks as it did before
// relocation.
func (f *FS) scan() {
	s := &scanner{f: f, budget: f.size, claimed: map[int64]*Entry{f.root.extents[0].off: f.root}}
	s.stack = []scanItem{{f.root, 0}}
	for len(s.stack) > 0 {
		it := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		s.dir(it)
	}
	for k, c := range s.steals {
		k.kids, k.kidsErr = c.kids, c.kidsErr
		c.hide = true
	}
	for i := len(s.dirs) - 1; i >= 0; i-- {
		d := s.dirs[i]
		keep := d.kids[:0]
		for _, k := range d.kids {
			if k.hide {
				d.moved++
				continue
			}
			keep = append(keep, k)
		}
		d.kids = keep
		d.hide = d.hide || len(keep) == 0 && d.moved > 0 && !d.isRoot
	}
}

// scanner is the state of a scan.
type scanner struct {
	f       *FS
	budget  int64
	claimed map[int64]*Entry // directory extent offset: the entry it belongs to
	stack   []scanItem
	dirs    []*Entry          // directories read, in order
	steals  map[*Entry]*Entry // a CL entry: the entry it took the extent from
}

type scanItem struct {
	e     *Entry
	depth int
}

// dir reads the directory of it, claims the extents of its subdirectories
// and pushes them.
func (s *scanner) dir(it scanItem) {
	x := it.e.extents[0]
	if x.n > s.budget {
		it.e.kidsErr = formatErr(-1, "", "directory at block %d: the directories add up to more than the image", it.e.Extent)
		return
	}
	s.budget -= x.n
	kids, relocated, err := s.f.readDirEntries(it.e)
	if err != nil {
		it.e.kidsErr = err
		return
	}
	it.e.moved = relocated
	keep := kids[:0]
	for _, k := range kids {
		if k.dir && !s.claim(k, it.depth) {
			it.e.moved++
			continue
		}
		keep = append(keep, k)
	}
	it.e.kids = keep
	s.dirs = append(s.dirs, it.e)
	for i := len(keep) - 1; i >= 0; i-- {
		k := keep[i]
		if !k.dir || k.kids != nil {
			continue
		}
		if s.steals[k] != nil {
			continue
		}
		if err := s.f.checkDirExtent(k, k.Offset); err != nil {
			k.kidsErr = err
			continue
		}
		s.stack = append(s.stack, scanItem{k, it.depth + 1})
	}
}

// claim reports whether directory k, a child at depth, may be read: its
// extent is not claimed yet, or k has a CL entry and the claimant has not.
func (s *scanner) claim(k *Entry, depth int) bool {
	if depth >= maxDepth {
		return false
	}
	off := k.extents[0].off
	c, ok := s.claimed[off]
	if !ok {
		s.claimed[off] = k
		return true
	}
	isCL := func(e *Entry) bool { return e.RockRidge != nil && e.RockRidge.HasCL }
	if isCL(k) && !isCL(c) && !c.isRoot {
		s.claimed[off] = k
		if s.steals == nil {
			s.steals = map[*Entry]*Entry{}
		}
		s.steals[k] = c
		return true
	}
	return false
}
