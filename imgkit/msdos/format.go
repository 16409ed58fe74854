package msdos

import (
	"encoding/binary"
	"errors"
	"time"
)

// This file holds the on-disk layout of a FAT volume as the Microsoft
// "FAT: General Overview of On-Disk Format" specification (fatgen103)
// describes it. Field accessors are named after the specification's field
// names so that a search for, say, BPB_SecPerClus finds them.

var le = binary.LittleEndian

// Sentinel errors. Errors returned by this package wrap one of these so that
// callers can test for a class of failure with errors.Is.
var (
	// ErrFormat reports a malformed or unsupported FAT image.
	ErrFormat = errors.New("msdos: malformed image")
	// ErrOption reports a bad -o option name or value.
	ErrOption = errors.New("msdos: bad option")
	// ErrParams reports option values that cannot make a valid volume.
	ErrParams = errors.New("msdos: impossible parameters")
	// ErrName reports a file name that cannot be stored on FAT.
	ErrName = errors.New("msdos: bad name")
	// ErrNoSpace reports a tree that does not fit the volume.
	ErrNoSpace = errors.New("msdos: no space")
	// ErrRootFull reports a FAT12/16 root directory with too few entries.
	ErrRootFull = errors.New("msdos: root directory full")
	// ErrFileTooBig reports a file of 4 GiB or more.
	ErrFileTooBig = errors.New("msdos: file too large for FAT")
	// ErrDirFull reports a directory of more than 65536 32-byte entries,
	// the most FAT allows (fatgen103), long-name entries included.
	ErrDirFull = errors.New("msdos: directory too large for FAT")
)

// maxDirSlots is the most 32-byte entries a FAT directory may hold.
const maxDirSlots = 65536

// Limits and magic numbers (fatgen103 and newfs_msdos(8)).
const (
	minBytesPerSector = 512
	maxBytesPerSector = 4096
	maxSecPerClus     = 128
	maxNumFATs        = 16
	defaultRootEnts   = 512
	dirEntrySize      = 32
	reservedFATEnts   = 2 // FAT[0] and FAT[1] hold no cluster

	minClusters12 = 1
	maxClusters12 = 0xff4 // 4084: a FAT12 volume has fewer than 4085 clusters
	minClusters16 = 0xff5
	maxClusters16 = 0xfff4 // 65524: a FAT16 volume has fewer than 65525 clusters
	minClusters32 = 0xfff5
	maxClusters32 = 0xffffff4

	// MaxFileSize is the largest file FAT can hold (DIR_FileSize is 32 bits).
	MaxFileSize = 1<<32 - 1

	bootSig        = 0xaa55     // at byte 510 of the boot sector and FSInfo
	extBootSig     = 0x29       // BS_BootSig: the three fields after it are present
	fsiLeadSig     = 0x41615252 // FSI_LeadSig "RRaA"
	fsiStrucSig    = 0x61417272 // FSI_StrucSig "rrAa"
	fsiTrailSig    = 0xaa550000 // FSI_TrailSig
	fsiUnknown     = 0xffffffff // FSI_Free_Count / FSI_Nxt_Free "not known"
	maxLongNameLen = 255        // UTF-16 units in a long name
	charsPerSlot   = 13         // UTF-16 units in one long-name entry
)

// Directory entry attributes (DIR_Attr).
const (
	AttrReadOnly  = 0x01
	AttrHidden    = 0x02
	AttrSystem    = 0x04
	AttrVolumeID  = 0x08
	AttrDirectory = 0x10
	AttrArchive   = 0x20
	attrLongName  = AttrReadOnly | AttrHidden | AttrSystem | AttrVolumeID
	attrLongMask  = attrLongName | AttrDirectory | AttrArchive
)

// Special first bytes of DIR_Name.
const (
	slotFree    = 0x00 // this and every following entry are free
	slotDeleted = 0xe5 // this entry is free
	slotE5      = 0x05 // stands for a name whose first byte really is 0xE5
	lastLongOrd = 0x40 // LDIR_Ord flag of the last (first stored) long entry
)

