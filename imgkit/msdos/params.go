package msdos

import (
	"fmt"
	"strings"
)

// geometry is the outcome of the newfs_msdos parameter selection: every
// BPB field plus the derived layout.
type geometry struct {
	BytesPerSec uint32
	SecPerClus  uint32
	RsvdSecCnt  uint32
	NumFATs     uint32
	RootEntCnt  uint32
	TotSec      uint32 // BPB_TotSec16 or BPB_TotSec32
	Media       uint8
	FATSz       uint32 // sectors per FAT
	SecPerTrk   uint32
	NumHeads    uint32
	HiddSec     uint32
	RootClus    uint32
	FSInfo      uint32
	BkBootSec   uint32
	FATType     int
	BootSectors uint32 // bootstrap sectors (1 without -o bootstrap)
	Clusters    uint32 // usable clusters as newfs_msdos counts them
	Warnings    []string
}

func (g *geometry) rootDirSectors() uint32 {
	return (g.RootEntCnt*dirEntrySize + g.BytesPerSec - 1) / g.BytesPerSec
}
func (g *geometry) fatStart() int64 { return int64(g.RsvdSecCnt) * int64(g.BytesPerSec) }
func (g *geometry) rootStart() int64 {
	return int64(g.RsvdSecCnt+g.NumFATs*g.FATSz) * int64(g.BytesPerSec)
}
func (g *geometry) dataStart() int64 {
	return g.rootStart() + int64(g.rootDirSectors())*int64(g.BytesPerSec)
}
func (g *geometry) clusterBytes() int64 { return int64(g.SecPerClus) * int64(g.BytesPerSec) }

// maxCluster is the highest cluster number the volume can use: the lesser
// of what the sectors and what the FAT can address.
func (g *geometry) maxCluster() uint32 {
	n := (int64(g.TotSec)*int64(g.BytesPerSec) - g.dataStart()) / g.clusterBytes()
	fatEnts := int64(g.FATSz) * int64(g.BytesPerSec)
	switch g.FATType {
	case 12:
		fatEnts = fatEnts * 2 / 3
	case 16:
		fatEnts /= 2
	default:
		fatEnts /= 4
	}
	if n > fatEnts-reservedFATEnts {
		n = fatEnts - reservedFATEnts
	}
	if n < 0 {
		n = 0
	}
	return uint32(n) + 1
}

// floppyFormat is a standard floppy format from newfs_msdos -f.
type floppyFormat struct {
	bps, spc, res, nfats, rootEnts, sectors uint32
	media                                   uint8
	fatSz, spt, heads                       uint32
}

var floppies = map[string]floppyFormat{
	"160":  {512, 1, 1, 2, 64, 320, 0xfe, 1, 8, 1},
	"180":  {512, 1, 1, 2, 64, 360, 0xfc, 2, 9, 1},
	"320":  {512, 2, 1, 2, 112, 640, 0xff, 1, 8, 2},
	"360":  {512, 2, 1, 2, 112, 720, 0xfd, 2, 9, 2},
	"640":  {512, 2, 1, 2, 112, 1280, 0xfb, 2, 8, 2},
	"720":  {512, 2, 1, 2, 112, 1440, 0xf9, 3, 9, 2},
	"1200": {512, 1, 1, 2, 224, 2400, 0xf9, 7, 15, 2},
	"1232": {1024, 1, 1, 2, 192, 1232, 0xfe, 2, 8, 2},
	"1440": {512, 1, 1, 2, 224, 2880, 0xf0, 9, 18, 2},
	"2880": {512, 2, 1, 2, 240, 5760, 0xf0, 9, 36, 2},
}

func minClusters(fat int) uint64 {
	switch fat {
	case 12:
		return minClusters12
	case 16:
		return minClusters16
	}
	return minClusters32
}

func maxClusters(fat int) uint64 {
	switch fat {
	case 12:
		return maxClusters12
	case 16:
		return maxClusters16
	}
	return maxClusters32
}

