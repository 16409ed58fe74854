package ffs

import (
	"encoding/binary"
	"fmt"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// warnLayout says what makefs says of the geometry, and where the image
// departs from FreeBSD's makefs because its layout would be invalid.
func (w *writer) warnLayout() {
	g := w.g
	if g.sectorSize != 512 && w.opts.Compat != CompatDebian {
		w.warnf("sectorsize %d may produce nonfunctional image", g.sectorSize)
	}
	if w.opts.SoftUpdates && g.version == 1 && w.opts.Compat != CompatDebian {
		w.warnf("softupdates ignored: FreeBSD's makefs marks soft updates in UFS2 only")
	}
	if g.extentReduced != 0 {
		msg := ""
		if w.opts.Compat != CompatDebian {
			msg = fmt.Sprintf("; FreeBSD's makefs writes fs_maxbsize %d, past the FS_MAXCONTIG blocks FreeBSD's superblock check allows", g.extentReduced)
		}
		w.warnf("extent size reduced from %d to %d%s", g.extentReduced, g.maxbsize, msg)
	}
	if g.raisedDensity != 0 {
		w.warnf("density increased from %d to %d", g.raisedDensity, g.origDensity)
	}
	if g.density != g.origDensity {
		w.warnf("density reduced from %d to %d", g.origDensity, g.density)
	}
	w.t.Walk(func(_ string, n *fstree.Node) error {
		if n != w.t.Root && w.skip(n) {
			w.warnf("%s: socket left out, as makefs leaves sockets out", n.Path())
		}
		return nil
	})
	if w.clusterSumFixed() {
		w.warnf("cg_clustersum written big-endian; FreeBSD's makefs leaves it little-endian in a big-endian UFS2 image, which is invalid")
	}
}

// clusterSumFixed reports whether the image departs from FreeBSD's makefs
// in cg_clustersum: in a big-endian UFS2 image its ffs_cg_swap leaves the
// cluster summary in the host's byte order (and ffs_clusteracct then
// adds to it as if it were swapped); the writer stores it big-endian.
func (w *writer) clusterSumFixed() bool {
	return w.opts.Compat != CompatDebian && w.g.version == 2 && w.g.contigsumsize > 0 &&
		w.o.ByteOrder == binary.BigEndian
}

// writeMeta writes the cylinder groups, the summary area and every copy of
// the superblock (ffs_write_superblock).
func (w *writer) writeMeta() error {
	g, a := w.g, w.a
	cs := summaryWriter{w: w, buf: make([]byte, min(g.cssize, summaryChunk))}
	for c := int64(0); c < g.ncg; c++ {
		cg := a.view(c)
		if err := w.writeAt(cg, g.cgtod(c)*g.fsize); err != nil {
			return err
		}
		if err := cs.add(cg.cgCs()); err != nil {
			return err
		}
	}
	if err := cs.finish(); err != nil {
		return err
	}
	sb := w.superblock()
	if err := w.writeAt(sb[:], g.sblockloc); err != nil {
		return err
	}
	for c := int64(0); c < g.ncg; c++ {
		if err := w.writeAt(sb[:], g.cgsblock(c)*g.fsize); err != nil {
			return err
		}
	}
	return nil
}

// superblock encodes struct fs as makefs leaves it at the end.
func (w *writer) superblock() *superblock {
	g, o := w.g, w.o
	s := new(superblock)
	v1 := g.version == 1
	w.superblockGeometry(s)
	if v1 {
		w.superblockUFS1(s)
	}
	w.superblockTotals(s)
	s.fsClean()[0] = fsIsClean
	s.fsOldFlags()[0] = fsFlagsUpdated
	copy(s.fsVolname(), w.opts.Label)
	o.put32(s.fsMaxbsize(), g.maxbsize)
	o.put64(s.fsSblockloc(), g.sblockloc)
	o.put64(s.fsTime(), w.utime)
	o.put64(s.fsSize(), g.size)
	o.put64(s.fsDsize(), g.dsize)
	o.put64(s.fsCsaddr(), g.csaddr)
	o.put32(s.fsAvgfilesize(), g.avgfilesize)
	o.put32(s.fsAvgfpdir(), g.avgfpdir)
	// FreeBSD's mkfs sets FS_DOSOFTDEP for UFS2 only.
	if w.opts.SoftUpdates && (!v1 || w.opts.Compat == CompatDebian) {
		o.put32(s.fsFlags(), fsDoSoftDep)
	}
	if w.opts.Compat != CompatDebian {
		// FreeBSD's mkfs sets fs_providersize to fs_size, and its
		// ffs_sb_swap leaves it out: it is in the byte order of the host
		// that made the image, little-endian on the hosts makefs runs on.
		binary.LittleEndian.PutUint64(s.fsProvidersize(), uint64(g.size))
	}
	o.put32(s.fsContigsumsize(), g.contigsumsize)
	o.put32(s.fsMaxsymlinklen(), g.maxsymlinklen)
	o.put32(s.fsOldInodefmt(), fs44InodeFmt)
	o.put64(s.fsMaxfilesize(), g.maxfilesize)
	o.put64(s.fsQbmask(), g.bsize-1)
	o.put64(s.fsQfmask(), g.fsize-1)
	o.put32(s.fsMagic(), map[bool]int64{true: fsUFS1Magic, false: fsUFS2Magic}[v1])
	return s
}

// superblockGeometry sets the fields of s from fs_sblkno to fs_fpg: the
// layout, the block and fragment sizes and the ids.
func (w *writer) superblockGeometry(s *superblock) {
	g, o := w.g, w.o
	o.put32(s.fsSblkno(), g.sblkno)
	o.put32(s.fsCblkno(), g.cblkno)
	o.put32(s.fsIblkno(), g.iblkno)
	o.put32(s.fsDblkno(), g.dblkno)
	o.put32(s.fsNcg(), g.ncg)
	o.put32(s.fsBsize(), g.bsize)
	o.put32(s.fsFsize(), g.fsize)
	o.put32(s.fsFrag(), g.frag)
	o.put32(s.fsMinfree(), g.minfree)
	o.put32(s.fsBmask(), ^(g.bsize - 1))
	o.put32(s.fsFmask(), ^(g.fsize - 1))
	o.put32(s.fsBshift(), g.bshift)
	o.put32(s.fsFshift(), g.fshift)
	o.put32(s.fsMaxcontig(), g.sbMaxcontig)
	o.put32(s.fsMaxbpg(), g.maxbpg)
	o.put32(s.fsFragshift(), g.fragshift)
	o.put32(s.fsFsbtodb(), g.fsbtodb)
	o.put32(s.fsSbsize(), min(g.fragroundup(sbStructSz), sblockSize))
	o.put32(s.fsNindir(), g.nindir)
	o.put32(s.fsInopb(), g.inopb)
	o.put32(s.fsOptim(), g.optim)
	o.put32(s.fsID0(), w.utime)
	if w.opts.Compat == CompatDebian {
		o.put32(s.fsID1(), w.fsID1())
	} else {
		o.put32(s.fsID1(), w.id1)
	}
	o.put32(s.fsCssize(), g.cssize)
	o.put32(s.fsCgsize(), g.cgsize)
	o.put32(s.fsIpg(), g.ipg)
	o.put32(s.fsFpg(), g.fpg)
}

// superblockUFS1 sets the fields of s that only UFS1 uses: the old time,
// sizes and csum address, and the disk geometry FreeBSD's mkfs derives.
func (w *writer) superblockUFS1(s *superblock) {
	g, o := w.g, w.o
	spc := g.fpg * g.oldNspf
	o.put32(s.fsOldCgmask(), -1)
	o.put32(s.fsOldTime(), w.utime)
	o.put32(s.fsOldSize(), g.size)
	o.put32(s.fsOldDsize(), g.dsize)
	o.put32(s.fsOldRps(), 60)
	o.put32(s.fsOldNspf(), g.oldNspf)
	o.put32(s.fsOldNpsect(), spc)
	o.put32(s.fsOldInterleave(), 1)
	o.put32(s.fsOldCsaddr(), g.csaddr)
	o.put32(s.fsOldNsect(), spc)
	o.put32(s.fsOldSpc(), spc)
	o.put32(s.fsOldNcyl(), g.ncg)
	o.put32(s.fsOldCpg(), g.oldCpg)
	o.put32(s.fsOldPostblformat(), fsDynPostblFmt)
	o.put32(s.fsOldNrpos(), 1)
}

// superblockTotals sets fs_old_cstotal and fs_cstotal of s to the
// summary of every group.
func (w *writer) superblockTotals(s *superblock) {
	a, o := w.a, w.o
	oc := s.fsOldCstotal()
	o.put32(oc[0:], a.total.ndir)
	o.put32(oc[4:], a.total.nbfree)
	o.put32(oc[8:], a.total.nifree)
	o.put32(oc[12:], a.total.nffree)
	ct := s.fsCstotal()
	o.put64(ct[0:], a.total.ndir)
	o.put64(ct[8:], a.total.nbfree)
	o.put64(ct[16:], a.total.nifree)
	o.put64(ct[24:], a.total.nffree)
}
