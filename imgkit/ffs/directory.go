package ffs

import (
	"fmt"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// dirent is one entry of a directory being built.
type dirent struct {
	name string
	ino  int64
	typ  byte
}

// dirBytes lays the entries out as makefs's ffs_make_dirbuf does: entries
// packed, a new DIRBLKSIZ chunk when one does not fit, the last entry of
// each chunk taking up its rest.
func (w *writer) dirBytes(ents []dirent) []byte {
	var buf []byte
	cur, llen := 0, 0
	for _, e := range ents {
		reclen := direntSize(len(e.name))
		if reclen+cur+llen > len(buf) {
			buf = append(buf, make([]byte, dirBlkSiz)...)
			cur = len(buf) - dirBlkSiz
		} else if llen > 0 {
			w.o.put16(dReclen(buf[cur:]), int64(llen))
			cur += llen
		}
		d := buf[cur:]
		w.o.put32(dIno(d), e.ino)
		dType(d)[0] = e.typ
		dNamlen(d)[0] = byte(len(e.name))
		copy(dName(d), e.name)
		w.o.put16(dReclen(d), int64(len(buf)-cur))
		llen = reclen
	}
	return buf
}

// dtype is the d_type of a node of type t: IFTODT (dir.h) of its di_mode
// type bits, dtUnknown for none.
func dtype(t fstree.Type) byte { return byte(ifmtOf(t) >> 12) }

// ifmtOf is the IFMT bits of di_mode for a node of type t.
func ifmtOf(t fstree.Type) int64 {
	switch t {
	case fstree.TypeFile:
		return ifreg
	case fstree.TypeDir:
		return ifdir
	case fstree.TypeSymlink:
		return iflnk
	case fstree.TypeFIFO:
		return ififo
	case fstree.TypeSocket:
		return ifsock
	case fstree.TypeChar:
		return ifchr
	case fstree.TypeBlock:
		return ifblk
	}
	return 0
}

// populate is ffs_populate_dir: number the entries of directory d, write
// d and its non-directory entries, then descend into its subdirectories.
func (w *writer) populate(d *fstree.Node, parent *fstree.Node) error {
	if parent == nil {
		w.ino[d] = w.next
		w.next++
	}
	dino := w.ino[d]
	pino := dino
	if parent != nil {
		pino = w.ino[parent]
	}
	ents := []dirent{{".", dino, dtDir}, {"..", pino, dtDir}}
	var kids []*fstree.Node
	for _, n := range d.Children {
		if w.skip(n) {
			continue
		}
		p := primary(n)
		if _, ok := w.ino[p]; !ok {
			if w.next >= w.g.ncg*w.g.ipg {
				return fmt.Errorf("%w: out of inodes at %s", ErrNoSpace, n.Path())
			}
			w.ino[p] = w.next
			w.next++
		}
		ents = append(ents, dirent{n.Name, w.ino[p], dtype(p.Type)})
		kids = append(kids, n)
	}
	if err := w.writeNode(d, w.dirBytes(ents)); err != nil {
		return err
	}
	for _, n := range kids {
		p := primary(n)
		if n.Type == fstree.TypeDir || w.written[p] {
			continue
		}
		w.written[p] = true
		if err := w.writeNode(p, nil); err != nil {
			return err
		}
	}
	for _, n := range kids {
		if n.Type == fstree.TypeDir {
			if err := w.populate(n, d); err != nil {
				return err
			}
		}
	}
	return nil
}
