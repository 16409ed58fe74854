package ext

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"strings"
	"syscall"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/hugemem"
)

// WriteFile makes the ext2, ext3 or ext4 image of src with opts (nil is the zero Options),
// as e2fsprogs' mke2fs -d does, and writes it to the file path through the
// block cache (Options.Cache). The image appears at path only when
// complete: on any error the temporary file is removed and path is left as
// it was. With the same UUID, HashSeed and Timestamp (mke2fs's -U, -E
// hash_seed and SOURCE_DATE_EPOCH) the image is byte for byte the one
// `mke2fs -t ext2 -d DIR` (or ext3) of e2fsprogs 1.47.4 makes with its default
// mke2fs.conf.
func WriteFile(path string, src fstree.Source, opts *Options) error {
	_, err := writeTarget(imgfmt.ToFile(path), src, opts)
	return err
}

// UpdateFile writes the image WriteFile makes into the existing file path
// as mke2fs writes to a device that holds bytes already (the file keeps
// its permissions): the file system goes at Options.Offset, over its
// own bytes (Options.Size, less a part block or a last group too small to
// keep, as WriteFile's image), which read as zeros first (mke2fs discards
// them), and every other byte of the file is kept, the file growing to
// hold the file system when it is shorter. A
// disk image's partition table and other partitions stay as they were
// when the file system goes into one of its partitions (-E offset=). As
// with WriteFile, path changes only when the image is complete: the
// update is made in a copy beside it (through copy_file_range, which
// shares the bytes where the host's file system can), renamed into
// place. mke2fs also marks the inode tables zeroed after its discard;
// that is Options.ZeroedInodeTables, which ParseMke2fs sets for a device
// that is not empty, and UpdateFile takes as given. A path that is not a
// regular file is an error wrapping imgfmt.ErrNotRegular.
func UpdateFile(path string, src fstree.Source, opts *Options) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := o.check(); err != nil {
		return err
	}
	old, have, err := imgfmt.OpenFile(path) // regular only; a FIFO does not block
	if err != nil {
		return err
	}
	defer old.Close()
	fi, err := old.Stat()
	if err != nil {
		return err
	}
	// the file keeps its permissions, as a file written in place does
	c := bcache.Options{}
	if o.Cache != nil {
		c = *o.Cache
	}
	c.Perm = fi.Mode().Perm()
	o.Cache = &c
	size, err := imageSize(&o)
	if err != nil {
		return err
	}
	if o.Offset == 0 && have <= size {
		// no byte outside the file system: the image WriteFile makes
		_, err := writeTarget(imgfmt.ToFile(path), src, &o)
		return err
	}
	im, err := bcache.Create(path, max(have, size), o.Cache)
	if err != nil {
		return err
	}
	defer im.Abort()
	if err := im.CopyFrom(0, old, have); err != nil {
		return err
	}
	inner := o
	inner.Offset = 0
	if _, err := writeTarget(imgfmt.ToWriterAt(im.Section(o.Offset, o.Size)), src, &inner); err != nil {
		return err
	}
	return im.Commit()
}

// Write makes the image WriteFile makes and writes it to dst, every byte of
// it from offset 0, and returns its size (0 on any error). The file
// system is laid out in memory first (its metadata, not its files'
// contents): nothing is written to dst when it cannot be made. A dst that
// is a bcache.InPlaceCreator (a bcache.Section, or a partition mkimg
// writes) gets the image built in place instead: the same bytes, but what
// the image leaves zero is not written (it stays a hole of a disk file)
// and memory does not grow with the image.
func Write(dst io.WriterAt, src fstree.Source, opts *Options) (int64, error) {
	im, err := writeTarget(imgfmt.ToWriterAt(dst), src, opts)
	if err != nil {
		return 0, err
	}
	return im.Size(), nil
}

// Build makes the image WriteFile makes, in memory, and returns it.
func Build(src fstree.Source, opts *Options) ([]byte, error) {
	im, err := writeTarget(imgfmt.ToMemory(), src, opts)
	if err != nil {
		return nil, err
	}
	return im.Bytes(), nil
}

// writer holds the file system laid out before the first byte is written.
type writer struct {
	o         Options
	g         *mkGeometry
	f         *fsys
	files     []*fstree.Node
	uuid      [16]byte
	hashSeed  [16]byte
	overhead  uint64
	inoOf     map[*fstree.Node]uint32 // inodes made so far, for hard links
	jnlBlocks [68]byte                // s_jnl_blocks of ext3
	// sums holds each regular file's content SHA-256 while the UUID or
	// hash seed is to be derived (see idSeed); nil otherwise.
	// The sums are taken on the data writer's goroutine when there is
	// one, and hold once it is closed.
	sums map[*fstree.Node]*[sha256.Size]byte
	jsb  []byte // the journal's superblock block of ext3 and ext4
	// im, when not nil, is the image the layout writes files' data to
	// as it reads them (writeTarget).
	im *bcache.Image
	dw *dataWriter // writes files' data to im, when not nil
	// metaDone holds the indirect blocks dw wrote between the data of
	// their files, complete, which the metadata's writes leave out
	metaDone  map[uint64]bool
	pf        *prefetcher // reads files' data ahead, when dw is not nil
	spare     []byte      // a chunk of dw's once it is closed, its pages touched
	readBuf   []byte      // readChunk bytes, reused for every file
	zeroBlock []byte      // a block of zeros to compare with
	copies    copyWrites  // the I/O model's replay of copy_file, reused
	ft        features    // the features laid out
	// orphanIno is s_orphan_file_inum of ext4.
	orphanIno  uint32
	hasJournal bool
	// quotaIno is each quota type's inode (s_usr_quota_inum,
	// s_grp_quota_inum, s_prj_quota_inum), 0 for none.
	quotaIno [3]uint32
}

// writeTarget lays the file system out and writes it to t. Where t's
// bytes reach their destination only when the image is complete (a file
// renamed into place, memory), the layout runs inside the image and
// writes each file's data as it reads it (one pass over the files);
// into a disk built in place it lays out first and writes after, so that
// nothing is written when the file system cannot be made.
func writeTarget(t imgfmt.Target, src fstree.Source, opts *Options) (*bcache.Image, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	size, err := imageSize(&o)
	if err != nil {
		return nil, err
	}
	if t.InPlace() {
		w, err := prepare(src, &o, nil, nil)
		if err != nil {
			return nil, err
		}
		return imgfmt.WriteImage(t, size, o.Cache, w.write)
	}
	return imgfmt.WriteImage(t, size, o.Cache, func(im *bcache.Image) error {
		// the data writer's chunks, freed once nothing reads or writes
		// them: prepare has waited for its goroutines, write is done
		chunks := hugemem.Alloc(dataBuffers * readChunk)
		defer chunks.Free()
		w, err := prepare(src, &o, im, chunks.Bytes)
		if err != nil {
			return err
		}
		return w.write(im)
	})
}

