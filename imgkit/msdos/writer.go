package msdos

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// WriteFile makes the FAT image of src with opts (nil is the zero Options),
// as FreeBSD makefs -t msdos does, and writes it to the file path through
// the block cache (Options.Cache). The image appears at path only when
// complete: on any error the temporary file is removed and path is left as
// it was. The tree of src is read with the time rule of opts.Timestamp and
// opts.ClampTimes (a *fstree.Tree given as src has it applied in place, as
// its Tree method does).
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
// does not grow with the image. LayoutOf tells the size beforehand.
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

// writeTarget is the one path of WriteFile, Write and Build: it lays the
// volume out and writes it at t.
func writeTarget(t imgfmt.Target, src fstree.Source, opts *Options) (*bcache.Image, error) {
	w, err := prepare(src, opts)
	if err != nil {
		return nil, err
	}
	return imgfmt.WriteImage(t, w.fileSize, w.o.Cache, w.write)
}

// Layout describes the volume that WriteFile, Write and Build would make,
// for tools and tests.
type Layout struct {
	FATType           int
	BytesPerSector    int
	SectorsPerCluster int
	ReservedSectors   int
	NumFATs           int
	SectorsPerFAT     int
	RootEntries       int
	TotalSectors      int64
	Clusters          int   // usable clusters
	UsedClusters      int   // clusters the tree takes
	ImageSize         int64 // bytes of the image file, offset included
	VolumeID          uint32
}

// LayoutOf computes the layout that WriteFile, Write and Build would give
// src and opts, without writing anything (it reads the source's tree, not
// its files' contents).
func LayoutOf(src fstree.Source, opts *Options) (*Layout, error) {
	w, err := prepare(src, opts)
	if err != nil {
		return nil, err
	}
	g := w.g
	return &Layout{
		FATType: g.FATType, BytesPerSector: int(g.BytesPerSec), SectorsPerCluster: int(g.SecPerClus),
		ReservedSectors: int(g.RsvdSecCnt), NumFATs: int(g.NumFATs), SectorsPerFAT: int(g.FATSz),
		RootEntries: int(g.RootEntCnt), TotalSectors: int64(g.TotSec), Clusters: int(g.maxCluster() - 1),
		UsedClusters: int(w.p.nextFree - reservedFATEnts), ImageSize: w.fileSize, VolumeID: w.volID,
	}, nil
}

// writer holds everything decided before the first byte is written.
type writer struct {
	o        Options
	p        *plan
	g        *geometry
	fileSize int64
	volID    uint32
}

// checkNegative rejects negative counts and sizes, naming the field.
func (o *Options) checkNegative() error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"FATType", int64(o.FATType)}, {"SectorsPerCluster", int64(o.SectorsPerCluster)},
		{"BlockSize", int64(o.BlockSize)}, {"BytesPerSector", int64(o.BytesPerSector)},
		{"ReservedSectors", int64(o.ReservedSectors)}, {"NumFATs", int64(o.NumFATs)},
		{"DirectoryEntries", int64(o.DirectoryEntries)}, {"InfoSector", int64(o.InfoSector)},
		{"BackupSector", int64(o.BackupSector)}, {"CreateSize", o.CreateSize},
		{"SectorsPerTrack", int64(o.SectorsPerTrack)}, {"DriveHeads", int64(o.DriveHeads)},
		{"Offset", o.Offset}, {"Size", o.Size}, {"MinSize", o.MinSize}, {"MaxSize", o.MaxSize},
	} {
		if f.v < 0 {
			return fmt.Errorf("%w: Options.%s is negative (%d)", ErrParams, f.name, f.v)
		}
	}
	return nil
}

