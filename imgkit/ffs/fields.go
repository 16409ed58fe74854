package ffs

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// This file is the package's side of the format contract of
// imgkit/inspect/describe:
// Match recognises an FFS image, Fields describes one field by field, for
// tools that explain how two images differ (imgkit/inspect, "fixturegen
// diff"), and Describe puts them together. Fields are named as FreeBSD's
// sys/ufs/ffs/fs.h and sys/ufs/ufs/dinode.h name them: "fs_minfree" of
// struct fs, "cg_time" of struct cg, "di_mtime" of struct ufs1_dinode or
// ufs2_dinode; what the headers do not name is said in words ("data",
// "symlink target", "superblock copy", "maps"). A Field's Path is
// "superblock", "cylinder group 3", or the path of a file or directory
// ("/", "/a/b.txt").

// matchSblocks are the superblock offsets Match looks at: SBLOCK_UFS1 (UFS1,
// and UFS2 as NetBSD's makefs places it) and SBLOCK_UFS2.
var matchSblocks = []int{sblockUFS1, sblockUFS2}

// byteOrders are the byte orders an image may have (makefs -B).
var byteOrders = [...]order{{binary.LittleEndian}, {binary.BigEndian}}

// fsMagicOff is the offset of fs_magic in struct fs.
var fsMagicOff = func() int {
	var s superblock
	return int(fieldOff(s[:], s.fsMagic()))
}()

// Match reports whether head, the first bytes of a file, holds a UFS1 or
// UFS2 superblock, in either byte order, at byte 8192 or 65536: whether
// fs_magic there is FS_UFS1_MAGIC or FS_UFS2_MAGIC. (NewReader looks at bytes 0
// and 262144 too, as FreeBSD does; images are not made so.)
func Match(head []byte) bool {
	for _, sb := range matchSblocks {
		if len(head) < sb+fsMagicOff+4 {
			continue
		}
		b := head[sb+fsMagicOff:][:4]
		for _, o := range byteOrders {
			if m := o.u32(b); m == fsUFS1Magic || m == fsUFS2Magic {
				return true
			}
		}
	}
	return false
}

// Describe returns the format contract of FFS images, for imgkit/inspect's
// registry: Match, NewReader, Fields, a summary ("UFS1, 32768/4096
// block/fragment") and the inode number of each file as the listing's
// column.
func Describe() describe.Kind {
	return describe.Kind{
		Name:    "ffs",
		Match:   Match,
		Open:    describe.OpenAs(NewReader),
		Fields:  Fields,
		Summary: describe.SummaryOf(summary),
		Column:  describe.ColumnOf(inodeColumn),
		Owner:   describe.OwnerOf(inodeOwner),
	}
}

// summary says the UFS version, block and fragment size of an image NewReader
// returned.
func summary(f *FS) string {
	return "UFS" + strconv.Itoa(f.Version()) + ", " + strconv.Itoa(f.BlockSize()) + "/" + strconv.Itoa(f.FragSize()) + " block/fragment"
}

// inodeColumn returns "ino N" for a file of the FS.
func inodeColumn(in *Inode) string { return "ino " + strconv.FormatUint(uint64(in.Ino), 10) }

// inodeOwner returns an inode's di_uid and di_gid; every inode has them.
func inodeOwner(in *Inode) (uid, gid uint32, ok bool) { return in.UID, in.GID, true }

// Kinds of value formatting for a fixed field.
const (
	fmtDec  = iota // signed decimal
	fmtUns         // unsigned decimal
	fmtHex         // hexadecimal
	fmtTime        // seconds since the epoch, shown as a UTC time too
	fmtStr         // NUL-padded string, quoted
	fmtHash        // bytes, shown as a hash
	fmtMode        // di_mode: octal, with the file type in words
)

// sbField names one field of struct fs.
type sbField struct {
	name string
	get  func(*superblock) []byte
	kind int
}