func howmany(a, b uint64) uint64 { return (a + b - 1) / b }
func isPow2(x uint64) bool       { return x != 0 && x&(x-1) == 0 }

// paramError is a parameter failure; small tells whether more sectors
// could cure it (the volume is too small for the requested type).
type paramError struct {
	msg   string
	small bool // more sectors could cure it
}

func (e *paramError) Error() string { return "msdos: " + e.msg }
func (e *paramError) Unwrap() error { return ErrParams }

func perr(small bool, format string, args ...any) error {
	return &paramError{msg: fmt.Sprintf(format, args...), small: small}
}

// validLabel reports whether s can be a volume label, by newfs_msdos's
// rule: 1 to 11 characters, the first above a blank, none below a blank and
// none of "*+,./:;<=>?[\]|.
func validLabel(s string) bool {
	if len(s) == 0 || len(s) > 11 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' || (i == 0 && c == ' ') || c >= 0x80 || strings.IndexByte("\"*+,./:;<=>?[\\]|", c) >= 0 {
			return false
		}
	}
	return true
}

// computeGeometry selects the volume parameters as FreeBSD's newfs_msdos
// (mkfs_msdos.c) does when makefs calls it for an image file of fileSize
// bytes: o holds the -o options. Where newfs_msdos's volume would be
// invalid it makes a valid one and adds a warning: for an image file
// newfs_msdos counts the file in 512-byte units even when bytes_per_sector
// is larger, which claims more sectors than the file holds (here the file
// is counted in bytes_per_sector units), and its sector count can give
// more clusters than the FAT holds (here it is cut).
func computeGeometry(o *Options, fileSize int64) (*geometry, error) {
	s := &geomState{o: o, g: &geometry{}}
	if err := s.drive(); err != nil {
		return nil, err
	}
	s.plainFile(fileSize)
	if err := s.checkRanges(); err != nil {
		return nil, err
	}
	if err := s.requestedFATType(); err != nil {
		return nil, err
	}
	if err := s.applyOptions(); err != nil {
		return nil, err
	}
	s.chooseFATType()
	if err := s.placeInfoBackup(); err != nil {
		return nil, err
	}
	if err := s.sizeFAT(); err != nil {
		return nil, err
	}
	if err := s.countClusters(); err != nil {
		return nil, err
	}
	return s.finish()
}

// geomState carries what computeGeometry has worked out from one step to
// the next, under the names mkfs_msdos.c gives the same values.
type geomState struct {
	o         *Options
	g         *geometry
	huge      uint64 // sectors in the volume
	bigFATSz  uint64 // sectors per FAT; 0 until chosen
	bps       uint64 // bytes per sector
	fat       int    // FAT type; 0 until chosen
	bss       uint64 // boot sectors (the bootstrap's length in sectors)
	nf        uint64 // number of FATs
	spc       uint64 // sectors per cluster; 0 until chosen
	res       uint64 // reserved sectors; 0 until chosen
	x         uint64 // first reserved sector after the boot, info and backup sectors
	x1        uint64 // sectors before the data area
	x2        uint64 // sectors per FAT that the estimated clusters need
	rds       uint64 // root directory sectors
	alignment uint64 // sectors the data area lies past a cluster boundary
	cls       uint64 // clusters in the data area
}