func prepare(src fstree.Source, opts *Options) (*writer, error) {
	w := &writer{}
	if opts != nil {
		w.o = *opts
	}
	o := &w.o
	if err := o.normalize(); err != nil {
		return nil, err
	}
	t, err := imgfmt.SourceTree(src, &fstree.Options{Timestamp: o.Timestamp, ClampTimes: o.ClampTimes})
	if err != nil {
		return nil, fmt.Errorf("msdos: %w", err)
	}
	warn := func(s string) {
		if o.Warn != nil {
			fmt.Fprintln(o.Warn, s)
		}
	}
	p, err := makePlan(t, o.VolumeLabel != "", warn)
	if err != nil {
		return nil, err
	}
	w.p = p
	if err := w.chooseGeometry(); err != nil {
		return nil, err
	}
	for _, s := range w.g.Warnings {
		warn("msdos: warning: " + s)
	}
	if end := o.Offset + int64(w.g.TotSec)*int64(w.g.BytesPerSec); end > w.fileSize {
		w.fileSize = end
	}
	if err := p.allocate(w.g); err != nil {
		return nil, err
	}
	switch {
	case o.VolumeID != nil:
		w.volID = *o.VolumeID
	case !o.Timestamp.IsZero():
		w.volID = timeVolumeID(w.volumeTime())
	default:
		w.volID = p.volumeID(w.g, o)
	}
	return w, nil
}

// normalize checks o and fills the defaults prepare works from: 512-byte
// sectors, MinSize and MaxSize from Size, and the bootstrap's bytes.
func (o *Options) normalize() error {
	if err := o.checkNegative(); err != nil {
		return err
	}
	if o.BytesPerSector == 0 {
		o.BytesPerSector = 512
	}
	if o.Size > 0 {
		if o.MinSize == 0 {
			o.MinSize = o.Size
		}
		if o.MaxSize == 0 {
			o.MaxSize = o.Size
		}
	}
	if o.MaxSize > 0 && o.MinSize > o.MaxSize {
		return fmt.Errorf("%w: Options.MinSize (%d) is larger than Options.MaxSize (%d)", ErrParams, o.MinSize, o.MaxSize)
	}
	return o.loadBootstrap()
}

// chooseGeometry sets w.g and w.fileSize: for the fixed size that
// MaxSize, CreateSize, Sectors or Floppy gives, or else the smallest image
// of at least MinSize that holds the tree.
func (w *writer) chooseGeometry() error {
	o := &w.o
	var err error
	switch {
	case o.MaxSize > 0:
		w.fileSize = max(o.CreateSize, o.Offset+o.MaxSize)
		w.g, err = w.fixed()
	case o.CreateSize > 0 || o.Sectors > 0 || o.Floppy != "":
		w.fileSize = o.CreateSize
		w.g, err = w.fixed()
	default:
		lo := uint64(1)
		if o.MinSize > o.Offset {
			lo = uint64((o.MinSize - o.Offset + int64(o.BytesPerSector) - 1) / int64(o.BytesPerSector))
		}
		if w.g, err = w.smallest(lo); err != nil {
			return err
		}
		w.fileSize = o.Offset + int64(w.g.TotSec)*int64(w.g.BytesPerSec)
	}
	return err
}

// fixed computes the geometry for a given image size and checks the tree
// fits; when it does not, the error says how large an image it needs.
func (w *writer) fixed() (*geometry, error) {
	g, err := computeGeometry(&w.o, w.fileSize)
	if err != nil {
		var pe *paramError
		if errors.As(err, &pe) && pe.small {
			if spc := w.clusterHint(); spc > 0 {
				return nil, fmt.Errorf("%w; at this size Options.SectorsPerCluster = %d would do", err, spc)
			}
			if need := w.needed(0); need > w.fileSize {
				// The default cluster size grows with the volume; with the
				// smallest cluster a forced FAT type fits in far less.
				if w.o.SectorsPerCluster == 0 && w.o.BlockSize == 0 {
					if need1 := w.needed(1); need1 > w.fileSize && need1 < need {
						return nil, fmt.Errorf("%w; an image of at least %d bytes is needed (%d given), or %d bytes with Options.SectorsPerCluster = 1", err, need, w.fileSize, need1)
					}
				}
				return nil, fmt.Errorf("%w; an image of at least %d bytes is needed (%d given)", err, need, w.fileSize)
			}
		}
		return nil, err
	}
	if err := w.p.fits(g); err != nil {
		var fe *fitError
		if errors.As(err, &fe) && fe.small {
			if need := w.needed(0); need > 0 {
				return nil, fmt.Errorf("%w; an image of at least %d bytes is needed (%d given)", err, need, w.fileSize)
			}
		}
		return nil, err
	}
	return g, nil
}

