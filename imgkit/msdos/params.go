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
	g := &geometry{}
	if o.BlockSize != 0 && o.SectorsPerCluster != 0 {
		return nil, perr(false, "cannot give both Options.BlockSize and Options.SectorsPerCluster")
	}
	if o.OEMString != nil && len(*o.OEMString) > 8 {
		return nil, perr(false, "Options.OEMString %q is longer than 8 characters", *o.OEMString)
	}
	var bigFATSz uint64
	var huge uint64
	if o.Floppy != "" {
		f, ok := floppies[o.Floppy]
		if !ok {
			return nil, perr(false, "Options.Floppy %q is not a standard format (160, 180, 320, 360, 640, 720, 1200, 1232, 1440, 2880)", o.Floppy)
		}
		g.BytesPerSec, g.SecPerClus, g.RsvdSecCnt, g.NumFATs = f.bps, f.spc, f.res, f.nfats
		g.RootEntCnt, g.Media, g.SecPerTrk, g.NumHeads = f.rootEnts, f.media, f.spt, f.heads
		huge = uint64(f.sectors)
		bigFATSz = uint64(f.fatSz)
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
		huge = o.Sectors
	}
	if o.HiddenSectors != nil {
		g.HiddSec = *o.HiddenSectors
	}
	if g.BytesPerSec < minBytesPerSector || g.BytesPerSec > maxBytesPerSector || !isPow2(uint64(g.BytesPerSec)) {
		return nil, perr(false, "Options.BytesPerSector %d: must be 512, 1024, 2048 or 4096", g.BytesPerSec)
	}
	bps := uint64(g.BytesPerSec)
	if !(o.Floppy != "" || (o.DriveHeads != 0 && o.SectorsPerTrack != 0 && o.BytesPerSector != 0 && o.Sectors != 0 && o.HiddenSectors != nil)) {
		// The fake geometry newfs_msdos uses for a plain file.
		if g.SecPerTrk == 0 {
			g.SecPerTrk = 63
		}
		if g.NumHeads == 0 {
			g.NumHeads = 255
		}
		if huge == 0 {
			huge = uint64(fileSize) / bps
			if bps > 512 {
				g.Warnings = append(g.Warnings, fmt.Sprintf("newfs_msdos counts the image in 512-byte units and would claim %d sectors of %d bytes, more than the image holds; the volume has %d",
					uint64(fileSize)/512-uint64(o.Offset)/bps, bps, huge-min(huge, uint64(o.Offset)/bps)))
			}
		}
		off := uint64(o.Offset) / bps
		if huge < off {
			huge = 0
		} else {
			huge -= off
		}
		if g.SecPerClus == 0 {
			switch {
			case huge <= 6000:
				g.SecPerClus = 1
			case huge <= 1<<17:
				g.SecPerClus = 8
			case huge <= 1<<19:
				g.SecPerClus = 16
			case huge <= 1<<21:
				g.SecPerClus = 32
			default:
				g.SecPerClus = 64
			}
		}
	}
	if huge > 0xffffffff {
		return nil, perr(false, "volume of %d sectors is too large for FAT (at most %d)", huge, uint64(0xffffffff))
	}
	if g.SecPerTrk > 0xffff || g.NumHeads > 0xffff {
		return nil, perr(false, "Options.SectorsPerTrack %d and Options.DriveHeads %d: each must be at most 65535", g.SecPerTrk, g.NumHeads)
	}
	if o.VolumeLabel != "" && !validLabel(o.VolumeLabel) {
		return nil, perr(false, "Options.VolumeLabel %q: 1 to 11 ASCII characters, none of \"*+,./:;<=>?[\\]|", o.VolumeLabel)
	}
	fat := o.FATType
	if fat == 0 {
		if o.Floppy != "" {
			fat = 12
		} else if o.DirectoryEntries == 0 && (o.InfoSector != 0 || o.BackupSector != 0) {
			fat = 32
		}
	}
	if fat == 32 && o.DirectoryEntries != 0 {
		return nil, perr(false, "Options.DirectoryEntries is not a legal FAT32 option")
	}
	if fat != 32 && o.InfoSector != 0 {
		return nil, perr(false, "Options.InfoSector is not a legal FAT12/16 option")
	}
	if fat != 32 && o.BackupSector != 0 {
		return nil, perr(false, "Options.BackupSector is not a legal FAT12/16 option")
	}
	if o.Floppy != "" && fat == 32 {
		g.RootEntCnt = 0
	}
	if fat != 0 && fat != 12 && fat != 16 && fat != 32 {
		return nil, perr(false, "Options.FATType %d: must be 12, 16 or 32", fat)
	}
	if o.BlockSize != 0 {
		bs := uint64(o.BlockSize)
		if !isPow2(bs) {
			return nil, perr(false, "Options.BlockSize %d is not a power of 2", bs)
		}
		if bs < bps {
			return nil, perr(false, "Options.BlockSize %d is too small; minimum is %d", bs, bps)
		}
		if bs > bps*maxSecPerClus {
			return nil, perr(false, "Options.BlockSize %d is too large; maximum is %d", bs, bps*maxSecPerClus)
		}
		g.SecPerClus = uint32(bs / bps)
	}
	if o.SectorsPerCluster != 0 {
		if !isPow2(uint64(o.SectorsPerCluster)) || o.SectorsPerCluster > maxSecPerClus {
			return nil, perr(false, "Options.SectorsPerCluster %d is not a power of 2 up to %d", o.SectorsPerCluster, maxSecPerClus)
		}
		g.SecPerClus = uint32(o.SectorsPerCluster)
	}
	if o.ReservedSectors != 0 {
		g.RsvdSecCnt = uint32(o.ReservedSectors)
	}
	if o.NumFATs != 0 {
		if o.NumFATs > maxNumFATs {
			return nil, perr(false, "Options.NumFATs %d is too large; maximum is %d", o.NumFATs, maxNumFATs)
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
			return nil, perr(false, "Options.MediaDescriptor %#x is illegal (must be 0xf0 or more)", o.MediaDescriptor)
		}
		g.Media = o.MediaDescriptor
	}
	if o.SectorsPerFAT != 0 {
		bigFATSz = uint64(o.SectorsPerFAT)
	}
	if o.InfoSector != 0 {
		g.FSInfo = uint32(o.InfoSector)
	}
	if o.BackupSector != 0 {
		g.BkBootSec = uint32(o.BackupSector)
	}
	bss := uint64(1)
	if len(o.bootstrap) > 0 {
		n := uint64(len(o.bootstrap))
		if n%bps != 0 || n < bps || n > bps*0xffff {
			return nil, perr(false, "Options.Bootstrap %s: size %d is not a whole number of %d-byte sectors", o.Bootstrap, n, bps)
		}
		bss = n / bps
	}
	g.BootSectors = uint32(bss)
	if g.NumFATs == 0 {
		g.NumFATs = 2
	}
	nf := uint64(g.NumFATs)
	spc := uint64(g.SecPerClus)
	res := uint64(g.RsvdSecCnt)
	if fat == 0 {
		r := res
		if r == 0 {
			r = bss
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
		if huge < r+howmany((reservedFATEnts+cl)*bits/4, bps*2)*nf+howmany(rootEnts, bps/dirEntrySize)+cl*clsz {
			fat = 12
		} else {
			clsz = spc
			if clsz == 0 {
				clsz = howmany(8192, bps)
			}
			if g.RootEntCnt != 0 || huge < r+howmany((reservedFATEnts+maxClusters16)*2, bps)*nf+howmany(defaultRootEnts, bps/dirEntrySize)+(maxClusters16+1)*clsz {
				fat = 16
			} else {
				fat = 32
			}
		}
	}
	g.FATType = fat
	x := bss
	if fat == 32 {
		if g.FSInfo == 0 {
			if x == 0xffff || x == uint64(g.BkBootSec) {
				return nil, perr(false, "no room for info sector")
			}
			g.FSInfo = uint32(x)
		}
		if g.FSInfo != 0xffff && x <= uint64(g.FSInfo) {
			x = uint64(g.FSInfo) + 1
		}
		if g.BkBootSec == 0 {
			if x == 0xffff {
				return nil, perr(false, "no room for backup sector")
			}
			g.BkBootSec = uint32(x)
		} else if g.BkBootSec != 0xffff && g.BkBootSec == g.FSInfo {
			return nil, perr(false, "backup sector would overwrite info sector")
		}
		if g.BkBootSec != 0xffff && x <= uint64(g.BkBootSec) {
			x = uint64(g.BkBootSec) + 1
		}
	}
	setRes := res == 0
	setSPF := bigFATSz == 0
	setSPC := spc == 0
	savedX := x
	var extraRes, alignment, x1, x2, rds uint64
	attempts := 0
	maxcls := maxClusters(fat)
	for {
		x = savedX
		if setRes {
			if fat == 32 {
				res = max(x, max(16384/bps, 4)) + extraRes
			} else {
				res = x + extraRes
			}
		} else if res < x {
			return nil, perr(false, "too few reserved sectors (need %d, have %d)", x, res)
		}
		if fat != 32 && g.RootEntCnt == 0 {
			g.RootEntCnt = defaultRootEnts
		}
		rds = howmany(uint64(g.RootEntCnt), bps/dirEntrySize)
		if setSPC {
			start := uint64(4096)
			if fat == 16 {
				start = 2048
			}
			for spc = howmany(start, bps); spc < maxSecPerClus &&
				res+howmany((reservedFATEnts+maxcls)*uint64(fat/4), bps*2)*nf+rds+(maxcls+1)*spc <= huge; spc <<= 1 {
			}
		}
		if fat != 32 && bigFATSz > 0xffff {
			return nil, perr(false, "too many sectors per FAT for FAT%d", fat)
		}
		x1 = res + rds
		x = bigFATSz
		if x == 0 {
			x = 1
		}
		if x1+x*nf > huge {
			return nil, perr(true, "metadata (%d sectors) exceeds the volume size (%d sectors)", x1+x*nf, huge)
		}
		x1 += x * nf
		x = (huge - x1) * bps * 2 / (spc*bps*2 + uint64(fat/4)*nf)
		x2 = howmany((reservedFATEnts+min(x, maxcls))*uint64(fat/4), bps*2)
		if setSPF {
			if bigFATSz == 0 {
				bigFATSz = x2
			}
			x1 += (bigFATSz - 1) * nf
		}
		// Without reserved_sectors, newfs_msdos pads the reserved area so
		// that the data area (after the root directory) starts on a
		// cluster boundary, with or without align; a second round fixes
		// what the padding moved.
		if setRes && spc > 1 {
			alignment = (res + bigFATSz*nf + rds) % spc
			if alignment != 0 {
				extraRes += spc - alignment
			}
		}
		attempts++
		if !(alignment != 0 && attempts < 2) {
			break
		}
	}
	if o.Align && alignment != 0 {
		g.Warnings = append(g.Warnings, "alignment failed")
	}
	if res > 0xffff {
		return nil, perr(false, "%d reserved sectors is too many (at most 65535)", res)
	}
	cls := (huge - x1) / spc
	if huge < x1 {
		cls = 0
	}
	capacity := bigFATSz*bps*2/uint64(fat/4) - reservedFATEnts
	if cls > capacity {
		cls = capacity
	}
	if bigFATSz < x2 {
		g.Warnings = append(g.Warnings, fmt.Sprintf("sectors/FAT limits file system to %d clusters", cls))
	}
	if cls < minClusters(fat) {
		return nil, perr(true, "%d clusters is too few for FAT%d, which needs %d to %d", cls, fat, minClusters(fat), maxClusters(fat))
	}
	if cls > maxcls {
		cls = maxcls
		huge = x1 + (cls+1)*spc - 1
		g.Warnings = append(g.Warnings, fmt.Sprintf("FAT type limits file system to %d sectors", huge))
	}
	if bigFATSz > 0xffffffff {
		return nil, perr(false, "FAT too large")
	}
	// newfs_msdos counts the clusters with the FAT sectors twice when it
	// pads the reserved area, and forgets the last FAT sector in its
	// estimate: the volume can then have more clusters than its FAT holds
	// or than its FAT type counts, which readers refuse. As macOS's
	// newfs_msdos does, the sector count is cut to the clusters the FAT
	// holds.
	meta := res + bigFATSz*nf + rds
	if huge > meta {
		have := (huge - meta) / spc
		limit := min(maxcls, bigFATSz*bps*2/uint64(fat/4)-reservedFATEnts)
		if have > limit {
			huge = meta + (limit+1)*spc - 1
			cls = limit
			g.Warnings = append(g.Warnings, fmt.Sprintf("newfs_msdos would make %d clusters, more than the FAT%d table of %d sectors holds; the volume is cut to %d sectors",
				have, fat, bigFATSz, huge))
			have = limit
		}
		if fat == 12 && have == maxClusters12 {
			// FreeBSD's msdosfs takes a volume of 4084 clusters for
			// FAT16 (fatgen103: FAT12 below 4085) and fills its FAT
			// with 16-bit entries.
			g.Warnings = append(g.Warnings, fmt.Sprintf("FreeBSD's makefs would fill the FAT of this FAT12 volume of %d clusters with FAT16 entries; FAT12 entries are written", have))
		}
	}
	g.Clusters = uint32(cls)
	g.SecPerClus = uint32(spc)
	g.RsvdSecCnt = uint32(res)
	g.FATSz = uint32(bigFATSz)
	g.TotSec = uint32(huge)
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