// imageSize returns the bytes of the image of o: Offset, then the file
// system's blocks, to the end of its last one, which mke2fs writes (its
// zeroing of the last 64 KiB against old RAID metadata): fewer than Size
// when Size is not a whole number of blocks, or when ext2fs_initialize
// drops a last group too small for its own metadata (a 513 MiB ext4 is
// 512 MiB).
func imageSize(o *Options) (int64, error) {
	ft, err := newFeatures(o)
	if err != nil {
		return 0, err
	}
	g, err := newGeometry(o, ft)
	if err != nil {
		return 0, err
	}
	return o.Offset + int64(g.blocks)*int64(g.bs), nil
}

// prepare lays the file system of src out; with im, files' data goes to
// im as the layout reads it, through the data writer's chunks, cut from
// chunks (dataBuffers of readChunk bytes).
func prepare(src fstree.Source, opts *Options, im *bcache.Image, chunks []byte) (*writer, error) {
	w := &writer{inoOf: map[*fstree.Node]uint32{}, im: im}
	if opts != nil {
		w.o = *opts
	}
	o := &w.o
	if err := o.check(); err != nil {
		return nil, err
	}
	ft, err := newFeatures(o)
	if err != nil {
		return nil, err
	}
	if !ft.extAttr {
		// set_inode_xattr finds no ext_attr feature and copies nothing
		o.NoCopyXattrs = true
	}
	t, err := imgfmt.SourceTree(src, &fstree.Options{Timestamp: o.Timestamp, ClampTimes: o.ClampTimes, Xattrs: !o.NoCopyXattrs})
	if err != nil {
		return nil, fmt.Errorf("ext: %w", err)
	}
	now := o.Timestamp
	if now.IsZero() {
		now = newestMtime(t)
	}
	if now.Unix() < 0 || now.Unix() > math.MaxUint32 {
		return nil, fmt.Errorf("%w: Timestamp %v is outside 1970 to 2106", ErrOption, now)
	}
	if o.FlexGroups != 0 && !ft.flex {
		return nil, fmt.Errorf("%w: FlexGroups %d without flex_bg", ErrOption, o.FlexGroups)
	}
	if o.JournalMiB != 0 && !ft.journal {
		return nil, fmt.Errorf("%w: JournalMiB %d without a journal (has_journal)", ErrOption, o.JournalMiB)
	}
	w.ft = ft
	g, err := newGeometry(o, ft)
	if err != nil {
		return nil, err
	}
	w.g = g
	w.uuid, w.hashSeed = o.UUID, o.HashSeed
	if w.uuid == ([16]byte{}) || w.hashSeed == ([16]byte{}) {
		w.sums = map[*fstree.Node]*[sha256.Size]byte{}
	}
	w.f = newFsys(g, uint32(now.Unix()))
	w.f.extents, w.f.csum, w.f.groupCsum = ft.extents, ft.csum, ft.groupCsum()
	w.f.noFiletype = !ft.filetype
	w.f.inline = ft.inline
	if ft.kbytesStart() {
		w.f.io = newIOModel(w.f)
	}
	w.f.stride = o.Stride
	w.f.packed = o.PackedMetaBlocks && ft.flex
	if err := w.mkfs(); err != nil {
		return nil, err
	}
	if !o.NoCopyXattrs {
		// populate_fs3 copies the source folder's attributes first
		if err := w.setXattrs(rootIno, t.Root.Xattrs); err != nil {
			return nil, fmt.Errorf("ext: the root folder: %w", err)
		}
	}
	if im != nil {
		w.dw = newDataWriter(im, chunks)
		w.metaDone = map[uint64]bool{}
		w.dw.final = func(blk uint64) []byte {
			w.metaDone[blk] = true
			return w.f.meta[blk]
		}
		w.pf = newPrefetcher(t.Root, int(w.g.bs), w.dw.free)
	}
	err = w.populate(t.Root, rootIno)
	if w.pf != nil {
		w.pf.stop()
		w.pf = nil
	}
	if w.dw != nil {
		err = cmp.Or(err, w.dw.close())
		w.spare = w.dw.spare()
		w.dw = nil
		if we := (*imageWriteError)(nil); errors.As(err, &we) {
			err = we.err
		}
	}
	if err != nil {
		return nil, err
	}
	if w.sums != nil {
		seed := w.idSeed(t, w.sums)
		if w.uuid == ([16]byte{}) {
			w.uuid = derivedID(seed, "uuid")
		}
		if w.hashSeed == ([16]byte{}) {
			w.hashSeed = derivedID(seed, "hash_seed")
		}
		w.sums = nil
	}
	if w.jsb != nil {
		copy(w.jsb[0x30:], w.uuid[:])
	}
	return w, nil
}

// newestMtime is the time of a file system made without a Timestamp: the
// latest modification time in the tree (as the tree's options left it),
// or the epoch for a tree without one, never the clock.
func newestMtime(t *fstree.Tree) time.Time {
	newest := time.Unix(0, 0).UTC()
	t.Walk(func(_ string, n *fstree.Node) error {
		if n.Mtime.After(newest) {
			newest = n.Mtime
		}
		return nil
	})
	return newest.Truncate(time.Second)
}