// clusterHint returns the largest cluster size, in sectors, with which the
// given image size makes a valid volume that holds the tree, or 0 when the
// cluster size was given or none works. The default cluster size grows
// with the volume, so a forced FAT type can have too few clusters at a size
// above the smallest one that holds the tree: then a smaller cluster, not
// a larger image, is the way out.
func (w *writer) clusterHint() int {
	if w.o.SectorsPerCluster != 0 || w.o.BlockSize != 0 {
		return 0
	}
	for spc := maxSecPerClus; spc >= 1; spc /= 2 {
		o := w.o
		o.SectorsPerCluster = spc
		g, err := computeGeometry(&o, w.fileSize)
		if err == nil && w.p.fits(g) == nil {
			return spc
		}
	}
	return 0
}

// needed returns the smallest image size in bytes that holds the tree with
// the same options but no size, and spc sectors per cluster when spc is
// not 0, or 0 when there is none.
func (w *writer) needed(spc int) int64 {
	o := w.o
	o.MaxSize, o.MinSize, o.Size, o.CreateSize, o.Sectors = 0, 0, 0, 0, 0
	if spc != 0 {
		o.SectorsPerCluster = spc
	}
	if o.Floppy != "" {
		return 0
	}
	w2 := &writer{o: o, p: w.p}
	g, err := w2.smallest(1)
	if err != nil {
		return 0
	}
	return o.Offset + int64(g.TotSec)*int64(g.BytesPerSec)
}

// try computes the geometry for a volume of n sectors and checks the fit.
// It reports whether n is large enough ("not too small") and the error, if
// any.
func (w *writer) try(n uint64) (g *geometry, bigEnough bool, err error) {
	bps := uint64(w.o.BytesPerSector)
	size := uint64(w.o.Offset) + n*bps
	g, err = computeGeometry(&w.o, int64(size))
	if err != nil {
		var pe *paramError
		if errors.As(err, &pe) && pe.small {
			return nil, false, err
		}
		return nil, true, err
	}
	if err := w.p.fits(g); err != nil {
		var fe *fitError
		if errors.As(err, &fe) && fe.small {
			return nil, false, err
		}
		return nil, true, err
	}
	return g, true, nil
}

// smallest finds the smallest volume of at least lo sectors that holds the
// tree. Within a range of sizes where the default cluster size does not
// change, a larger volume never holds less, so each range is searched by
// bisection, smallest range first.
func (w *writer) smallest(lo uint64) (*geometry, error) {
	const top = 0xffffffff
	bounds := []uint64{6000, 1 << 17, 1 << 19, 1 << 21, top}
	if w.o.SectorsPerCluster != 0 || w.o.BlockSize != 0 {
		bounds = []uint64{top}
	}
	a := uint64(1)
	var lastErr error
	for _, b := range bounds {
		start := max(a, lo)
		a = b + 1
		if start > b {
			continue
		}
		_, ok, err := w.try(b)
		if !ok {
			lastErr = err
			continue
		}
		if err != nil {
			// A failure no size cures (bad option, full root).
			if _, ok2, err2 := w.try(start); ok2 && err2 != nil {
				return nil, err2
			}
		}
		l, h := start, b
		for l < h {
			m := l + (h-l)/2
			if _, ok, _ := w.try(m); ok {
				h = m
			} else {
				l = m + 1
			}
		}
		g, _, err := w.try(l)
		if err != nil {
			return nil, err
		}
		return g, nil
	}
	if lastErr == nil {
		lastErr = fmt.Errorf("%w: no FAT volume holds the tree", ErrNoSpace)
	}
	return nil, lastErr
}

