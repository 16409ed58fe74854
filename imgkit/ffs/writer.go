package ffs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// WriteFile makes the FFS image of src with opts (nil is the zero Options),
// as FreeBSD makefs -t ffs does, and writes it to the file path through the
// block cache (Options.Cache). The image appears at path only when
// complete: on any error the temporary file is removed and path is left as
// it was.
func WriteFile(path string, src fstree.Source, opts *Options) error {
	_, err := writeTarget(imgfmt.ToFile(path), src, opts)
	return err
}

// Write makes the image WriteFile makes and writes it to dst, every byte of
// it from offset 0, and returns its size (0 on any error). The image is
// built in memory first: nothing is written to dst when it cannot be made,
// and dst may hold part of it when a write to dst fails. A dst that is a
// bcache.InPlaceCreator (a bcache.Section, or a partition mkimg writes)
// gets the image built in place instead: the same bytes, but what the image
// leaves zero is not written (it stays a hole of a disk file) and memory
// does not grow with the image. The image holds Options.Offset zero bytes,
// then the file system; the memory check of Build is not made for an image
// built in place.
func Write(dst io.WriterAt, src fstree.Source, opts *Options) (int64, error) {
	im, err := writeTarget(imgfmt.ToWriterAt(dst), src, opts)
	if err != nil {
		return 0, err
	}
	return im.Size(), nil
}

// Build makes the image WriteFile makes, in memory, and returns it. Build
// and Write refuse, with an ErrParams, an image that with the writer's
// bookkeeping needs more memory than the Go memory limit (GOMEMLIMIT) or,
// on Linux, the machine has.
func Build(src fstree.Source, opts *Options) ([]byte, error) {
	im, err := writeTarget(imgfmt.ToMemory(), src, opts)
	if err != nil {
		return nil, err
	}
	return im.Bytes(), nil
}

// writeTarget is the one path of WriteFile, Write and Build: it reads the
// tree of src with the time rule of opts, sizes the image, checks that it
// fits in memory when t holds it there, and lays the tree out in the
// image at t.
func writeTarget(t imgfmt.Target, src fstree.Source, opts *Options) (*bcache.Image, error) {
	if opts == nil {
		opts = &Options{}
	}
	tree, err := imgfmt.SourceTree(src, &fstree.Options{Timestamp: opts.Timestamp, ClampTimes: opts.ClampTimes})
	if errors.Is(err, imgfmt.ErrNoSource) {
		return nil, fmt.Errorf("%w: %w", ErrParams, err)
	}
	if err != nil {
		return nil, err
	}
	w, err := plan(tree, opts)
	if err != nil {
		return nil, explainSize(tree, opts, err)
	}
	if t.InMemory() {
		if err := w.checkInMemory(); err != nil {
			return nil, err
		}
	}
	w.warnLayout()
	im, err := imgfmt.WriteImage(t, opts.Offset+w.fsBytes, opts.Cache, w.write)
	if err != nil {
		return nil, explainSize(tree, opts, err)
	}
	return im, nil
}

// writer holds the state of one image being written.
type writer struct {
	t     *fstree.Tree
	opts  *Options
	o     order
	g     *geometry
	a     *alloc
	p     params
	utime int64  // fs_time, fs_id[0], cg_time
	seed  uint64 // of fs_id[1] and di_gen (CompatDebian)
	// With CompatFreeBSD, fs_id[1] and di_gen come from FreeBSD's
	// random(3) (initGens): rng is the generator, id1 fs_id[1] and gens
	// the di_gen of the initialised inodes of each group, by index.
	rng  *bsdRandom
	id1  int64
	gens genStore // gens.go
	inos int64    // inodes the tree needs, with the two reserved ones
	im   *bcache.Image
	base int64 // byte offset of the file system in the image file
	dry  bool  // lay out only: no reads of file data, no writes

	ino       map[*fstree.Node]int64 // inode numbers, by hard-link primary
	written   map[*fstree.Node]bool
	next      int64 // next inode number
	inited    initedCounts
	fsBytes   int64
	zero      []byte
	indBufs   [][]byte     // blocks for queued indirect blocks, free for reuse
	indQueued int64        // bytes of indirect blocks queued (queueIndirect)
	dataOwner *fstree.Node // the node writeData is writing
	indFree   [][]int64    // entries of indirect blocks written, for newIndirect
	probe     int64        // byte offset of the probe sector (see write)

	// File contents are copied in batches (bcache.Image.CopyFiles), after
	// the layout has placed them: one entry per run of contiguous blocks of
	// a file, owners naming the node of each entry.
	copies     []bcache.FileCopy
	copyOwners []*fstree.Node

	icache inodeCache
}