// drive takes the sector size, the sector count and the drive geometry
// from Options.Floppy and the options that override it, and checks that
// the options it depends on are consistent.
func (s *geomState) drive() error {
	o, g := s.o, s.g
	if o.BlockSize != 0 && o.SectorsPerCluster != 0 {
		return perr(false, "cannot give both Options.BlockSize and Options.SectorsPerCluster")
	}
	if o.OEMString != nil && len(*o.OEMString) > 8 {
		return perr(false, "Options.OEMString %q is longer than 8 characters", *o.OEMString)
	}
	if o.Floppy != "" {
		f, ok := floppies[o.Floppy]
		if !ok {
			return perr(false, "Options.Floppy %q is not a standard format (160, 180, 320, 360, 640, 720, 1200, 1232, 1440, 2880)", o.Floppy)
		}
		g.BytesPerSec, g.SecPerClus, g.RsvdSecCnt, g.NumFATs = f.bps, f.spc, f.res, f.nfats
		g.RootEntCnt, g.Media, g.SecPerTrk, g.NumHeads = f.rootEnts, f.media, f.spt, f.heads
		s.huge = uint64(f.sectors)
		s.bigFATSz = uint64(f.fatSz)
	}
	if o.DriveHeads != 0 {
		g.NumHeads = uint32(o.DriveHeads)
	}
	if o.SectorsPerTrack != 0 {
		g.SecPerTrk = uint32(o.SectorsPerTrack)
	}
	if o.BytesPerSector != 0 {
		g.BytesPerSec = uint32(o.BytesPerSector)
	}
	if o.Sectors != 0 {
		s.huge = o.Sectors
	}
	if o.HiddenSectors != nil {
		g.HiddSec = *o.HiddenSectors
	}
	if g.BytesPerSec < minBytesPerSector || g.BytesPerSec > maxBytesPerSector || !isPow2(uint64(g.BytesPerSec)) {
		return perr(false, "Options.BytesPerSector %d: must be 512, 1024, 2048 or 4096", g.BytesPerSec)
	}
	s.bps = uint64(g.BytesPerSec)
	return nil
}

// plainFile fills in the fake geometry newfs_msdos uses for a plain file
// of fileSize bytes, unless Options.Floppy or the options together give
// the whole drive: 63 sectors per track, 255 heads, the sectors the file
// holds after Options.Offset, and sectors per cluster from that count.
func (s *geomState) plainFile(fileSize int64) {
	o, g := s.o, s.g
	if o.Floppy != "" || (o.DriveHeads != 0 && o.SectorsPerTrack != 0 && o.BytesPerSector != 0 && o.Sectors != 0 && o.HiddenSectors != nil) {
		return
	}
	bps := s.bps
	if g.SecPerTrk == 0 {
		g.SecPerTrk = 63
	}
	if g.NumHeads == 0 {
		g.NumHeads = 255
	}
	if s.huge == 0 {
		s.huge = uint64(fileSize) / bps
		if bps > 512 {
			g.Warnings = append(g.Warnings, fmt.Sprintf("newfs_msdos counts the image in 512-byte units and would claim %d sectors of %d bytes, more than the image holds; the volume has %d",
				uint64(fileSize)/512-uint64(o.Offset)/bps, bps, s.huge-min(s.huge, uint64(o.Offset)/bps)))
		}
	}
	off := uint64(o.Offset) / bps
	if s.huge < off {
		s.huge = 0
	} else {
		s.huge -= off
	}
	if g.SecPerClus == 0 {
		switch {
		case s.huge <= 6000:
			g.SecPerClus = 1
		case s.huge <= 1<<17:
			g.SecPerClus = 8
		case s.huge <= 1<<19:
			g.SecPerClus = 16
		case s.huge <= 1<<21:
			g.SecPerClus = 32
		default:
			g.SecPerClus = 64
		}
	}
}

// checkRanges rejects a sector count, a drive geometry or a volume label
// that the boot sector cannot hold.
func (s *geomState) checkRanges() error {
	o, g := s.o, s.g
	if s.huge > 0xffffffff {
		return perr(false, "volume of %d sectors is too large for FAT (at most %d)", s.huge, uint64(0xffffffff))
	}
	if g.SecPerTrk > 0xffff || g.NumHeads > 0xffff {
		return perr(false, "Options.SectorsPerTrack %d and Options.DriveHeads %d: each must be at most 65535", g.SecPerTrk, g.NumHeads)
	}
	if o.VolumeLabel != "" && !validLabel(o.VolumeLabel) {
		return perr(false, "Options.VolumeLabel %q: 1 to 11 ASCII characters, none of \"*+,./:;<=>?[\\]|", o.VolumeLabel)
	}
	return nil
}