// write puts every byte of the volume into the image.
func (w *writer) write(im *bcache.Image) error {
	if err := w.writeReserved(im); err != nil {
		return err
	}
	if err := w.writeFATs(im); err != nil {
		return err
	}
	for _, d := range w.p.dirs {
		if err := w.writeDir(im, d); err != nil {
			return err
		}
	}
	return w.writeFiles(im)
}

func (w *writer) sectorOff(lsn uint32) int64 {
	return w.o.Offset + int64(lsn)*int64(w.g.BytesPerSec)
}

// writeReserved writes the boot sector, its FAT32 backup and the FSInfo
// sectors (and bootstrap sectors), as newfs_msdos does.
func (w *writer) writeReserved(im *bcache.Image) error {
	g := w.g
	fat32 := g.FATType == 32
	bps := g.BytesPerSec
	bss := g.BootSectors
	hasBackup := fat32 && g.BkBootSec != 0xffff
	sector := make([]byte, bps)
	for lsn := uint32(0); lsn < g.RsvdSecCnt; lsn++ {
		x := lsn
		if len(w.o.bootstrap) > 0 && hasBackup && bss <= g.BkBootSec && x >= g.BkBootSec {
			x -= g.BkBootSec
		}
		clear(sector)
		wrote := false
		if len(w.o.bootstrap) > 0 && x < bss {
			copy(sector, w.o.bootstrap[int64(x)*int64(bps):][:bps])
			wrote = true
		}
		switch {
		case lsn == 0 || (hasBackup && lsn == g.BkBootSec):
			w.fillBootSector((*bootSector)(sector[:512]))
			wrote = true
		case fat32 && g.FSInfo != 0xffff && (lsn == g.FSInfo || (hasBackup && lsn == g.BkBootSec+g.FSInfo)):
			f := (*fsInfoSector)(sector[:512])
			le.PutUint32(f.leadSig(), fsiLeadSig)
			le.PutUint32(f.strucSig(), fsiStrucSig)
			// newfs_msdos leaves both counts unknown, and makefs's
			// msdosfs, finding the next free cluster unknown, never
			// updates the sector.
			le.PutUint32(f.freeCount(), fsiUnknown)
			le.PutUint32(f.nxtFree(), fsiUnknown)
			le.PutUint32(f.trailSig(), fsiTrailSig)
			wrote = true
		}
		if wrote {
			if _, err := im.WriteAt(sector, w.sectorOff(lsn)); err != nil {
				return err
			}
		}
	}
	return nil
}

// bootCode is the x86 stub newfs_msdos puts after the extended BPB of a
// volume made without -o bootstrap: it prints the message that follows it
// and reboots on a key press.
var bootCode = append([]byte{
	0xfa, 0x31, 0xc0, 0x8e, 0xd0, 0xbc, 0x00, 0x7c, 0xfb, 0x8e, 0xd8, 0xe8, 0x00, 0x00,
	0x5e, 0x83, 0xc6, 0x19, 0xbb, 0x07, 0x00, 0xfc, 0xac, 0x84, 0xc0, 0x74, 0x06, 0xb4,
	0x0e, 0xcd, 0x10, 0xeb, 0xf5, 0x30, 0xe4, 0xcd, 0x16, 0xcd, 0x19,
}, "\r\nNon-system disk\r\nPress any key to reboot\r\n\x00"...)