// mkfs lays out what mke2fs makes before it copies the tree: the groups'
// metadata, the root directory, lost+found, the reserved inodes, the bad
// blocks inode and the resize inode.
func (w *writer) mkfs() error {
	g, f := w.g, w.f
	for i := uint32(0); i < g.groups; i++ {
		f.reserveSuper(i)
	}
	if err := f.allocateTables(); err != nil {
		return err
	}
	f.toClusters()
	// ext2fs_count_used_clusters, and s_first_data_block in clusters
	w.overhead = f.usedIn(g.firstData, g.blocks)>>g.cbits + ceilDiv(g.firstData, g.ratio())
	f.io.prologue()
	if f.csum {
		// write_reserved_inodes, before the root
		for i := uint32(1); i < firstIno; i++ {
			f.io.wiFull(i)
		}
	}
	if _, err := f.mkdir(rootIno, rootIno, ""); err != nil {
		return err
	}
	if o := w.o; o.RootUID != 0 || o.RootGID != 0 {
		f.io.ri(rootIno)
		f.io.wiFull(rootIno)
		// create_root_dir's root_owner
		n := f.inodes[rootIno]
		le.PutUint16(n.iUID(), uint16(o.RootUID))
		le.PutUint16(n.lIUIDHigh(), uint16(o.RootUID>>16))
		le.PutUint16(n.iGID(), uint16(o.RootGID))
		le.PutUint16(n.lIGIDHigh(), uint16(o.RootGID>>16))
	}
	lpf, err := f.mkdir(rootIno, 0, "lost+found")
	if err != nil {
		return err
	}
	f.lookupIO(rootIno, "lost+found")
	size := 0
	for i := 1; i < nDirect; i++ {
		if size += g.bs; size >= 16*1024 && size >= 2*g.bs {
			break
		}
		if err := f.expandDir(lpf); err != nil {
			return err
		}
	}
	for i := uint32(rootIno + 1); i < firstIno; i++ {
		f.inodeAllocStats(i, false)
	}
	if f.csum {
		// write_reserved_inodes: zero inodes, each with its checksum
		for i := uint32(1); i < firstIno; i++ {
			if f.inodes[i] == nil {
				f.inodes[i] = make(inode, g.inodeSize)
			}
		}
	}
	f.inodeAllocStats(badIno, false)
	bad := make(inode, g.inodeSize)
	for _, t := range [][]byte{bad.iAtime(), bad.iCtime(), bad.iMtime()} {
		le.PutUint32(t, f.now)
	}
	f.inodes[badIno] = bad
	f.io.ri(badIno) // ext2fs_update_bb_inode
	f.io.wi(badIno)
	if !g.noResize {
		if err := w.resizeInode(); err != nil {
			return err
		}
	}
	if w.ft.journal {
		if journalBlocks(g.blocks) < 0 && w.o.JournalMiB == 0 {
			// figure_journal_size: mke2fs goes on without a journal (nor,
			// then, an orphan file)
			if w.o.Warn != nil {
				fmt.Fprintf(w.o.Warn, "ext: %d blocks are too few for a journal; the file system has none, as mke2fs makes it\n", g.blocks)
			}
		} else {
			if err := w.journal(); err != nil {
				return err
			}
			w.hasJournal = true
		}
	}
	if w.ft.quota {
		// create_quota_inodes, before the orphan file and the tree
		if err := w.quotaFiles(); err != nil {
			return err
		}
	}
	if w.ft.orphan && w.hasJournal {
		return w.orphanFile()
	}
	return nil
}

const (
	journalIno      = 8          // EXT2_JOURNAL_INO
	jbd2Magic       = 0xc03b3998 // JBD2_MAGIC_NUMBER
	jbd2SuperV2     = 4          // JBD2_SUPERBLOCK_V2
	jnlBackupBlocks = 1          // EXT3_JNL_BACKUP_BLOCKS
)

// journalBlocks is ext2fs_default_journal_size.
func journalBlocks(blocks uint64) int64 {
	switch {
	case blocks < 2048:
		return -1
	case blocks < 32768:
		return 1024
	case blocks < 256*1024:
		return 4096
	case blocks < 512*1024:
		return 8192
	case blocks < 4096*1024:
		return 16384
	case blocks < 8192*1024:
		return 32768
	case blocks < 16384*1024:
		return 65536
	case blocks < 32768*1024:
		return 131072
	}
	return 262144
}

// journal is ext2fs_add_journal_inode3 for a file system without
// extents: inode 8's blocks allocated one by one as ext2fs_fallocate's
// slow path does (bmap.c's goals), the journal superblock in its first
// block, and the inode's block map copied to s_jnl_blocks.
func (w *writer) journal() error {
	g, f := w.g, w.f
	nj := journalBlocks(g.blocks)
	if nj < 0 {
		return fmt.Errorf("%w: %d blocks are too few for a journal", ErrOption, g.blocks)
	}
	if w.o.JournalMiB != 0 {
		// figure_journal_size: MiB in blocks, 1024 to 10240000, at most
		// half the free blocks
		nj = int64(w.o.JournalMiB) * 1024 / int64(g.bs/1024)
		free := int64(g.blocks - g.firstData - f.usedIn(g.firstData, g.blocks))
		if nj < 1024 || nj > 10240000 || nj > free/2 {
			return fmt.Errorf("%w: JournalMiB %d: a journal of %d blocks (want 1024 to 10240000, at most half the %d free)", ErrOption, w.o.JournalMiB, nj, free)
		}
	}
	n := make(inode, g.inodeSize)
	jsb := make([]byte, g.bs)
	be := binary.BigEndian
	be.PutUint32(jsb[0x0:], jbd2Magic)
	be.PutUint32(jsb[0x4:], jbd2SuperV2)
	be.PutUint32(jsb[0xc:], uint32(g.bs))
	be.PutUint32(jsb[0x10:], uint32(nj))
	be.PutUint32(jsb[0x14:], 1) // s_first
	be.PutUint32(jsb[0x18:], 1) // s_sequence
	w.jsb = jsb                 // its s_uuid is the file system's, set by prepare
	be.PutUint32(jsb[0x40:], 1) // s_nr_users
	f.io.ri(journalIno)
	if f.extents {
		initExtents(n)
		if err := w.journalExtents(n, uint64(nj)); err != nil {
			return err
		}
		f.meta[f.extLookup(n, 0)] = jsb
	} else {
		// ext2fs_fallocate's slow path: a lookup, then the allocation
		for l := uint64(0); l < uint64(nj); l++ {
			f.bmapIO(n, l)
			b, err := f.mapBlock(journalIno, n, l)
			if err != nil {
				return err
			}
			if l == 0 {
				f.meta[b] = jsb
			}
		}
	}
	rec := f.newInodeRecord(journalIno)
	copy(rec[:goodOldInodeSize], n[:goodOldInodeSize])
	for _, t := range [][]byte{rec.iAtime(), rec.iCtime(), rec.iMtime()} {
		le.PutUint32(t, f.now)
	}
	le.PutUint16(rec.iMode(), sIFREG|0o600)
	le.PutUint16(rec.iLinksCount(), 1)
	size := uint64(nj) * uint64(g.bs)
	le.PutUint32(rec.iSizeLo(), uint32(size))
	le.PutUint32(rec.iSizeHigh(), uint32(size>>32))
	copy(w.jnlBlocks[:iBlockSz], rec.iBlock())
	le.PutUint32(w.jnlBlocks[60:], uint32(size>>32))
	le.PutUint32(w.jnlBlocks[64:], uint32(size))
	w.overhead += ceilDiv(uint64(nj), g.ratio())
	f.io.wiFull(journalIno)
	f.io.w(f.lookupBlock(rec, 0)) // the journal superblock
	return nil
}