// requestedFATType sets the FAT type that the options ask for or imply (0
// when the size is to choose it) and rejects the options that type does
// not have.
func (s *geomState) requestedFATType() error {
	o := s.o
	fat := o.FATType
	if fat == 0 {
		if o.Floppy != "" {
			fat = 12
		} else if o.DirectoryEntries == 0 && (o.InfoSector != 0 || o.BackupSector != 0) {
			fat = 32
		}
	}
	if fat == 32 && o.DirectoryEntries != 0 {
		return perr(false, "Options.DirectoryEntries is not a legal FAT32 option")
	}
	if fat != 32 && o.InfoSector != 0 {
		return perr(false, "Options.InfoSector is not a legal FAT12/16 option")
	}
	if fat != 32 && o.BackupSector != 0 {
		return perr(false, "Options.BackupSector is not a legal FAT12/16 option")
	}
	if o.Floppy != "" && fat == 32 {
		s.g.RootEntCnt = 0
	}
	if fat != 0 && fat != 12 && fat != 16 && fat != 32 {
		return perr(false, "Options.FATType %d: must be 12, 16 or 32", fat)
	}
	s.fat = fat
	return nil
}

// applyOptions checks the cluster, FAT, root directory, media, info
// sector, backup sector and bootstrap options and takes them into the
// geometry.
func (s *geomState) applyOptions() error {
	if err := s.clusterOptions(); err != nil {
		return err
	}
	o, g, bps := s.o, s.g, s.bps
	if o.ReservedSectors != 0 {
		g.RsvdSecCnt = uint32(o.ReservedSectors)
	}
	if o.NumFATs != 0 {
		if o.NumFATs > maxNumFATs {
			return perr(false, "Options.NumFATs %d is too large; maximum is %d", o.NumFATs, maxNumFATs)
		}
		g.NumFATs = uint32(o.NumFATs)
	}
	if o.DirectoryEntries != 0 {
		// newfs_msdos rounds the root directory up to whole sectors.
		perSec := uint64(bps / dirEntrySize)
		g.RootEntCnt = uint32(min(howmany(uint64(o.DirectoryEntries), perSec)*perSec, 0xffff))
		if o.DirectoryEntries >= 0xffff {
			g.RootEntCnt = 0xffff
		}
	}
	if o.MediaDescriptor != 0 {
		if o.MediaDescriptor < 0xf0 {
			return perr(false, "Options.MediaDescriptor %#x is illegal (must be 0xf0 or more)", o.MediaDescriptor)
		}
		g.Media = o.MediaDescriptor
	}
	if o.SectorsPerFAT != 0 {
		s.bigFATSz = uint64(o.SectorsPerFAT)
	}
	if o.InfoSector != 0 {
		g.FSInfo = uint32(o.InfoSector)
	}
	if o.BackupSector != 0 {
		g.BkBootSec = uint32(o.BackupSector)
	}
	if err := s.bootSectors(); err != nil {
		return err
	}
	g.BootSectors = uint32(s.bss)
	if g.NumFATs == 0 {
		g.NumFATs = 2
	}
	s.nf = uint64(g.NumFATs)
	s.spc = uint64(g.SecPerClus)
	s.res = uint64(g.RsvdSecCnt)
	return nil
}