// fillBootSector writes the BPB and extended boot record into b, over
// whatever bootstrap bytes it holds.
func (w *writer) fillBootSector(b *bootSector) {
	g := w.g
	fat32 := g.FATType == 32
	le.PutUint16(b.bytsPerSec(), uint16(g.BytesPerSec))
	b.secPerClus()[0] = uint8(g.SecPerClus)
	le.PutUint16(b.rsvdSecCnt(), uint16(g.RsvdSecCnt))
	b.numFATs()[0] = uint8(g.NumFATs)
	le.PutUint16(b.rootEntCnt(), uint16(g.RootEntCnt))
	if g.TotSec <= 0xffff {
		le.PutUint16(b.totSec16(), uint16(g.TotSec))
		le.PutUint32(b.totSec32(), 0)
	} else {
		le.PutUint16(b.totSec16(), 0)
		le.PutUint32(b.totSec32(), g.TotSec)
	}
	b.media()[0] = g.Media
	if fat32 {
		le.PutUint16(b.fatSz16(), 0)
	} else {
		le.PutUint16(b.fatSz16(), uint16(g.FATSz))
	}
	le.PutUint16(b.secPerTrk(), uint16(g.SecPerTrk))
	le.PutUint16(b.numHeads(), uint16(g.NumHeads))
	le.PutUint32(b.hiddSec(), g.HiddSec)
	if fat32 {
		le.PutUint32(b.fatSz32(), g.FATSz)
		le.PutUint16(b.extFlags(), 0)
		le.PutUint16(b.fsVer(), 0)
		le.PutUint32(b.rootClus(), g.RootClus)
		le.PutUint16(b.fsInfo(), uint16(g.FSInfo))
		le.PutUint16(b.bkBootSec(), uint16(g.BkBootSec))
	}
	// BPB_Reserved, BS_DrvNum and BS_Reserved1 keep the bootstrap's
	// bytes (zero without one), as newfs_msdos leaves them.
	b.bootSig(fat32)[0] = extBootSig
	le.PutUint32(b.volID(fat32), w.volID)
	copy(b.volLab(fat32), labelBytes(w.o.VolumeLabel))
	typ := fmt.Sprintf("FAT%-5d", g.FATType)
	copy(b.filSysType(fat32), typ)
	if len(w.o.bootstrap) == 0 {
		x := bootCodeOffset(fat32)
		b.jmpBoot()[0] = 0xeb
		b.jmpBoot()[1] = byte(x - 2)
		b.jmpBoot()[2] = 0x90
		oem := "BSD4.4  "
		if w.o.OEMString != nil {
			oem = *w.o.OEMString
		}
		copy(b.oemName(), fmt.Sprintf("%-8s", oem))
		copy(b[x:], bootCode)
		le.PutUint16(b.signature(), bootSig)
	}
}

// labelBytes is the 11-byte volume label as newfs_msdos writes it:
// upper-cased, padded with blanks, "NO NAME" when none is given.
func labelBytes(label string) []byte {
	if label == "" {
		label = "NO NAME"
	}
	b := []byte(fmt.Sprintf("%-11s", label))[:11]
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	if b[0] == slotDeleted {
		b[0] = slotE5
	}
	return b
}

// writeFATs writes every FAT copy, a window of entries at a time, from the
// extents the allocation made.
func (w *writer) writeFATs(im *bcache.Image) error {
	g := w.g
	links := w.chainLinks()
	end := w.p.nextFree // entries [0, end) are written
	const window = 1 << 15
	buf := make([]byte, fatBytes(g.FATType, window))
	li := 0
	for c0 := uint32(0); c0 < end; c0 += window {
		c1 := min(end, c0+window)
		li = fillFATWindow(buf, g, links, li, c0, c1)
		nbytes := fatBytes(g.FATType, int64(c1-c0))
		boff := fatBytes(g.FATType, int64(c0))
		for i := uint32(0); i < g.NumFATs; i++ {
			off := w.o.Offset + g.fatStart() + int64(i)*int64(g.FATSz)*int64(g.BytesPerSec) + boff
			if _, err := im.WriteAt(buf[:nbytes], off); err != nil {
				return err
			}
		}
	}
	return nil
}

// fatLink is one extent of a cluster chain and where the chain goes after
// it.
type fatLink struct {
	e    extent
	next uint32 // cluster after the extent's last, or 0 for end of chain
}

// chainLinks returns the extents of every directory's and file's chain,
// sorted by first cluster.
func (w *writer) chainLinks() []fatLink {
	var links []fatLink
	addChain := func(ext []extent) {
		for i, e := range ext {
			var nx uint32
			if i+1 < len(ext) {
				nx = ext[i+1].start
			}
			links = append(links, fatLink{e, nx})
		}
	}
	for _, d := range w.p.dirs {
		addChain(d.ext)
	}
	for _, f := range w.p.files {
		addChain(f.ext)
	}
	sort.Slice(links, func(i, j int) bool { return links[i].e.start < links[j].e.start })
	return links
}