// journalExtents is ext2fs_fallocate's path for an empty extent-mapped
// journal: from the first block of the group get_midpoint_journal_block
// picks, runs of free blocks of at most 32768, each its own extent.
func (w *writer) journalExtents(n inode, nj uint64) error {
	f := w.f
	pblk := uint64(0) // packed_meta_blocks' journal_location: the first free block
	if !w.o.PackedMetaBlocks {
		pblk = w.midpointJournalBlock()
	}
	for l := uint64(0); l < nj; {
		// extents of whole clusters with bigalloc
		p, run, err := f.newRange(pblk, min(nj-l, extInitMaxLen&^w.g.cmask()))
		if err != nil {
			return err
		}
		for b := p; b < p+run; b++ {
			f.mark(b)
		}
		f.addIBlocks(n, ceilDiv(run, w.g.ratio())) // claim_range counts clusters
		if err := f.extInsert(journalIno, n, l, p, run); err != nil {
			return err
		}
		l += run
		if pblk = p + run; pblk >= w.g.blocks {
			pblk = w.g.firstData
		}
	}
	return nil
}

// midpointJournalBlock is mkjournal.c's get_midpoint_journal_block: the
// first block of the group, around the middle of the file system, with
// the most free blocks (with flex_bg, the first flex group from the
// middle one that has any).
func (w *writer) midpointJournalBlock() uint64 {
	g, f := w.g, w.f
	free := func(grp uint64) uint64 {
		first, last := g.groupFirst(grp), g.groupLast(grp)
		return last + 1 - first - f.usedIn(first, last+1)
	}
	groups := uint64(g.groups)
	group := g.groupOfBlock((g.blocks - g.firstData) / 2)
	flex := uint64(1) << g.logFlex
	var start uint64
	if g.logFlex != 0 && group > flex {
		group &^= flex - 1
		for group < groups && free(group) == 0 {
			group++
		}
		if group == groups {
			group = 0
		}
		start = group
	} else if group > 0 {
		start = group - 1
	} else {
		start = group
	}
	end := group
	if group+1 < groups {
		end = group + 1
	}
	group = start
	for i := start + 1; i <= end; i++ {
		if free(i) > free(group) {
			group = i
		}
	}
	return g.groupFirst(group)
}

// orphanFileBlocks is ext2fs_default_orphan_file_blocks: 32 blocks under
// 128 Ki blocks, then a block per block size of blocks, and from 2 Mi
// blocks on 2 blocks, not 2 MiB: the macro EXT4_DEFAULT_ORPHAN_FILE_SIZE
// is "2 << 20" without parentheses, so dividing it by the block size
// divides the 20 (to 0).
func orphanFileBlocks(blocks uint64, bs int) uint64 {
	switch {
	case blocks < 128*1024:
		return 32
	case blocks < 2<<20:
		return blocks / uint64(bs)
	}
	return 2 << (20 / bs)
}

// orphanFile is ext2fs_create_orphan_file: a new inode from the root's
// group, its blocks allocated one after the other from the first free
// one, each ending in the orphan block tail (its checksum is set when
// the image is written).
func (w *writer) orphanFile() error {
	g, f := w.g, w.f
	ino, err := f.newInode(rootIno)
	if err != nil {
		return err
	}
	f.inodeAllocStats(ino, false)
	n := f.newInodeRecord(ino)
	if f.extents {
		initExtents(n)
		f.io.wi(ino) // ext2fs_create_orphan_file writes the empty tree
	} else {
		f.io.ri(ino) // block_iterate3's read
	}
	nb := orphanFileBlocks(g.blocks, g.bs)
	nb = (nb + g.cmask()) &^ g.cmask() // whole clusters with bigalloc
	// open is the indirect blocks block_iterate3 is in, from the top:
	// each written when it leaves it (an entry of each was set), a new
	// one written zeroed, then read, when it enters it.
	var open []uint64
	last, allocated := uint64(0), uint64(0)
	// alloc is mkorphan_proc's allocation: the first free block after
	// the last one allocated, an indirect block as much as a data block.
	alloc := func() (uint64, error) {
		if allocated > 0 && last>>g.cbits == (last+1)>>g.cbits {
			// bigalloc: the next block of the last one's cluster
			last++
			return last, nil
		}
		b, err := f.allocBlock(last)
		if err == nil {
			last = b
			allocated++
		}
		return b, err
	}
	for l := uint64(0); l < nb; l++ {
		var slot []byte
		if !f.extents {
			var err error
			if slot, err = f.dirSlot(n, l, alloc); err != nil {
				return err
			}
			open = w.enterIndIO(open, f.indPath(n, l))
		}
		b, err := alloc()
		if err != nil {
			return err
		}
		buf := make([]byte, g.bs)
		le.PutUint32(buf[g.bs-8:], orphanBlockMagic)
		f.meta[b] = buf
		f.io.w(b)
		f.orphan = append(f.orphan, b)
		if slot != nil {
			le.PutUint32(slot, uint32(b))
		} else if err := f.extAppend(ino, n, l, b, true, true); err != nil {
			return err
		}
	}
	if !f.extents {
		w.enterIndIO(open, nil)
		f.io.wi(ino) // block_iterate3: i_block changed
	}
	// ext2fs_create_orphan_file counts the blocks it allocated (not an
	// extent tree's).
	le.PutUint32(n.iBlocksLo(), 0)
	f.addIBlocks(n, allocated)
	le.PutUint16(n.iMode(), sIFREG|0o600)
	le.PutUint16(n.iLinksCount(), 1)
	size := nb * uint64(g.bs)
	le.PutUint32(n.iSizeLo(), uint32(size))
	le.PutUint32(n.iSizeHigh(), uint32(size>>32))
	w.orphanIno = ino
	f.io.ri(ino) // read back, then ext2fs_write_new_inode
	f.io.wiFull(ino)
	return nil
}