// superblockFields lists the fields of struct fs that format.go knows, in
// the order of fs.h.
var superblockFields = []sbField{
	{"fs_firstfield", (*superblock).fsFirstfield, fmtDec},
	{"fs_unused_1", (*superblock).fsUnused1, fmtDec},
	{"fs_sblkno", (*superblock).fsSblkno, fmtDec},
	{"fs_cblkno", (*superblock).fsCblkno, fmtDec},
	{"fs_iblkno", (*superblock).fsIblkno, fmtDec},
	{"fs_dblkno", (*superblock).fsDblkno, fmtDec},
	{"fs_old_cgoffset", (*superblock).fsOldCgoffset, fmtDec},
	{"fs_old_cgmask", (*superblock).fsOldCgmask, fmtHex},
	{"fs_old_time", (*superblock).fsOldTime, fmtTime},
	{"fs_old_size", (*superblock).fsOldSize, fmtDec},
	{"fs_old_dsize", (*superblock).fsOldDsize, fmtDec},
	{"fs_ncg", (*superblock).fsNcg, fmtUns},
	{"fs_bsize", (*superblock).fsBsize, fmtDec},
	{"fs_fsize", (*superblock).fsFsize, fmtDec},
	{"fs_frag", (*superblock).fsFrag, fmtDec},
	{"fs_minfree", (*superblock).fsMinfree, fmtDec},
	{"fs_old_rotdelay", (*superblock).fsOldRotdelay, fmtDec},
	{"fs_old_rps", (*superblock).fsOldRps, fmtDec},
	{"fs_bmask", (*superblock).fsBmask, fmtHex},
	{"fs_fmask", (*superblock).fsFmask, fmtHex},
	{"fs_bshift", (*superblock).fsBshift, fmtDec},
	{"fs_fshift", (*superblock).fsFshift, fmtDec},
	{"fs_maxcontig", (*superblock).fsMaxcontig, fmtDec},
	{"fs_maxbpg", (*superblock).fsMaxbpg, fmtDec},
	{"fs_fragshift", (*superblock).fsFragshift, fmtDec},
	{"fs_fsbtodb", (*superblock).fsFsbtodb, fmtDec},
	{"fs_sbsize", (*superblock).fsSbsize, fmtDec},
	{"fs_nindir", (*superblock).fsNindir, fmtDec},
	{"fs_inopb", (*superblock).fsInopb, fmtUns},
	{"fs_old_nspf", (*superblock).fsOldNspf, fmtDec},
	{"fs_optim", (*superblock).fsOptim, fmtDec},
	{"fs_old_npsect", (*superblock).fsOldNpsect, fmtDec},
	{"fs_old_interleave", (*superblock).fsOldInterleave, fmtDec},
	{"fs_old_trackskew", (*superblock).fsOldTrackskew, fmtDec},
	{"fs_id[0]", (*superblock).fsID0, fmtHex},
	{"fs_id[1]", (*superblock).fsID1, fmtHex},
	{"fs_old_csaddr", (*superblock).fsOldCsaddr, fmtDec},
	{"fs_cssize", (*superblock).fsCssize, fmtDec},
	{"fs_cgsize", (*superblock).fsCgsize, fmtDec},
	{"fs_old_nsect", (*superblock).fsOldNsect, fmtDec},
	{"fs_old_spc", (*superblock).fsOldSpc, fmtDec},
	{"fs_old_ncyl", (*superblock).fsOldNcyl, fmtDec},
	{"fs_old_cpg", (*superblock).fsOldCpg, fmtDec},
	{"fs_ipg", (*superblock).fsIpg, fmtUns},
	{"fs_fpg", (*superblock).fsFpg, fmtDec},
	{"fs_fmod", (*superblock).fsFmod, fmtDec},
	{"fs_clean", (*superblock).fsClean, fmtDec},
	{"fs_ronly", (*superblock).fsRonly, fmtDec},
	{"fs_old_flags", (*superblock).fsOldFlags, fmtHex},
	{"fs_fsmnt", (*superblock).fsFsmnt, fmtStr},
	{"fs_volname", (*superblock).fsVolname, fmtStr},
	{"fs_swuid", (*superblock).fsSwuid, fmtHex},
	{"fs_cgrotor", (*superblock).fsCgrotor, fmtDec},
	{"fs_ocsp..fs_active", (*superblock).fsPointers, fmtHash},
	{"fs_csp", (*superblock).fsCsp, fmtHex},
	{"fs_maxcluster", (*superblock).fsMaxcluster, fmtHex},
	{"fs_old_cpc", (*superblock).fsOldCpc, fmtDec},
	{"fs_maxbsize", (*superblock).fsMaxbsize, fmtDec},
	{"fs_providersize", (*superblock).fsProvidersize, fmtDec},
	{"fs_sblockloc", (*superblock).fsSblockloc, fmtDec},
	{"fs_time", (*superblock).fsTime, fmtTime},
	{"fs_size", (*superblock).fsSize, fmtDec},
	{"fs_dsize", (*superblock).fsDsize, fmtDec},
	{"fs_csaddr", (*superblock).fsCsaddr, fmtDec},
	{"fs_pendingblocks", (*superblock).fsPendingblocks, fmtDec},
	{"fs_pendinginodes", (*superblock).fsPendinginodes, fmtUns},
	{"fs_avgfilesize", (*superblock).fsAvgfilesize, fmtUns},
	{"fs_avgfpdir", (*superblock).fsAvgfpdir, fmtUns},
	{"fs_flags", (*superblock).fsFlags, fmtHex},
	{"fs_contigsumsize", (*superblock).fsContigsumsize, fmtDec},
	{"fs_maxsymlinklen", (*superblock).fsMaxsymlinklen, fmtDec},
	{"fs_old_inodefmt", (*superblock).fsOldInodefmt, fmtDec},
	{"fs_maxfilesize", (*superblock).fsMaxfilesize, fmtUns},
	{"fs_qbmask", (*superblock).fsQbmask, fmtHex},
	{"fs_qfmask", (*superblock).fsQfmask, fmtHex},
	{"fs_state", (*superblock).fsState, fmtDec},
	{"fs_old_postblformat", (*superblock).fsOldPostblformat, fmtDec},
	{"fs_old_nrpos", (*superblock).fsOldNrpos, fmtDec},
	{"fs_magic", (*superblock).fsMagic, fmtHex},
}