// NTRes bits used by Windows NT and Linux to show an all-lower-case 8.3 name
// without a long name.
const (
	ntLowerBase = 0x08
	ntLowerExt  = 0x10
)

// bootSector is the first sector of a FAT volume, up to the signature word:
// the BIOS parameter block (BPB) and the extended boot record (BS_*).
// Offsets from byte 36 on differ between FAT12/16 and FAT32; accessors for
// those take the FAT32 flag.
type bootSector [512]byte

func (b *bootSector) jmpBoot() []byte    { return b[0:][:3] }  // BS_jmpBoot
func (b *bootSector) oemName() []byte    { return b[3:][:8] }  // BS_OEMName
func (b *bootSector) bytsPerSec() []byte { return b[11:][:2] } // BPB_BytsPerSec
func (b *bootSector) secPerClus() []byte { return b[13:][:1] } // BPB_SecPerClus
func (b *bootSector) rsvdSecCnt() []byte { return b[14:][:2] } // BPB_RsvdSecCnt
func (b *bootSector) numFATs() []byte    { return b[16:][:1] } // BPB_NumFATs
func (b *bootSector) rootEntCnt() []byte { return b[17:][:2] } // BPB_RootEntCnt
func (b *bootSector) totSec16() []byte   { return b[19:][:2] } // BPB_TotSec16
func (b *bootSector) media() []byte      { return b[21:][:1] } // BPB_Media
func (b *bootSector) fatSz16() []byte    { return b[22:][:2] } // BPB_FATSz16
func (b *bootSector) secPerTrk() []byte  { return b[24:][:2] } // BPB_SecPerTrk
func (b *bootSector) numHeads() []byte   { return b[26:][:2] } // BPB_NumHeads
func (b *bootSector) hiddSec() []byte    { return b[28:][:4] } // BPB_HiddSec
func (b *bootSector) totSec32() []byte   { return b[32:][:4] } // BPB_TotSec32
func (b *bootSector) fatSz32() []byte    { return b[36:][:4] } // BPB_FATSz32
func (b *bootSector) extFlags() []byte   { return b[40:][:2] } // BPB_ExtFlags
func (b *bootSector) fsVer() []byte      { return b[42:][:2] } // BPB_FSVer
func (b *bootSector) rootClus() []byte   { return b[44:][:4] } // BPB_RootClus
func (b *bootSector) fsInfo() []byte     { return b[48:][:2] } // BPB_FSInfo
func (b *bootSector) bkBootSec() []byte  { return b[50:][:2] } // BPB_BkBootSec
func (b *bootSector) signature() []byte  { return b[510:][:2] }
func (b *bootSector) ext(fat32 bool) []byte {
	if fat32 {
		return b[64:]
	}
	return b[36:]
}
func (b *bootSector) drvNum(fat32 bool) []byte     { return b.ext(fat32)[0:][:1] }  // BS_DrvNum
func (b *bootSector) bootSig(fat32 bool) []byte    { return b.ext(fat32)[2:][:1] }  // BS_BootSig
func (b *bootSector) volID(fat32 bool) []byte      { return b.ext(fat32)[3:][:4] }  // BS_VolID
func (b *bootSector) volLab(fat32 bool) []byte     { return b.ext(fat32)[7:][:11] } // BS_VolLab
func (b *bootSector) filSysType(fat32 bool) []byte { return b.ext(fat32)[18:][:8] } // BS_FilSysType

// bootCodeOffset is where the boot code starts: right after BS_FilSysType.
func bootCodeOffset(fat32 bool) int {
	if fat32 {
		return 90
	}
	return 62
}

// fsInfoSector is the FAT32 FSInfo structure (fatgen103 "FAT32 FSInfo
// Sector Structure"); on sectors larger than 512 bytes it occupies the
// first 512 bytes.
type fsInfoSector [512]byte