// enterIndIO is the I/O of ext2fs_block_iterate3 with BLOCK_FLAG_APPEND
// going from the indirect blocks open (from the top) to those of path:
// the ones it leaves written, from the bottom, the new ones written
// (zeroed) and read, from the top. It returns path.
func (w *writer) enterIndIO(open, path []uint64) []uint64 {
	f := w.f
	p := 0
	for p < len(open) && p < len(path) && open[p] == path[p] {
		p++
	}
	for i := len(open) - 1; i >= p; i-- {
		f.io.w(open[i])
	}
	for _, b := range path[p:] {
		f.io.w(b)
		f.io.r(b)
	}
	return path
}

// resizeInode is ext2fs_create_resize_inode: inode 7's double indirect
// block lists the reserved GDT blocks of group 0, each of which lists its
// copies in the backup groups. With no reserved GDT block the inode and
// its empty double indirect block are made all the same, as mke2fs makes
// them.
func (w *writer) resizeInode() error {
	g, f := w.g, w.f
	sbBlk := g.sbBlock()
	apb := uint64(g.bs / 4)
	f.io.ri(resizeIno)
	dind, err := f.allocBlock(sbBlk + g.descBlocks + g.rsvGDT + 2 + g.itbPerGroup)
	if err != nil {
		return err
	}
	n := f.newInodeRecord(resizeIno)
	le.PutUint16(n.iMode(), sIFREG|0o600)
	le.PutUint16(n.iLinksCount(), 1)
	le.PutUint32(n.iBlockWord(dindBlock), uint32(dind))
	f.addIBlocks(n, 1)
	size := (apb*apb + apb + nDirect) * uint64(g.bs)
	le.PutUint32(n.iSizeLo(), uint32(size))
	le.PutUint32(n.iSizeHigh(), uint32(size>>32))
	dbuf := make([]byte, g.bs)
	f.meta[dind] = dbuf
	backups := g.backups()
	for r := uint64(0); r < g.rsvGDT; r++ {
		gdtOff := (g.descBlocks + r) % apb
		gdtBlk := sbBlk + 1 + g.descBlocks + r
		le.PutUint32(dbuf[4*gdtOff:], uint32(gdtBlk))
		f.addIBlocks(n, 1)
		buf := make([]byte, g.bs)
		for i, grp := range backups {
			le.PutUint32(buf[4*i:], uint32(gdtBlk+uint64(grp)*g.bpg))
			f.addIBlocks(n, 1)
		}
		f.meta[gdtBlk] = buf
		f.io.w(gdtBlk)
	}
	f.io.w(dind)
	f.io.wiFull(resizeIno)
	return nil
}

// fileType is the directory entry type of a node.
func fileType(n *fstree.Node) (byte, uint16) {
	switch n.Type {
	case fstree.TypeDir:
		return ftDir, sIFDIR
	case fstree.TypeSymlink:
		return ftSymlink, sIFLNK
	case fstree.TypeChar:
		return ftChrdev, sIFCHR
	case fstree.TypeBlock:
		return ftBlkdev, sIFBLK
	case fstree.TypeFIFO:
		return ftFifo, sIFIFO
	case fstree.TypeSocket:
		return ftSock, sIFSOCK
	}
	return ftRegFile, sIFREG
}

// populate is misc/create_inode.c's __populate_fs: the children of dir in
// bytewise order, each made, filled (a directory recursively) and given
// its owner, mode and times.
func (w *writer) populate(dir *fstree.Node, dino uint32) error {
	f := w.f
	for _, c := range dir.Children {
		if len(c.Name) > maxNameLen {
			return fmt.Errorf("%w: %s: name longer than %d bytes", ErrOption, c.Path(), maxNameLen)
		}
		ft, ifmt := fileType(c)
		if c.HardLink != nil {
			ino := w.inoOf[c.HardLink]
			f.io.ri(ino) // add_link
			if err := f.link(dino, c.Name, ino, ft, true); err != nil {
				return w.nodeErr(c, err)
			}
			n := f.inodes[ino]
			le.PutUint16(n.iLinksCount(), le.Uint16(n.iLinksCount())+1)
			f.io.wi(ino)
			continue
		}
		var ino uint32
		var err error
		switch c.Type {
		case fstree.TypeDir:
			if dino == rootIno && c.Name == "lost+found" {
				ino = w.lookup(dino, c.Name)
				f.lookupIO(dino, c.Name)
			} else if ino, err = f.mkdir(dino, 0, c.Name); err != nil {
				return w.nodeErr(c, err)
			} else {
				f.lookupIO(dino, c.Name) // __populate_fs finds the new folder
			}
			if err := w.populate(c, ino); err != nil {
				return err
			}
		case fstree.TypeSymlink:
			if ino, err = w.symlink(dino, c.Name, c.Link); err != nil {
				return w.nodeErr(c, err)
			}
		case fstree.TypeFile:
			if ino, err = w.file(dino, c); err != nil {
				return w.nodeErr(c, err)
			}
		default:
			if ino, err = w.mknod(dino, c, ft, ifmt); err != nil {
				return w.nodeErr(c, err)
			}
		}
		w.inoOf[c] = ino
		f.lookupIO(dino, c.Name) // __populate_fs's ext2fs_namei
		f.io.ri(ino)             // set_inode_extra
		f.io.wi(ino)
		w.setExtra(ino, c)
		if !w.o.NoCopyXattrs {
			if err := w.setXattrs(ino, c.Xattrs); err != nil {
				return w.nodeErr(c, err)
			}
		}
	}
	return nil
}

func (w *writer) nodeErr(n *fstree.Node, err error) error {
	if we := (*imageWriteError)(nil); errors.As(err, &we) {
		return we.err
	}
	return &nodeError{path: n.Path(), err: err}
}

// nodeError is an error about one node of the tree: "ext: PATH: what",
// without a second "ext: " from the error it wraps.
type nodeError struct {
	path string
	err  error
}

func (e *nodeError) Error() string {
	return "ext: " + e.path + ": " + strings.TrimPrefix(e.err.Error(), "ext: ")
}

func (e *nodeError) Unwrap() error { return e.err }