// csumNames are the fields of struct csum (4 bytes each) and the first five
// of struct csum_total (8 bytes each).
var csumNames = []string{"cs_ndir", "cs_nbfree", "cs_nifree", "cs_nffree", "cs_numclusters"}

// Fields describes the FFS image in r (size bytes): the superblock field
// by field, each cylinder group's header, its summary in the fs_csaddr
// area, its superblock copy and its maps, and for every file and directory
// (depth-first, entries in bytewise order of name) its inode field by
// field, its data as size and hash, its indirect blocks and, for a
// symbolic link, the target. Each (Path, Name) pair appears once.
func Fields(r io.ReaderAt, size int64) ([]describe.Field, error) {
	f, err := NewReader(r, size)
	if err != nil {
		return nil, err
	}
	d := &describer{f: f}
	d.superblock()
	if err := d.groups(); err != nil {
		return nil, err
	}
	if err := d.tree(); err != nil {
		return nil, err
	}
	if err := d.unusedInodes(); err != nil {
		return nil, err
	}
	return d.out, nil
}

// describer collects the fields of one image.
type describer struct {
	f   *FS
	out []describe.Field
	buf []byte // one block, for hashing

	used       map[uint32]bool // inodes the tree reaches
	initediblk []int64         // cg_initediblk (UFS2) or fs_ipg (UFS1) of each group
}

func (d *describer) add(p, name string, off int64, field []byte, kind int) {
	d.out = append(d.out, describe.Field{Path: p, Name: name, Offset: off, Size: int64(len(field)), Value: d.value(field, kind)})
}