// clusterOptions checks Options.BlockSize and Options.SectorsPerCluster
// and takes the cluster size they set into the geometry.
func (s *geomState) clusterOptions() error {
	o, g, bps := s.o, s.g, s.bps
	if o.BlockSize != 0 {
		bs := uint64(o.BlockSize)
		if !isPow2(bs) {
			return perr(false, "Options.BlockSize %d is not a power of 2", bs)
		}
		if bs < bps {
			return perr(false, "Options.BlockSize %d is too small; minimum is %d", bs, bps)
		}
		if bs > bps*maxSecPerClus {
			return perr(false, "Options.BlockSize %d is too large; maximum is %d", bs, bps*maxSecPerClus)
		}
		g.SecPerClus = uint32(bs / bps)
	}
	if o.SectorsPerCluster != 0 {
		if !isPow2(uint64(o.SectorsPerCluster)) || o.SectorsPerCluster > maxSecPerClus {
			return perr(false, "Options.SectorsPerCluster %d is not a power of 2 up to %d", o.SectorsPerCluster, maxSecPerClus)
		}
		g.SecPerClus = uint32(o.SectorsPerCluster)
	}
	return nil
}

// bootSectors checks the bootstrap's length and sets the boot sectors it
// takes: one without a bootstrap.
func (s *geomState) bootSectors() error {
	o, bps := s.o, s.bps
	s.bss = 1
	if len(o.bootstrap) > 0 {
		n := uint64(len(o.bootstrap))
		if n%bps != 0 || n < bps || n > bps*0xffff {
			return perr(false, "Options.Bootstrap %s: size %d is not a whole number of %d-byte sectors", o.Bootstrap, n, bps)
		}
		s.bss = n / bps
	}
	return nil
}

// chooseFATType picks the FAT type from the size when the options leave it
// open, as newfs_msdos does: FAT12 when the volume is too small for the
// fewest FAT16 clusters, FAT16 when it is too small for the most, and
// FAT32 otherwise.
func (s *geomState) chooseFATType() {
	g, bps, nf, spc := s.g, s.bps, s.nf, s.spc
	if s.fat == 0 {
		r := s.res
		if r == 0 {
			r = s.bss
		}
		rootEnts := uint64(g.RootEntCnt)
		if rootEnts == 0 {
			rootEnts = defaultRootEnts
		}
		var cl, bits, clsz uint64
		if spc != 0 {
			cl, bits, clsz = minClusters16, 16, spc
		} else {
			cl, bits, clsz = maxClusters12+1, 12, howmany(4096, bps)
		}
		if s.huge < r+howmany((reservedFATEnts+cl)*bits/4, bps*2)*nf+howmany(rootEnts, bps/dirEntrySize)+cl*clsz {
			s.fat = 12
		} else {
			clsz = spc
			if clsz == 0 {
				clsz = howmany(8192, bps)
			}
			if g.RootEntCnt != 0 || s.huge < r+howmany((reservedFATEnts+maxClusters16)*2, bps)*nf+howmany(defaultRootEnts, bps/dirEntrySize)+(maxClusters16+1)*clsz {
				s.fat = 16
			} else {
				s.fat = 32
			}
		}
	}
	g.FATType = s.fat
}

// placeInfoBackup places a FAT32 volume's info sector and backup boot
// sector after the boot sectors unless the options place them, and sets
// the first reserved sector left after them.
func (s *geomState) placeInfoBackup() error {
	g := s.g
	x := s.bss
	if s.fat == 32 {
		if g.FSInfo == 0 {
			if x == 0xffff || x == uint64(g.BkBootSec) {
				return perr(false, "no room for info sector")
			}
			g.FSInfo = uint32(x)
		}
		if g.FSInfo != 0xffff && x <= uint64(g.FSInfo) {
			x = uint64(g.FSInfo) + 1
		}
		if g.BkBootSec == 0 {
			if x == 0xffff {
				return perr(false, "no room for backup sector")
			}
			g.BkBootSec = uint32(x)
		} else if g.BkBootSec != 0xffff && g.BkBootSec == g.FSInfo {
			return perr(false, "backup sector would overwrite info sector")
		}
		if g.BkBootSec != 0xffff && x <= uint64(g.BkBootSec) {
			x = uint64(g.BkBootSec) + 1
		}
	}
	s.x = x
	return nil
}