// lookup finds name in directory dir (lost+found in the root).
func (w *writer) lookup(dir uint32, name string) uint32 {
	for _, blk := range w.f.dirBlocks(w.f.inodes[dir]) {
		buf := w.f.meta[blk]
		for off := 0; off < len(buf); {
			d := dirEntry(buf[off:])
			nl := int(d.nameLen()[0])
			if le.Uint32(d.inode()) != 0 && string(buf[off+8:off+8+nl]) == name {
				return le.Uint32(d.inode())
			}
			off += w.f.recLen(d)
		}
	}
	return 0
}

// clampTime is ext2fs_inode_xtime_set on a 128-byte inode structure.
func clampTime(t time.Time) uint32 {
	s := t.Unix()
	if s < math.MinInt32 {
		s = math.MinInt32
	}
	if s > math.MaxInt32 {
		s = math.MaxInt32
	}
	return uint32(int32(s))
}

// setExtra is set_inode_extra: owner, permission bits and times.
func (w *writer) setExtra(ino uint32, c *fstree.Node) {
	n := w.f.inodes[ino]
	le.PutUint16(n.iUID(), uint16(c.UID))
	le.PutUint16(n.lIUIDHigh(), uint16(c.UID>>16))
	le.PutUint16(n.iGID(), uint16(c.GID))
	le.PutUint16(n.lIGIDHigh(), uint16(c.GID>>16))
	le.PutUint16(n.iMode(), le.Uint16(n.iMode())&sIFMT|uint16(c.Mode&0o7777))
	le.PutUint32(n.iAtime(), clampTime(c.Atime))
	le.PutUint32(n.iCtime(), clampTime(c.Ctime))
	le.PutUint32(n.iMtime(), clampTime(c.Mtime))
}

// mknod is do_mknod_internal.
func (w *writer) mknod(dir uint32, c *fstree.Node, ft byte, ifmt uint16) (uint32, error) {
	f := w.f
	ino, err := f.newInode(dir)
	if err != nil {
		return 0, err
	}
	if err := f.link(dir, c.Name, ino, ft, true); err != nil {
		return 0, err
	}
	f.inodeAllocStats(ino, false)
	n := f.newInodeRecord(ino)
	le.PutUint16(n.iMode(), ifmt)
	maj, mnr := fstree.Major(c.Rdev), fstree.Minor(c.Rdev)
	if maj < 256 && mnr < 256 {
		le.PutUint32(n.iBlockWord(0), maj*256+mnr)
	} else {
		le.PutUint32(n.iBlockWord(1), mnr&0xff|maj<<8|(mnr&^0xff)<<12)
	}
	le.PutUint16(n.iLinksCount(), 1)
	f.io.wiFull(ino)
	return ino, nil
}

// symlink is ext2fs_symlink, retried after expanding the directory when
// it is full (do_symlink_internal).
func (w *writer) symlink(dir uint32, name, target string) (uint32, error) {
	f, g := w.f, w.g
	if len(target) >= g.bs {
		return 0, fmt.Errorf("%w: symbolic link target of %d bytes (at most %d)", ErrOption, len(target), g.bs-1)
	}
	for tries := 0; ; tries++ {
		fast := len(target) < iBlockSz
		// ext2fs_symlink tries inline data for a slow link (its block
		// is found first all the same, and left free)
		inline := !fast && f.inline && len(target)-inlineSize <= f.inlineMax()
		var blk uint64
		var err error
		if !fast {
			// ext2fs_find_inode_goal of inode 0
			if blk, err = f.newBlock(f.findInodeGoal(0, nil)); err != nil {
				return 0, err
			}
		}
		ino, err := f.newInode(dir)
		if err != nil {
			return 0, err
		}
		n := f.newInodeRecord(ino)
		le.PutUint16(n.iMode(), sIFLNK|0o777)
		le.PutUint16(n.iLinksCount(), 1)
		le.PutUint32(n.iSizeLo(), uint32(len(target)))
		switch {
		case fast:
			copy(n.iBlock(), target)
			f.io.wiFull(ino)
		case inline:
			le.PutUint32(n.iFlags(), inlineDataFL)
			f.io.wiFull(ino)
			f.io.ri(ino) // ext2fs_inline_data_set's sizes and attribute write
			f.io.ri(ino)
			f.io.ri(ino)
			f.setInline(ino, n, []byte(target))
			f.io.wiFull(ino)
			f.io.ri(ino)
			f.io.wi(ino)
		default:
			f.addIBlocks(n, 1)
			if f.extents {
				initExtents(n)
			}
			if f.inline {
				// the inline attempt's ext2fs_write_new_inode, before
				// ext2fs_inline_data_set finds no room
				f.io.wiFull(ino)
			}
			f.io.wiFull(ino)
			if f.extents {
				if err := f.extInsert(ino, n, 0, blk, 1); err != nil {
					return 0, err
				}
			} else {
				le.PutUint32(n.iBlockWord(0), uint32(blk))
				f.io.wi(ino) // ext2fs_bmap2's BMAP_SET
			}
			buf := make([]byte, g.bs)
			copy(buf, target)
			f.meta[blk] = buf
			f.mark(blk)
			f.io.w(blk)
		}
		f.inodeAllocStats(ino, false)
		f.lookupIO(dir, "")
		err = f.link(dir, name, ino, ftSymlink, false)
		if err == nil {
			return ino, nil
		}
		if !errors.Is(err, errDirNoSpace) || tries > 0 {
			return 0, err
		}
		if !fast && !inline {
			f.unmark(blk)
			delete(f.meta, blk)
		}
		f.imap.clear(uint64(ino))
		delete(f.inodes, ino)
		delete(f.ibody, ino)
		if err := f.expandDir(dir); err != nil {
			return 0, err
		}
	}
}