// value formats field, in the image's byte order, as kind says.
func (d *describer) value(b []byte, kind int) string {
	o := d.f.o
	var u uint64
	var s int64
	switch len(b) {
	case 1:
		u, s = uint64(b[0]), int64(b[0])
	case 2:
		u = uint64(o.u16(b))
		s = int64(u)
	case 4:
		u, s = uint64(o.u32(b)), int64(o.i32(b))
	case 8:
		u, s = o.u64(b), o.i64(b)
	default:
		switch kind {
		case fmtStr:
			if i := slices.Index(b, 0); i >= 0 {
				b = b[:i]
			}
			return strconv.Quote(string(b))
		case fmtHash:
			return describe.Sum(b)
		}
		return hex.EncodeToString(b)
	}
	switch kind {
	case fmtUns:
		return strconv.FormatUint(u, 10)
	case fmtHex:
		return "0x" + strconv.FormatUint(u, 16)
	case fmtTime:
		return timeString(s)
	case fmtMode:
		return modeString(u)
	}
	return strconv.FormatInt(s, 10)
}

// timeString formats seconds since the epoch as "2006-01-02 15:04:05 UTC (n)".
func timeString(sec int64) string {
	return time.Unix(sec, 0).UTC().Format("2006-01-02 15:04:05") + " UTC (" + strconv.FormatInt(sec, 10) + ")"
}

var typeNames = map[uint64]string{ififo: "fifo", ifchr: "character device", ifdir: "directory", ifblk: "block device",
	ifreg: "regular file", iflnk: "symbolic link", ifsock: "socket"}

// modeString formats di_mode as "0100644 (regular file)".
func modeString(m uint64) string {
	t := typeNames[m&ifmt]
	if t == "" {
		t = "unknown type"
	}
	return "0" + strconv.FormatUint(m, 8) + " (" + t + ")"
}

// fieldOff returns the offset of field, a subslice of rec, within rec.
func fieldOff(rec, field []byte) int64 { return int64(cap(rec) - cap(field)) }

// superblock appends the fields of the superblock NewReader found.
func (d *describer) superblock() {
	s := &d.f.sb
	base := d.f.g.sblockloc
	for _, sf := range superblockFields {
		b := sf.get(s)
		d.add("superblock", sf.name, base+fieldOff(s[:], b), b, sf.kind)
	}
	old := s.fsOldCstotal()
	for i, n := range csumNames[:4] {
		b := old[4*i:][:4]
		d.add("superblock", "fs_old_cstotal."+n, base+fieldOff(s[:], b), b, fmtDec)
	}
	tot := s.fsCstotal()
	for i, n := range csumNames {
		b := tot[8*i:][:8]
		d.add("superblock", "fs_cstotal."+n, base+fieldOff(s[:], b), b, fmtDec)
	}
}

// groups appends, for each cylinder group, its header fields, its summary
// (fs_cs), the hash of its superblock copy and the hash of its maps.
func (d *describer) groups() error {
	f, g := d.f, &d.f.g
	cgsize, sbsize, csaddr, err := d.groupLayout()
	if err != nil {
		return err
	}
	cg := make(cylGroup, cgsize)
	cs := make([]byte, csumSize)
	sbCopy := make([]byte, sbsize)
	for c := int64(0); c < g.ncg; c++ {
		p := "cylinder group " + strconv.FormatInt(c, 10)
		off := g.cgtod(c) * g.fsize
		if err := f.readAt(cg, off); err != nil {
			return fmt.Errorf("ffs: reading cylinder group %d at byte %#x: %w", c, off, err)
		}
		d.groupHeader(p, off, cg)
		csOff := csaddr*g.fsize + c*csumSize
		if err := f.readAt(cs, csOff); err != nil {
			return fmt.Errorf("ffs: reading the summary of cylinder group %d at byte %#x: %w", c, csOff, err)
		}
		for i, n := range csumNames[:4] {
			d.add(p, "fs_cs("+strconv.FormatInt(c, 10)+")."+n, csOff+int64(4*i), cs[4*i:][:4], fmtDec)
		}
		sbOff := g.cgsblock(c) * g.fsize
		if sbOff == g.sblockloc {
			continue // the superblock itself (UFS1 in group 0 when fs_sblkno points at it)
		}
		if err := f.readAt(sbCopy, sbOff); err != nil {
			return fmt.Errorf("ffs: reading the superblock copy of cylinder group %d at byte %#x: %w", c, sbOff, err)
		}
		d.out = append(d.out, describe.Field{Path: p, Name: "superblock copy", Offset: sbOff, Size: sbsize, Value: describe.Sum(sbCopy)})
	}
	return nil
}