func (f *fsInfoSector) leadSig() []byte   { return f[0:][:4] }   // FSI_LeadSig
func (f *fsInfoSector) strucSig() []byte  { return f[484:][:4] } // FSI_StrucSig
func (f *fsInfoSector) freeCount() []byte { return f[488:][:4] } // FSI_Free_Count
func (f *fsInfoSector) nxtFree() []byte   { return f[492:][:4] } // FSI_Nxt_Free
func (f *fsInfoSector) trailSig() []byte  { return f[508:][:4] } // FSI_TrailSig

// dirEntry is a 32-byte short (8.3) directory entry.
type dirEntry [32]byte

func (d *dirEntry) name() []byte         { return d[0:][:11] } // DIR_Name
func (d *dirEntry) attr() []byte         { return d[11:][:1] } // DIR_Attr
func (d *dirEntry) ntRes() []byte        { return d[12:][:1] } // DIR_NTRes
func (d *dirEntry) crtTimeTenth() []byte { return d[13:][:1] } // DIR_CrtTimeTenth
func (d *dirEntry) crtTime() []byte      { return d[14:][:2] } // DIR_CrtTime
func (d *dirEntry) crtDate() []byte      { return d[16:][:2] } // DIR_CrtDate
func (d *dirEntry) lstAccDate() []byte   { return d[18:][:2] } // DIR_LstAccDate
func (d *dirEntry) fstClusHI() []byte    { return d[20:][:2] } // DIR_FstClusHI
func (d *dirEntry) wrtTime() []byte      { return d[22:][:2] } // DIR_WrtTime
func (d *dirEntry) wrtDate() []byte      { return d[24:][:2] } // DIR_WrtDate
func (d *dirEntry) fstClusLO() []byte    { return d[26:][:2] } // DIR_FstClusLO
func (d *dirEntry) fileSize() []byte     { return d[28:][:4] } // DIR_FileSize

// firstCluster joins DIR_FstClusHI and DIR_FstClusLO.
func (d *dirEntry) firstCluster(fat32 bool) uint32 {
	c := uint32(le.Uint16(d.fstClusLO()))
	if fat32 {
		c |= uint32(le.Uint16(d.fstClusHI())) << 16
	}
	return c
}

// longEntry is a 32-byte long-name directory entry (fatgen103 "FAT Long
// Directory Entries"): 13 UTF-16 units in three pieces.
type longEntry [32]byte

func (l *longEntry) ord() []byte       { return l[0:][:1] }   // LDIR_Ord
func (l *longEntry) name1() []byte     { return l[1:][:10] }  // LDIR_Name1
func (l *longEntry) attr() []byte      { return l[11:][:1] }  // LDIR_Attr
func (l *longEntry) typ() []byte       { return l[12:][:1] }  // LDIR_Type
func (l *longEntry) chksum() []byte    { return l[13:][:1] }  // LDIR_Chksum
func (l *longEntry) name2() []byte     { return l[14:][:12] } // LDIR_Name2
func (l *longEntry) fstClusLO() []byte { return l[26:][:2] }  // LDIR_FstClusLO
func (l *longEntry) name3() []byte     { return l[28:][:4] }  // LDIR_Name3

// unit returns the i'th (0..12) UTF-16 unit of the entry's name piece.
func (l *longEntry) unit(i int) uint16 {
	switch {
	case i < 5:
		return le.Uint16(l.name1()[2*i:])
	case i < 11:
		return le.Uint16(l.name2()[2*(i-5):])
	default:
		return le.Uint16(l.name3()[2*(i-11):])
	}
}

func (l *longEntry) setUnit(i int, u uint16) {
	switch {
	case i < 5:
		le.PutUint16(l.name1()[2*i:], u)
	case i < 11:
		le.PutUint16(l.name2()[2*(i-5):], u)
	default:
		le.PutUint16(l.name3()[2*(i-11):], u)
	}
}

// shortNameChecksum is the checksum of an 11-byte short name stored in
// LDIR_Chksum of each long entry that belongs to it (fatgen103).
func shortNameChecksum(name []byte) byte {
	var s byte
	for _, c := range name[:11] {
		s = (s>>1 | s<<7) + c
	}
	return s
}