// file is do_write_internal: the inode, its entry, and its contents
// copied block by block, blocks of zeros left as holes.
func (w *writer) file(dir uint32, c *fstree.Node) (uint32, error) {
	f, g := w.f, w.g
	f.lookupIO(dir, "") // do_write_internal's ext2fs_namei: not there yet
	ino, err := f.newInode(dir)
	if err != nil {
		return 0, err
	}
	if err := f.link(dir, c.Name, ino, ftRegFile, true); err != nil {
		return 0, err
	}
	f.inodeAllocStats(ino, false)
	n := f.newInodeRecord(ino)
	f.io.wiFull(ino)
	f.io.ri(ino) // copy_file's ext2fs_file_open
	le.PutUint16(n.iMode(), sIFREG|uint16(c.Mode&0o7777))
	le.PutUint16(n.iLinksCount(), 1)
	if f.inline {
		// do_write_internal: inline data, system.data made empty
		f.setInline(ino, n, nil)
		f.io.ri(ino)
		f.io.wiFull(ino)
	} else if f.extents {
		initExtents(n)
	}
	le.PutUint32(n.iSizeLo(), uint32(c.Size))
	le.PutUint32(n.iSizeHigh(), uint32(c.Size>>32))
	if c.Size == 0 || c.ZeroFilled() {
		return ino, nil
	}
	bs := int64(g.bs)
	if w.dw != nil {
		w.dw.startFile()
	}
	src, regs, raw, err := openData(w.pf, c, bs)
	defer src.close()
	if err != nil {
		return 0, err
	}
	var sum hash.Hash
	if w.sums != nil {
		sum = sha256.New()
	}
	// inline holds until the file's first write, which keeps a small
	// file inline or expands it: a file of zeros is never written, and
	// stays inline. expanded is then the block ext2fs_inline_data_expand
	// gave logical block 0, writing the 60 bytes of i_block (zeros) to
	// it before the file's first write goes to blocks.
	inline := f.inline
	var expanded uint64
	var written int64 // the end of the last block written
	var grown int64   // i_size as ext2fs_file_write grows it after an expansion
	idx := len(w.files)
	w.files = append(w.files, c)
	if w.readBuf == nil && w.dw == nil {
		w.readBuf = make([]byte, readChunk)
	}
	if w.zeroBlock == nil {
		w.zeroBlock = make([]byte, g.bs)
	}
	pos := int64(0) // bytes of the file hashed so far
	var cw *copyWrites
	if f.io != nil {
		cw = &w.copies
		pathOf := func(l uint64) []uint64 { return f.extPathTo(n, l) }
		if !f.extents {
			pathOf = func(l uint64) []uint64 { return f.indPath(n, l) }
		}
		cw.start(f.io, raw, c.Size, bs, pathOf, !f.extents)
	}
	for i, reg := range regs {
		if sum != nil {
			w.hashZeros(sum, reg[0]-pos)
		}
		if err := src.region(reg[0]); err != nil {
			return 0, err
		}
		for chunk := reg[0]; chunk < reg[1]; chunk += readChunk {
			want := min(readChunk, reg[1]-chunk)
			buf, k, err := src.chunk(w.dw, w.readBuf, chunk, int(want))
			if err != nil {
				if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
					return 0, fmt.Errorf("%w: file shorter than its size %d (%d bytes)", io.ErrUnexpectedEOF, c.Size, chunk+int64(k))
				}
				return 0, err
			}
			if sum != nil {
				w.hashData(sum, buf)
			}
			// run is the blocks of buf that follow each other on disk,
			// written to the image at once in the one-pass layout.
			var run struct{ at, n, phys int64 }
			flush := func() error {
				if w.dw != nil && run.n > 0 {
					// whole blocks: the space's zeros pad the last
					w.dw.write(run.at, run.n*bs, w.o.Offset+run.phys*bs)
				}
				run.n = 0
				return nil
			}
			for at := int64(0); at < want; at += bs {
				blk := buf[at:min(at+bs, want)]
				if bytes.Equal(blk, w.zeroBlock[:len(blk)]) {
					if err := flush(); err != nil {
						return 0, err
					}
					continue
				}
				off := chunk + at
				written = off + int64(len(blk))
				if inline {
					// the first write (ext2fs_file_write_inline_data)
					inline = false
					if f.fitsInline(c.Size) {
						// a file under a block: this is all its data
						f.setInline(ino, n, blk)
						f.io.wiFull(ino) // ext2fs_inline_data_set
						if len(blk) > inlineSize {
							f.io.wiFull(ino) // its system.data past i_block
						}
						continue
					}
					f.dropInline(ino, n)
					if f.extents {
						initExtents(n)
					}
					if expanded, err = f.expandInlineFile(ino, n); err != nil {
						return 0, err
					}
					grown = inlineSize
				}
				l := uint64(off) / uint64(bs)
				// phys takes l and the k-1 blocks after it
				var phys uint64
				k := int64(1)
				if b, room := f.growRoom(n, l); room > 0 && expanded == 0 {
					// the blocks of data that follow in buf, up to the
					// room, placed at once (growRoom's cases)
					for next := at + bs; k < int64(room) && next < want; next += bs {
						if bytes.Equal(buf[next:min(next+bs, want)], w.zeroBlock[:min(bs, want-next)]) {
							break
						}
						k++
					}
					phys = b
					f.growBy(n, l, phys, uint64(k))
					if cw != nil {
						for i := range uint64(k) {
							cw.tookSteady(l+i, phys+i, ino)
						}
					}
					written = chunk + min(at+k*bs, want)
				} else {
					if cw != nil {
						cw.capture()
					}
					var err error
					if off == 0 && expanded != 0 {
						phys = expanded
						f.lookupReadIO(n, 0) // load_buffer's lookup, then
						if int64(len(blk)) < bs {
							f.io.r(phys) // its read of a partial write's block
						}
					} else {
						phys, err = f.mapData(ino, n, l)
					}
					if end := off + int64(len(blk)); err == nil && expanded != 0 && end > grown {
						grown = end
						f.setSizeIO(ino, n, l, phys, end)
					}
					if cw != nil {
						cw.took(l, phys)
					}
					if err != nil {
						return 0, err
					}
				}
				f.addDataRun(phys, uint64(k), idx, off)
				start := at
				at += (k - 1) * bs // the loop steps past the run
				if run.n > 0 && run.phys+run.n == int64(phys) {
					run.n += k
					continue
				}
				// the indirect blocks allocated just before this
				// block go with the runs around them
				gap := run.phys + run.n
				bridged := run.n > 0 && w.dw != nil && f.indirectGap(n, l, uint64(gap), phys)
				if err := flush(); err != nil {
					return 0, err
				}
				for b := gap; bridged && b < int64(phys); b++ {
					w.dw.indirect(uint64(b), bs, w.o.Offset+b*bs)
				}
				run.at, run.n, run.phys = start, k, int64(phys)
			}
			if err := flush(); err != nil {
				return 0, err
			}
			if cw != nil {
				cw.advance(chunk + want)
			}
		}
		pos = reg[1]
		if cw != nil && i+1 < len(regs) {
			cw.advance(regs[i+1][0])
		}
	}
	if sum != nil {
		w.hashZeros(sum, c.Size-pos)
	}
	if expanded != 0 {
		// ext2fs_file_write grows i_size to each write's end, from the
		// 60 bytes the expansion wrote: a file ending in a hole is
		// shorter than its source
		size := max(written, inlineSize)
		le.PutUint32(n.iSizeLo(), uint32(size))
		le.PutUint32(n.iSizeHigh(), uint32(size>>32))
	}
	if cw != nil {
		cw.finish()
	}
	if sum != nil {
		w.sums[c] = w.takeSum(sum)
	}
	return ino, nil
}