// groupLayout checks and returns fs_cgsize, fs_sbsize and fs_csaddr, and
// checks that the cylinder groups fit the image.
func (d *describer) groupLayout() (cgsize, sbsize, csaddr int64, err error) {
	f, g, o := d.f, &d.f.g, d.f.o
	cgsize = int64(o.i32(f.sb.fsCgsize()))
	if cgsize < cgStructSz || cgsize > g.bsize {
		return 0, 0, 0, f.badSuperblock(g.sblockloc, "fs_cgsize", f.sb.fsCgsize(), cgsize)
	}
	sbsize = int64(o.i32(f.sb.fsSbsize()))
	if sbsize < sbStructSz || sbsize > sblockSize {
		return 0, 0, 0, f.badSuperblock(g.sblockloc, "fs_sbsize", f.sb.fsSbsize(), sbsize)
	}
	csaddr, csName, csAt := int64(o.i32(f.sb.fsOldCsaddr())), "fs_old_csaddr", f.sb.fsOldCsaddr()
	if g.version == 2 {
		csaddr, csName, csAt = o.i64(f.sb.fsCsaddr()), "fs_csaddr", f.sb.fsCsaddr()
	}
	if csaddr < 0 || csaddr >= g.size || (csaddr*g.fsize+g.ncg*csumSize) > f.size {
		return 0, 0, 0, f.badSuperblock(g.sblockloc, csName, csAt, csaddr)
	}
	if g.ncg*g.fpg > g.size+g.fpg || (g.ncg-1)*g.fpg*g.fsize >= f.size {
		return 0, 0, 0, formatErr(g.sblockloc+fieldOff(f.sb[:], f.sb.fsNcg()), "fs_ncg", "superblock at byte %#x: %d cylinder groups do not fit the image", g.sblockloc, g.ncg)
	}
	return cgsize, sbsize, csaddr, nil
}

// groupHeader appends the header fields of the cylinder group cg, read at
// byte off, and the hash of its maps, and records how many of its inodes
// are initialised.
func (d *describer) groupHeader(p string, off int64, cg cylGroup) {
	g, o := &d.f.g, d.f.o
	num := func(name string, b []byte, kind int) { d.add(p, name, off+fieldOff(cg, b), b, kind) }
	num("cg_magic", cg.cgMagic(), fmtHex)
	num("cg_old_time", cg.cgOldTime(), fmtTime)
	num("cg_cgx", cg.cgCgx(), fmtUns)
	num("cg_old_ncyl", cg.cgOldNcyl(), fmtDec)
	num("cg_old_niblk", cg.cgOldNiblk(), fmtDec)
	num("cg_ndblk", cg.cgNdblk(), fmtUns)
	for i, n := range csumNames[:4] {
		num("cg_cs."+n, cg.cgCs()[4*i:][:4], fmtDec)
	}
	num("cg_rotor", cg.cgRotor(), fmtUns)
	num("cg_frotor", cg.cgFrotor(), fmtUns)
	num("cg_irotor", cg.cgIrotor(), fmtUns)
	for i := 0; i < maxFrag; i++ {
		num("cg_frsum["+strconv.Itoa(i)+"]", cg.cgFrsum(i), fmtDec)
	}
	num("cg_old_btotoff", cg.cgOldBtotoff(), fmtDec)
	num("cg_old_boff", cg.cgOldBoff(), fmtDec)
	num("cg_iusedoff", cg.cgIusedoff(), fmtUns)
	num("cg_freeoff", cg.cgFreeoff(), fmtUns)
	num("cg_nextfreeoff", cg.cgNextfreeoff(), fmtUns)
	num("cg_clustersumoff", cg.cgClustersumoff(), fmtUns)
	num("cg_clusteroff", cg.cgClusteroff(), fmtUns)
	num("cg_nclusterblks", cg.cgNclusterblks(), fmtUns)
	num("cg_niblk", cg.cgNiblk(), fmtUns)
	num("cg_initediblk", cg.cgInitediblk(), fmtUns)
	num("cg_time", cg.cgTime(), fmtTime)
	inited := g.ipg
	if g.version == 2 {
		inited = min(int64(o.u32(cg.cgInitediblk())), g.ipg)
	}
	d.initediblk = append(d.initediblk, inited)
	d.out = append(d.out, describe.Field{Path: p, Name: "maps", Offset: off + cgSpaceOff, Size: int64(len(cg)) - cgSpaceOff,
		Value: describe.Sum(cg[cgSpaceOff:])})
}