// sizeFAT chooses the reserved sectors, the sectors per cluster and the
// sectors per FAT that the options leave open, as newfs_msdos's loop
// does, and sets the sectors before the data area.
func (s *geomState) sizeFAT() error {
	r := fatRound{setRes: s.res == 0, setSPF: s.bigFATSz == 0, setSPC: s.spc == 0}
	for attempts := 1; ; attempts++ {
		if err := s.sizeRound(&r); err != nil {
			return err
		}
		if !(s.alignment != 0 && attempts < 2) {
			break
		}
	}
	if s.o.Align && s.alignment != 0 {
		s.g.Warnings = append(s.g.Warnings, "alignment failed")
	}
	if s.res > 0xffff {
		return perr(false, "%d reserved sectors is too many (at most 65535)", s.res)
	}
	return nil
}

// fatRound is what the rounds of sizeFAT share: which values the options
// left open, and the padding the reserved area takes.
type fatRound struct {
	setRes, setSPF, setSPC bool
	extraRes               uint64
}

// sizeRound is one round of newfs_msdos's loop: it sets the reserved
// sectors, the root directory, the cluster size and the FAT size, and
// the alignment that a next round pads away.
func (s *geomState) sizeRound(r *fatRound) error {
	g, bps, nf, fat := s.g, s.bps, s.nf, s.fat
	maxcls := maxClusters(fat)
	x := s.x
	if r.setRes {
		if fat == 32 {
			s.res = max(x, max(16384/bps, 4)) + r.extraRes
		} else {
			s.res = x + r.extraRes
		}
	} else if s.res < x {
		return perr(false, "too few reserved sectors (need %d, have %d)", x, s.res)
	}
	if fat != 32 && g.RootEntCnt == 0 {
		g.RootEntCnt = defaultRootEnts
	}
	s.rds = howmany(uint64(g.RootEntCnt), bps/dirEntrySize)
	if r.setSPC {
		s.chooseSPC(maxcls)
	}
	if fat != 32 && s.bigFATSz > 0xffff {
		return perr(false, "too many sectors per FAT for FAT%d", fat)
	}
	s.x1 = s.res + s.rds
	x = max(s.bigFATSz, 1)
	if s.x1+x*nf > s.huge {
		return perr(true, "metadata (%d sectors) exceeds the volume size (%d sectors)", s.x1+x*nf, s.huge)
	}
	s.x1 += x * nf
	x = (s.huge - s.x1) * bps * 2 / (s.spc*bps*2 + uint64(fat/4)*nf)
	s.x2 = howmany((reservedFATEnts+min(x, maxcls))*uint64(fat/4), bps*2)
	if r.setSPF {
		if s.bigFATSz == 0 {
			s.bigFATSz = s.x2
		}
		s.x1 += (s.bigFATSz - 1) * nf
	}
	// Without reserved_sectors, newfs_msdos pads the reserved area so
	// that the data area (after the root directory) starts on a
	// cluster boundary, with or without align; a second round fixes
	// what the padding moved.
	if r.setRes && s.spc > 1 {
		s.alignment = (s.res + s.bigFATSz*nf + s.rds) % s.spc
		if s.alignment != 0 {
			r.extraRes += s.spc - s.alignment
		}
	}
	return nil
}

// chooseSPC doubles the sectors per cluster from 4096 bytes (2048 for
// FAT16) while the largest FAT of the type and its clusters still fit the
// volume, as newfs_msdos does.
func (s *geomState) chooseSPC(maxcls uint64) {
	bps, fat := s.bps, s.fat
	start := uint64(4096)
	if fat == 16 {
		start = 2048
	}
	for s.spc = howmany(start, bps); s.spc < maxSecPerClus &&
		s.res+howmany((reservedFATEnts+maxcls)*uint64(fat/4), bps*2)*s.nf+s.rds+(maxcls+1)*s.spc <= s.huge; s.spc <<= 1 {
	}
}