// fillFATWindow fills buf with the FAT entries of clusters [c0, c1): the
// two reserved ones in the first window, then the chains of links from
// links[li] on. It returns the index of the first link not finished in
// the window.
func fillFATWindow(buf []byte, g *geometry, links []fatLink, li int, c0, c1 uint32) int {
	mark := eoc(g.FATType)
	clear(buf)
	set := func(n, v uint32) { setFATEntry(buf, g.FATType, n-c0, v) }
	if c0 == 0 {
		set(0, mark&^0xff|uint32(g.Media)) // FAT[0]: the media byte
		set(1, mark)                       // FAT[1]: end of chain
	}
	for li < len(links) && links[li].e.start < c1 {
		l := links[li]
		last := l.e.start + l.e.n - 1
		for n := max(l.e.start, c0); n <= last && n < c1; n++ {
			if n < last {
				set(n, n+1)
			} else if l.next != 0 {
				set(n, l.next)
			} else {
				set(n, mark)
			}
		}
		if last >= c1 {
			break // continues in the next window
		}
		li++
	}
	return li
}

// volumeTime returns the time of the volume label entry: Options.Timestamp
// when set (with ClampTimes, the root directory's time bounded by it), else
// the root directory's time.
func (w *writer) volumeTime() time.Time {
	t := w.p.root.node.Mtime
	if ts := w.o.Timestamp; !ts.IsZero() && (!w.o.ClampTimes || t.After(ts)) {
		return ts
	}
	return t
}

// timeVolumeID is the volume id newfs_msdos derives from the time t (as
// makefs -T gives it, with no microseconds): the month, day and second in
// the high half, the year, hour and minute in the low half.
func timeVolumeID(t time.Time) uint32 {
	t = t.UTC()
	hi := (uint32(t.Month())<<8 | uint32(t.Day())) + uint32(t.Second())<<8
	lo := uint32(t.Year()) + (uint32(t.Hour())<<8 | uint32(t.Minute()))
	return hi<<16 | lo
}

// putEntry fills a short entry for a file or directory. Every time is the
// node's modification time, which follows Options.Timestamp already (the
// entry points apply it to the tree). The access date is not taken from
// the source's access time: building an image reads every file, which
// moves access times forward (relatime), so the next build would differ.
func (w *writer) putEntry(d *dirEntry, name []byte, attr byte, n *fstree.Node, cluster uint32, size uint32) {
	mt := n.Mtime
	copy(d.name(), name)
	d.attr()[0] = attr
	d.ntRes()[0] = 0
	cd, ct, _ := dosTime(mt)
	d.crtTimeTenth()[0] = 0 // as makefs, which has no finer creation time
	le.PutUint16(d.crtTime(), ct)
	le.PutUint16(d.crtDate(), cd)
	le.PutUint16(d.lstAccDate(), cd)
	if w.g.FATType == 32 {
		le.PutUint16(d.fstClusHI(), uint16(cluster>>16))
	} else {
		le.PutUint16(d.fstClusHI(), 0)
	}
	le.PutUint16(d.wrtTime(), ct)
	le.PutUint16(d.wrtDate(), cd)
	le.PutUint16(d.fstClusLO(), uint16(cluster))
	le.PutUint32(d.fileSize(), size)
}

var (
	dotName    = []byte(".          ")
	dotDotName = []byte("..         ")
)