// copyBatch is how many file copies are queued before they are made, which
// bounds the memory the queue takes.
const copyBatch = 4096

func (w *writer) warnf(format string, args ...any) {
	if w.opts.Warn != nil {
		fmt.Fprintf(w.opts.Warn, format+"\n", args...)
	}
}

// primary returns the node whose inode a name uses.
func primary(n *fstree.Node) *fstree.Node {
	if n.HardLink != nil {
		return n.HardLink
	}
	return n
}

// skip reports whether a node is left out of the image: sockets, which
// FreeBSD's and Debian's makefs both skip as they walk a directory (and
// FreeBSD's mtree reader has no type for).
func (w *writer) skip(n *fstree.Node) bool {
	return n.Type == fstree.TypeSocket
}

// setTimes sets the image's time, Options.Timestamp or else the tree's
// latest modification time, and the seed of its ids, which follows from
// it.
func (w *writer) setTimes() {
	if !w.opts.Timestamp.IsZero() {
		w.utime = w.opts.Timestamp.Unix()
	} else {
		w.utime = latestMtime(w.t)
	}
	w.seed = splitmix(uint64(w.utime) ^ 0x4646535f49445f31) // "FFS_ID_1"
}

// latestMtime is the latest modification time in the tree, the default
// fs_time: a function of the inputs, not of the clock.
func latestMtime(t *fstree.Tree) int64 {
	var m int64
	t.Walk(func(_ string, n *fstree.Node) error {
		if s := n.Mtime.Unix(); s > m {
			m = s
		}
		return nil
	})
	return m
}

// splitmix is the SplitMix64 finaliser, the pseudo-random function behind
// fs_id[1] and di_gen.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// fsID1 is fs_id[1]: makefs takes it from random(); here it is a function
// of the time stamp, in random()'s range (31 bits).
func (w *writer) fsID1() int64 { return int64(w.seed & 0x7fffffff) }

// gen is di_gen of inode ino: a function of fs_id[1] and the inode number
// in 1..2^31-1, as makefs takes it from random().
func (w *writer) gen(ino int64) int64 {
	return int64(splitmix(w.seed^uint64(ino))%0x7fffffff) + 1
}

// write builds the image: cylinder groups, the tree, then the superblocks.
func (w *writer) write(im *bcache.Image) error {
	w.im = im
	w.base = w.opts.Offset
	g := w.g
	w.a = newAlloc(g, w.o, w.utime)
	w.zero = make([]byte, g.bsize)

	// makefs probes the last sector by writing the start of the
	// superblock under construction there: only fs_old_flags is set.
	probe := make([]byte, g.sectorSize)
	probe[211] = fsFlagsUpdated
	if w.opts.Compat != CompatDebian && g.sectorSize > sbStructSz {
		// FreeBSD's mkfs has set the label, fs_maxsymlinklen and
		// fs_old_inodefmt by then, which a sector larger than 512
		// bytes shows, in the host's byte order.
		var s superblock
		copy(s.fsVolname(), w.opts.Label)
		binary.LittleEndian.PutUint32(s.fsMaxsymlinklen(), uint32(g.maxsymlinklen))
		binary.LittleEndian.PutUint32(s.fsOldInodefmt(), fs44InodeFmt)
		s.fsOldFlags()[0] = fsFlagsUpdated
		copy(probe, s[:])
	}
	w.probe = w.fsBytes/int64(g.sectorSize)*int64(g.sectorSize) - int64(g.sectorSize)
	if err := w.writeAt(probe, w.probe); err != nil {
		return err
	}
	w.copies, w.copyOwners = nil, nil
	w.icache = inodeCache{addr: -1}
	w.initInodes()
	w.ino = map[*fstree.Node]int64{}
	w.written = map[*fstree.Node]bool{}
	w.next = rootIno
	if err := w.populate(w.t.Root, nil); err != nil {
		return err
	}
	if err := w.flushCopies(); err != nil {
		return err
	}
	if err := w.flushInodes(); err != nil {
		return err
	}
	if err := w.writeInitedInodes(); err != nil {
		return err
	}
	return w.writeMeta()
}

func (w *writer) writeAt(b []byte, off int64) error {
	if w.dry {
		return nil
	}
	_, err := w.im.WriteAt(b, w.base+off)
	return err
}