// countClusters counts the data area's clusters, bounded by what the FAT
// holds and by what the FAT type counts, and cuts the sector count where
// newfs_msdos's volume would have more clusters than its FAT holds.
func (s *geomState) countClusters() error {
	g, bps, nf, fat, spc := s.g, s.bps, s.nf, s.fat, s.spc
	maxcls := maxClusters(fat)
	s.cls = (s.huge - s.x1) / spc
	if s.huge < s.x1 {
		s.cls = 0
	}
	capacity := s.bigFATSz*bps*2/uint64(fat/4) - reservedFATEnts
	if s.cls > capacity {
		s.cls = capacity
	}
	if s.bigFATSz < s.x2 {
		g.Warnings = append(g.Warnings, fmt.Sprintf("sectors/FAT limits file system to %d clusters", s.cls))
	}
	if s.cls < minClusters(fat) {
		return perr(true, "%d clusters is too few for FAT%d, which needs %d to %d", s.cls, fat, minClusters(fat), maxClusters(fat))
	}
	if s.cls > maxcls {
		s.cls = maxcls
		s.huge = s.x1 + (s.cls+1)*spc - 1
		g.Warnings = append(g.Warnings, fmt.Sprintf("FAT type limits file system to %d sectors", s.huge))
	}
	if s.bigFATSz > 0xffffffff {
		return perr(false, "FAT too large")
	}
	// newfs_msdos counts the clusters with the FAT sectors twice when it
	// pads the reserved area, and forgets the last FAT sector in its
	// estimate: the volume can then have more clusters than its FAT holds
	// or than its FAT type counts, which readers refuse. As macOS's
	// newfs_msdos does, the sector count is cut to the clusters the FAT
	// holds.
	meta := s.res + s.bigFATSz*nf + s.rds
	if s.huge > meta {
		have := (s.huge - meta) / spc
		limit := min(maxcls, s.bigFATSz*bps*2/uint64(fat/4)-reservedFATEnts)
		if have > limit {
			s.huge = meta + (limit+1)*spc - 1
			s.cls = limit
			g.Warnings = append(g.Warnings, fmt.Sprintf("newfs_msdos would make %d clusters, more than the FAT%d table of %d sectors holds; the volume is cut to %d sectors",
				have, fat, s.bigFATSz, s.huge))
			have = limit
		}
		if fat == 12 && have == maxClusters12 {
			// FreeBSD's msdosfs takes a volume of 4084 clusters for
			// FAT16 (fatgen103: FAT12 below 4085) and fills its FAT
			// with 16-bit entries.
			g.Warnings = append(g.Warnings, fmt.Sprintf("FreeBSD's makefs would fill the FAT of this FAT12 volume of %d clusters with FAT16 entries; FAT12 entries are written", have))
		}
	}
	return nil
}

// finish stores the chosen counts in the geometry, fills in the media
// descriptor and the FAT32 root cluster, and checks that the info and
// backup sectors lie within the reserved area.
func (s *geomState) finish() (*geometry, error) {
	g, fat, res := s.g, s.fat, s.res
	g.Clusters = uint32(s.cls)
	g.SecPerClus = uint32(s.spc)
	g.RsvdSecCnt = uint32(res)
	g.FATSz = uint32(s.bigFATSz)
	g.TotSec = uint32(s.huge)
	if g.Media == 0 {
		if g.HiddSec == 0 {
			g.Media = 0xf0
		} else {
			g.Media = 0xf8
		}
	}
	if fat == 32 {
		g.RootClus = reservedFATEnts
	}
	if uint64(g.BkBootSec) >= res && fat == 32 && g.BkBootSec != 0xffff {
		return nil, perr(false, "Options.BackupSector %d is not within the %d reserved sectors", g.BkBootSec, res)
	}
	if fat == 32 && g.FSInfo != 0xffff && uint64(g.FSInfo) >= res {
		return nil, perr(false, "Options.InfoSector %d is not within the %d reserved sectors", g.FSInfo, res)
	}
	return g, nil
}