// dirBytes builds the contents of directory d.
func (w *writer) dirBytes(d *pdir, size int64) []byte {
	buf := make([]byte, size)
	pos := 0
	next := func() []byte {
		b := buf[pos : pos+dirEntrySize]
		pos += dirEntrySize
		return b
	}
	if d.parent == nil {
		if w.o.VolumeLabel != "" {
			e := (*dirEntry)(next())
			copy(e.name(), labelBytes(w.o.VolumeLabel))
			e.attr()[0] = AttrVolumeID | AttrArchive
			dd, dt, _ := dosTime(w.volumeTime())
			le.PutUint16(e.wrtTime(), dt)
			le.PutUint16(e.wrtDate(), dd)
		}
	} else {
		w.putEntry((*dirEntry)(next()), dotName, AttrDirectory, d.node, d.firstCluster(), 0)
		parent := d.parent.firstCluster()
		if d.parent.parent == nil {
			parent = 0
		}
		w.putEntry((*dirEntry)(next()), dotDotName, AttrDirectory, d.node, parent, 0)
	}
	for _, e := range d.entries {
		if e.long != nil {
			k := longSlots(len(e.long))
			putLongEntries(buf[pos:pos+k*dirEntrySize], e.long, shortNameChecksum(e.short[:]))
			pos += k * dirEntrySize
		}
		de := (*dirEntry)(next())
		if e.dir != nil {
			w.putEntry(de, e.short[:], AttrDirectory, e.node, e.dir.firstCluster(), 0)
		} else {
			attr := byte(AttrArchive)
			if e.node.Mode&0o200 == 0 {
				attr |= AttrReadOnly
			}
			var first uint32
			if len(e.ext) > 0 {
				first = e.ext[0].start
			}
			w.putEntry(de, e.short[:], attr, e.node, first, uint32(e.node.Size))
		}
	}
	return buf
}

func (w *writer) clusterOff(c uint32) int64 {
	return w.o.Offset + w.g.dataStart() + int64(c-reservedFATEnts)*w.g.clusterBytes()
}

// writeDir writes directory d to its clusters (or the FAT12/16 root area).
func (w *writer) writeDir(im *bcache.Image, d *pdir) error {
	cb := w.g.clusterBytes()
	if len(d.ext) == 0 {
		buf := w.dirBytes(d, int64(w.g.RootEntCnt)*dirEntrySize)
		_, err := im.WriteAt(buf, w.o.Offset+w.g.rootStart())
		return err
	}
	var n int64
	for _, x := range d.ext {
		n += int64(x.n)
	}
	buf := w.dirBytes(d, n*cb)
	for _, x := range d.ext {
		part := buf[:int64(x.n)*cb]
		buf = buf[len(part):]
		if _, err := im.WriteAt(part, w.clusterOff(x.start)); err != nil {
			return err
		}
	}
	return nil
}

// writeFiles copies every file's contents into its clusters, as one batch
// of the block cache (which may copy several files at once; the bytes do
// not depend on it, each file having its own clusters).
func (w *writer) writeFiles(im *bcache.Image) error {
	batch := make([]bcache.FileCopy, 0, len(w.p.files))
	owner := make([]int, 0, len(w.p.files)) // index in w.p.files of batch[i]
	cb := w.g.clusterBytes()
	for i, e := range w.p.files {
		n := e.node
		if n.ZeroFilled() {
			// A file an mtree spec makes without contents: a hole
			// where the image is fresh, nothing read or written.
			if err := im.ZeroRange(w.clusterOff(e.ext[0].start), n.Size); err != nil {
				return fmt.Errorf("msdos: %s: %w", e.path, err)
			}
			continue
		}
		// The slack of the last cluster is the file's and zero: the
		// cache may write it, to copy files that follow each other in
		// one write.
		pad := (cb - n.Size%cb) % cb
		fc := bcache.FileCopy{Off: w.clusterOff(e.ext[0].start), N: n.Size, Pad: pad, Path: n.SourcePath}
		if n.SourcePath == "" {
			fc.Open = func() (io.ReadCloser, error) { return n.Open() }
		}
		batch, owner = append(batch, fc), append(owner, i)
	}
	if i, err := im.CopyFiles(batch); err != nil {
		if i < 0 {
			return err
		}
		return fmt.Errorf("msdos: %s: %w", w.p.files[owner[i]].path, err)
	}
	return nil
}