// expandInlineFile is the I/O and allocation of ext2fs_inline_data_expand
// for a regular file whose inline data was dropped (n has its empty
// block map or extent tree): the inode written, its system.data
// attribute removed, then ext2fs_inline_data_file_expand writes the 60
// bytes of i_block (zeros) to logical block 0 through a file of its own
// (allocated, i_size grown to 60, the rest of the block zeroed, flushed
// at close), and the writer's file reads the inode again. It returns
// the block.
func (f *fsys) expandInlineFile(ino uint32, n inode) (uint64, error) {
	f.io.ri(ino)
	f.io.wi(ino)     // ext2fs_inline_data_expand
	f.io.wiFull(ino) // ext2fs_inline_data_ea_remove's attribute write
	f.io.ri(ino)
	f.io.wi(ino) // ext2fs_inline_data_file_expand
	f.io.ri(ino) // ext2fs_file_open
	b, err := f.mapData(ino, n, 0)
	if err != nil {
		return 0, err
	}
	f.setSizeIO(ino, n, 0, b, inlineSize)
	if f.extents {
		f.pathReadIO(n) // ext2fs_file_close's flush
	}
	f.io.w(b)
	f.io.ri(ino) // ext2fs_file_write_inline_data reloads the inode
	return b, nil
}

// lookupReadIO is the reads of ext2fs_bmap2 looking up logical block l,
// the last one mapped, without allocating.
func (f *fsys) lookupReadIO(n inode, l uint64) {
	if hasExtents(n) {
		f.pathReadIO(n)
	} else {
		f.bmapIO(n, l)
	}
}

// setSizeIO is ext2fs_file_set_size2 growing i_size to end after a
// write to logical block l at phys: the inode written, then
// ext2fs_file_zero_past_offset's lookup (the inode read first), read
// and write of the block when end is inside it.
func (f *fsys) setSizeIO(ino uint32, n inode, l, phys uint64, end int64) {
	f.io.wi(ino)
	if end%int64(f.g.bs) != 0 {
		f.io.ri(ino)
		f.lookupReadIO(n, l)
		f.io.r(phys)
		f.io.w(phys)
	}
}

// dataRegions lists the byte ranges of a file of size bytes that may hold
// data, each from a block boundary to a block boundary (or the end). A
// host file that answers lseek's SEEK_DATA
// and SEEK_HOLE gives its data extents, as mke2fs's try_lseek_copy asks
// them, so that holes are not read; any other source is one range.
func dataRegions(r io.Reader, size, bs int64) (regs, raw [][2]int64, err error) {
	all := [][2]int64{{0, size}}
	s, ok := r.(io.Seeker)
	if !ok {
		return all, all, nil
	}
	const seekData, seekHole = 3, 4 // lseek(2)'s SEEK_DATA and SEEK_HOLE
	for at := int64(0); at < size; {
		var data, hole int64
		var err, err2 error
		if at == 0 {
			// a hole past byte 0 means byte 0 is data: one lseek
			// less for a file without holes
			hole, err2 = s.Seek(0, seekHole)
		}
		if at != 0 || err2 != nil || hole == 0 {
			data, err = s.Seek(at, seekData)
			if errors.Is(err, syscall.ENXIO) {
				break // no data past at
			}
			hole, err2 = s.Seek(data, seekHole)
		}
		if err != nil || err2 != nil || hole <= data {
			// not answered: read it all
			if _, err := s.Seek(0, io.SeekStart); err != nil {
				return nil, nil, err
			}
			return all, all, nil
		}
		start, end := data&^(bs-1), min((hole+bs-1)&^(bs-1), size)
		raw = append(raw, [2]int64{start, end})
		if k := len(regs); k > 0 && regs[k-1][1] >= start {
			regs[k-1][1] = max(regs[k-1][1], end)
		} else if start < end {
			regs = append(regs, [2]int64{start, end})
		}
		at = hole
	}
	return regs, raw, nil
}

// readFull reads len(buf) bytes at byte off of a file: with ReadAt when
// ra is not nil (no seek before each region), else from r's offset.
func readFull(r io.Reader, ra io.ReaderAt, buf []byte, off int64) (int, error) {
	if ra == nil {
		return io.ReadFull(r, buf)
	}
	n, err := ra.ReadAt(buf, off)
	if n == len(buf) {
		return n, nil
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// The files' hashing for the derived ids: on the data writer's goroutine,
// in the order of its chunks, when there is one; else here.

// hashData writes buf, the piece the data writer adopted last when there
// is one, to h.
func (w *writer) hashData(h hash.Hash, buf []byte) {
	if w.dw != nil {
		w.dw.hash(h, int64(len(buf)))
		return
	}
	h.Write(buf)
}

// takeSum returns where h's sum is once the data writer is closed.
func (w *writer) takeSum(h hash.Hash) *[sha256.Size]byte {
	out := new([sha256.Size]byte)
	if w.dw != nil {
		w.dw.sum(h, out)
	} else {
		h.Sum(out[:0])
	}
	return out
}

// hashZeros writes n zero bytes to h, on the data writer's goroutine
// when there is one.
func (w *writer) hashZeros(h hash.Hash, n int64) {
	if w.dw != nil {
		w.dw.hashZeros(h, n)
		return
	}
	hashZeros(h, n, zeroChunk())
}

// hashZeros writes n zero bytes to h, a chunk of zeros at a time.
func hashZeros(h io.Writer, n int64, zero []byte) {
	for ; n > 0; n -= int64(len(zero)) {
		h.Write(zero[:min(n, int64(len(zero)))])
	}
}

// readChunk is how much of a file the layout reads at a time to find
// its blocks of zeros: a multiple of every block size, and the size of
// the data writer's chunks. 256 KiB took less time than 128 KiB, 512
// KiB and 1 MiB through the CLI on the small, midsize and big trees
// together: each chunk's pages are faulted in once per process
// (BENCHMARKS.md).
const readChunk = 1 << 18