// FAT entry values.
const (
	fat12EOC  = 0xfff
	fat16EOC  = 0xffff
	fat32EOC  = 0x0fffffff
	fat32Mask = 0x0fffffff
)

// eoc returns the end-of-chain mark written for the FAT type.
func eoc(fatType int) uint32 {
	switch fatType {
	case 12:
		return fat12EOC
	case 16:
		return fat16EOC
	}
	return fat32EOC
}

// fatEntry reads entry n of a FAT held in fat.
func fatEntry(fat []byte, fatType int, n uint32) uint32 {
	switch fatType {
	case 12:
		off := n + n/2
		v := uint32(le.Uint16(fat[off:]))
		if n&1 != 0 {
			return v >> 4
		}
		return v & 0xfff
	case 16:
		return uint32(le.Uint16(fat[2*n:]))
	}
	return le.Uint32(fat[4*n:]) & fat32Mask
}

// setFATEntry writes entry n of a FAT held in fat. The top four bits of a
// FAT32 entry are kept, as the specification asks.
func setFATEntry(fat []byte, fatType int, n, v uint32) {
	switch fatType {
	case 12:
		off := n + n/2
		old := le.Uint16(fat[off:])
		if n&1 != 0 {
			old = old&0x000f | uint16(v&0xfff)<<4
		} else {
			old = old&0xf000 | uint16(v&0xfff)
		}
		le.PutUint16(fat[off:], old)
	case 16:
		le.PutUint16(fat[2*n:], uint16(v))
	default:
		old := le.Uint32(fat[4*n:])
		le.PutUint32(fat[4*n:], old&^fat32Mask|v&fat32Mask)
	}
}

// fatBytes is the number of bytes a FAT of the given type needs for n
// entries (including the two reserved ones).
func fatBytes(fatType int, n int64) int64 {
	switch fatType {
	case 12:
		return (n*3 + 1) / 2
	case 16:
		return n * 2
	}
	return n * 4
}

// FAT dates count from 1980 and end in 2107 (a 7-bit year field).
var (
	minDOSTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	maxDOSTime = time.Date(2107, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// dosTime encodes t in UTC as a FAT date, time and tenth field. The time
// field counts 2-second units, so odd seconds round down; tenth (0..199)
// keeps the odd second and the hundredths for DIR_CrtTimeTenth. Times
// before 1980 are clamped to 1980-01-01 00:00:00, times after 2107 to
// 2107-12-31 23:59:58.
func dosTime(t time.Time) (date, tm uint16, tenth uint8) {
	t = t.UTC()
	if t.Before(minDOSTime) {
		t = minDOSTime
	}
	if t.After(maxDOSTime) {
		t = maxDOSTime
	}
	date = uint16(t.Year()-1980)<<9 | uint16(t.Month())<<5 | uint16(t.Day())
	tm = uint16(t.Hour())<<11 | uint16(t.Minute())<<5 | uint16(t.Second()/2)
	tenth = uint8(t.Second()%2*100 + t.Nanosecond()/10000000)
	return date, tm, tenth
}

// fromDOSTime decodes a FAT date and time (and optional tenth) as UTC. A
// zero or invalid date gives the zero time.
func fromDOSTime(date, tm uint16, tenth uint8) time.Time {
	if date == 0 {
		return time.Time{}
	}
	year := int(date>>9) + 1980
	month := int(date >> 5 & 0xf)
	day := int(date & 0x1f)
	if month < 1 || month > 12 || day < 1 {
		return time.Time{}
	}
	hour := int(tm >> 11)
	min := int(tm >> 5 & 0x3f)
	sec := int(tm&0x1f) * 2
	if tenth > 199 {
		tenth = 0
	}
	sec += int(tenth) / 100
	ns := int(tenth) % 100 * 10000000
	return time.Date(year, time.Month(month), day, hour, min, sec, ns, time.UTC)
}