// tree appends the fields of every inode reachable from the root.
func (d *describer) tree() error {
	f := d.f
	d.buf = make([]byte, f.g.bsize)
	seen := map[uint32]bool{}
	d.used = map[uint32]bool{}
	var walk func(p string, ino uint32) error
	walk = func(p string, ino uint32) error {
		in, err := f.inode(int64(ino))
		if err != nil {
			return fmt.Errorf("ffs: %s: %w", p, err)
		}
		d.used[ino] = true
		if err := d.inode(p, in); err != nil {
			return fmt.Errorf("ffs: %s: %w", p, err)
		}
		if !in.IsDir() {
			return nil
		}
		if seen[ino] {
			return f.inodeErr(in, "", "%s: directory inode %d reached twice", p, ino)
		}
		seen[ino] = true
		if in.Size > f.size {
			return f.inodeErr(in, "di_size", "%s: directory inode %d larger than the image", p, ino)
		}
		ents, err := f.readDirInode(in)
		if err != nil {
			return fmt.Errorf("ffs: %s: %w", p, err)
		}
		slices.SortFunc(ents, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
		for _, e := range ents {
			if err := walk(strings.TrimSuffix(p, "/")+"/"+e.Name, e.Ino); err != nil {
				return err
			}
		}
		return nil
	}
	return walk("/", rootIno)
}

// unusedInodes appends, for each cylinder group, one spread field for the
// initialised inodes that no path reaches (inodes 0 and 1, free inodes):
// their di_gen is all that usually sets them apart.
func (d *describer) unusedInodes() error {
	f, g := d.f, &d.f.g
	ds := g.dinodeSize()
	blk := d.buf[:g.bsize]
	for c, inited := range d.initediblk {
		h := describe.NewHash()
		var spans [][2]int64
		for i := int64(0); i < inited; i += g.inopb {
			ino := int64(c)*g.ipg + i
			off := g.inoToFsba(ino) * g.fsize
			if err := f.readAt(blk, off); err != nil {
				return fmt.Errorf("ffs: reading inode block of cylinder group %d at byte %#x: %w", c, off, err)
			}
			for j := int64(0); j < g.inopb && i+j < inited; j++ {
				if d.used[uint32(ino+j)] {
					continue
				}
				h.Write(blk[j*ds : (j+1)*ds])
				spans = addSpan(spans, off+j*ds, ds)
			}
		}
		if len(spans) == 0 {
			continue
		}
		d.out = append(d.out, describe.Field{Path: "cylinder group " + strconv.Itoa(c), Name: "unused inodes", Offset: -1,
			Value: strconv.Itoa(len(spans)) + " runs, " + h.Sum(), Spans: spans})
	}
	return nil
}

// inode appends the fields of the inode in at path p.
func (d *describer) inode(p string, in *Inode) error {
	g := &d.f.g
	raw := in.raw
	off := g.inodeOff(int64(in.Ino))
	num := func(name string, b []byte, kind int) { d.add(p, name, off+fieldOff(raw, b), b, kind) }
	typ := in.Mode & ifmt
	var a inodeAddrs
	if g.version == 1 {
		a = dinode1Fields(num, (*dinode1)(raw))
	} else {
		a = dinode2Fields(num, (*dinode2)(raw))
	}
	switch {
	case typ == iflnk && in.Size < g.maxsymlinklen:
		if in.Size > int64(len(a.shortlink)) {
			return d.f.inodeErr(in, "di_size", "inode %d: bad symbolic link size", in.Ino)
		}
		d.out = append(d.out, describe.Field{Path: p, Name: "symlink target", Offset: off + fieldOff(raw, a.shortlink), Size: in.Size,
			Value: strconv.Quote(string(a.shortlink[:in.Size]))})
		return nil
	case typ == ifchr || typ == ifblk:
		num("di_rdev", a.rdev, fmtHex)
		return nil
	}
	d.addrList(p, "di_db", off+fieldOff(raw, a.db[0]), a.db)
	d.addrList(p, "di_ib", off+fieldOff(raw, a.ib[0]), a.ib)
	if typ != ifreg && typ != ifdir && typ != iflnk {
		return nil
	}
	return d.fileData(p, in, off)
}

// inodeAddrs are the fields of an inode that inode describes by its type,
// as dinode1Fields and dinode2Fields find them.
type inodeAddrs struct {
	rdev, shortlink []byte
	db, ib          [][]byte // di_db and di_ib, one address each
}

// An addressed inode is a UFS1 or UFS2 inode: the fields inodeAddrs holds.
type addressed interface {
	diRdev() []byte
	diShortlink() []byte
	diDb(i int) []byte
	diIb(i int) []byte
}

// addrsOf returns the block addresses, device number and short link
// target of the inode n, as bytes of it.
func addrsOf(n addressed) inodeAddrs {
	a := inodeAddrs{rdev: n.diRdev(), shortlink: n.diShortlink()}
	for i := range nDAddr {
		a.db = append(a.db, n.diDb(i))
	}
	for i := range nIAddr {
		a.ib = append(a.ib, n.diIb(i))
	}
	return a
}

// dinode1Fields calls num with each fixed field of the UFS1 inode n and
// returns the others.
func dinode1Fields(num func(name string, b []byte, kind int), n *dinode1) inodeAddrs {
	num("di_mode", n.diMode(), fmtMode)
	num("di_nlink", n.diNlink(), fmtUns)
	num("di_size", n.diSize(), fmtUns)
	num("di_atime", n.diAtime(), fmtTime)
	num("di_atimensec", n.diAtimensec(), fmtDec)
	num("di_mtime", n.diMtime(), fmtTime)
	num("di_mtimensec", n.diMtimensec(), fmtDec)
	num("di_ctime", n.diCtime(), fmtTime)
	num("di_ctimensec", n.diCtimensec(), fmtDec)
	num("di_flags", n.diFlags(), fmtHex)
	num("di_blocks", n.diBlocks(), fmtUns)
	num("di_gen", n.diGen(), fmtDec)
	num("di_uid", n.diUID(), fmtUns)
	num("di_gid", n.diGID(), fmtUns)
	num("di_modrev", n.diModrev(), fmtUns)
	return addrsOf(n)
}

// dinode2Fields calls num with each fixed field of the UFS2 inode n and
// returns the others.
func dinode2Fields(num func(name string, b []byte, kind int), n *dinode2) inodeAddrs {
	num("di_mode", n.diMode(), fmtMode)
	num("di_nlink", n.diNlink(), fmtUns)
	num("di_uid", n.diUID(), fmtUns)
	num("di_gid", n.diGID(), fmtUns)
	num("di_blksize", n.diBlksize(), fmtUns)
	num("di_size", n.diSize(), fmtUns)
	num("di_blocks", n.diBlocks(), fmtUns)
	num("di_atime", n.diAtime(), fmtTime)
	num("di_mtime", n.diMtime(), fmtTime)
	num("di_ctime", n.diCtime(), fmtTime)
	num("di_birthtime", n.diBirthtime(), fmtTime)
	num("di_mtimensec", n.diMtimensec(), fmtDec)
	num("di_atimensec", n.diAtimensec(), fmtDec)
	num("di_ctimensec", n.diCtimensec(), fmtDec)
	num("di_birthnsec", n.diBirthnsec(), fmtDec)
	num("di_gen", n.diGen(), fmtDec)
	num("di_kernflags", n.diKernflags(), fmtHex)
	num("di_flags", n.diFlags(), fmtHex)
	num("di_extsize", n.diExtsize(), fmtUns)
	for i := range nIAddr - 1 {
		num("di_extb["+strconv.Itoa(i)+"]", n.diExtb(i), fmtDec)
	}
	num("di_modrev", n.diModrev(), fmtUns)
	num("di_freelink", n.diFreelink(), fmtUns)
	num("di_ckhash", n.diCkhash(), fmtHex)
	return addrsOf(n)
}

// fileData appends the indirect blocks and the data (or the target of a
// symbolic link kept in blocks) of the file, directory or link in at path
// p, whose inode is at byte off.
func (d *describer) fileData(p string, in *Inode, off int64) error {
	f, g := d.f, &d.f.g
	// di_blocks counts the fragments the file holds: no more than the image has.
	if in.Blocks < 0 || in.Blocks > f.size/512+g.bsize/512 {
		return f.inodeErr(in, "di_blocks", "inode %d at byte %#x: di_blocks %d exceeds the image", in.Ino, off, in.Blocks)
	}
	data, indirect, err := f.BlockList(in)
	if err != nil {
		return err
	}
	if len(indirect) > 0 {
		spans := make([][2]int64, 0, len(indirect))
		addrs := make([]string, len(indirect))
		for i, a := range indirect {
			addrs[i] = strconv.FormatInt(a, 10)
			spans = addSpan(spans, a*g.fsize, g.bsize)
		}
		d.out = append(d.out, describe.Field{Path: p, Name: "indirect blocks", Offset: -1, Value: strings.Join(addrs, " "), Spans: spans})
	}
	sum, spans, err := d.hashData(in, data)
	if err != nil {
		return err
	}
	name, value := "data", describe.DataValue(in.Size, sum)
	if in.Mode&ifmt == iflnk {
		name = "symlink target"
		if in.Size <= 1<<16 {
			t, err := f.readlink(in)
			if err != nil {
				return err
			}
			value = strconv.Quote(t)
		}
	}
	d.out = append(d.out, describe.Field{Path: p, Name: name, Offset: -1, Size: in.Size, Value: value, Spans: spans})
	return nil
}

// hashData returns the hash of the contents of in, whose blocks are at
// the fragment addresses data (0 for a hole), and the spans they occupy.
func (d *describer) hashData(in *Inode, data []int64) (string, [][2]int64, error) {
	f, g := d.f, &d.f.g
	h := describe.NewHash()
	var spans [][2]int64
	left := in.Size
	for _, a := range data {
		n := min(left, g.bsize)
		b := d.buf[:n]
		if a == 0 {
			clear(b)
		} else {
			if a < 0 || a >= g.size {
				return "", nil, f.inodeErr(in, "", "inode %d: block address %d out of range", in.Ino, a)
			}
			if err := f.readAt(b, a*g.fsize); err != nil {
				return "", nil, err
			}
			spans = addSpan(spans, a*g.fsize, g.fragroundup(n))
		}
		h.Write(b)
		left -= n
	}
	return h.Sum(), spans, nil
}

// addrList appends a block address array (di_db or di_ib) as one field:
// the addresses in decimal, trailing zeros left out.
func (d *describer) addrList(p, name string, off int64, addrs [][]byte) {
	o := d.f.o
	vals := make([]string, 0, len(addrs))
	last := 0
	for i, b := range addrs {
		var v int64
		if len(b) == 4 {
			v = int64(o.i32(b))
		} else {
			v = o.i64(b)
		}
		vals = append(vals, strconv.FormatInt(v, 10))
		if v != 0 {
			last = i + 1
		}
	}
	value := "[" + strings.Join(vals[:last], " ") + "]"
	d.out = append(d.out, describe.Field{Path: p, Name: name, Offset: off, Size: int64(len(addrs) * len(addrs[0])), Value: value})
}

// addSpan appends [off, off+n), merging it with the last span when they touch.
func addSpan(spans [][2]int64, off, n int64) [][2]int64 {
	if k := len(spans); k > 0 && spans[k-1][1] == off {
		spans[k-1][1] = off + n
		return spans
	}
	return append(spans, [2]int64{off, off + n})
}
