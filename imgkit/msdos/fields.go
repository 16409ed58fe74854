package msdos

import (
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// This file is the package's side of the format contract of
// imgkit/inspect/describe:
// Match recognises a FAT volume, Fields describes one field by field, for
// tools that explain how two images differ (imgkit/inspect, "fixturegen
// diff"), and Describe puts them together. Field names are those of
// fatgen103 (BPB_SecPerClus, DIR_WrtTime, FSI_Free_Count, ...); a Field's
// Path is "boot sector", "backup boot sector", "FSInfo", "FAT 1", or the
// path of a file or directory ("/DIR/A.TXT", by its long name when it has
// one).

// First bytes of BS_jmpBoot (fatgen103): a short jump (EB xx 90) or a near
// jump (E9 xx xx) over the BPB to the boot code.
const (
	jmpShort = 0xeb
	jmpNear  = 0xe9
)

// Match reports whether head, the first bytes of a file, starts a FAT
// volume: a jump instruction in BS_jmpBoot, a power-of-two BPB_BytsPerSec
// from 512 to 4096, a power-of-two BPB_SecPerClus, a BPB_RsvdSecCnt and
// BPB_NumFATs other than 0 (fatgen103 allows neither to be 0; an NTFS
// boot sector, which has the rest, has 0 in both) and the signature word
// 0x55 0xAA at byte 510.
func Match(head []byte) bool {
	if len(head) < len(bootSector{}) {
		return false
	}
	b := (*bootSector)(head)
	if le.Uint16(b.signature()) != bootSig {
		return false
	}
	if j := b.jmpBoot()[0]; j != jmpShort && j != jmpNear {
		return false
	}
	bps := le.Uint16(b.bytsPerSec())
	spc := b.secPerClus()[0]
	return bps >= minBytesPerSector && bps <= maxBytesPerSector && bps&(bps-1) == 0 && spc != 0 && spc&(spc-1) == 0 &&
		le.Uint16(b.rsvdSecCnt()) != 0 && b.numFATs()[0] != 0
}

// Describe returns the format contract of FAT volumes, for
// imgkit/inspect's registry: Match, NewReader, Fields, a summary ("FAT12,
// 512-byte clusters") and the short name of each file as the listing's
// column.
func Describe() describe.Kind {
	return describe.Kind{
		Name:    "msdos",
		Match:   Match,
		Open:    describe.OpenAs(NewReader),
		Fields:  Fields,
		Summary: describe.SummaryOf(summary),
		Column:  describe.ColumnOf(shortNameColumn),
	}
}

// summary says the FAT type and cluster size of a volume NewReader returned.
func summary(f *FS) string {
	return "FAT" + strconv.Itoa(f.FATType()) + ", " + strconv.FormatInt(f.ClusterSize(), 10) + "-byte clusters"
}

// shortNameColumn returns the 8.3 name of a file of the FS.
func shortNameColumn(e *Entry) string { return e.ShortName }

// Fields describes the FAT volume at byte 0 of r (size bytes): the boot
// sector, the FAT32 FSInfo and backup boot sectors, each FAT as a whole,
// and for every file and directory its directory entry field by field, its
// long name, cluster chain and data. Fields are listed in that order, files
// depth-first in directory order; each (Path, Name) pair appears once.
func Fields(r io.ReaderAt, size int64) ([]describe.Field, error) {
	f, err := NewReader(r, size)
	if err != nil {
		return nil, err
	}
	var out []describe.Field
	var b bootSector
	if _, err := r.ReadAt(b[:], 0); err != nil {
		return nil, fmt.Errorf("msdos: reading boot sector: %w", err)
	}
	fat32 := f.fatType == 32
	out = bootFields(out, "boot sector", 0, &b, fat32)
	if fat32 {
		if s := int64(le.Uint16(b.fsInfo())); s != 0 && s != 0xffff && (s+1)*f.bps <= size {
			var fi fsInfoSector
			off := s * f.bps
			if _, err := r.ReadAt(fi[:], off); err == nil {
				out = fsInfoFields(out, off, &fi)
			}
		}
		if s := int64(le.Uint16(b.bkBootSec())); s != 0 && s != 0xffff && (s+1)*f.bps <= size {
			var bb bootSector
			if _, err := r.ReadAt(bb[:], s*f.bps); err == nil {
				out = bootFields(out, "backup boot sector", s*f.bps, &bb, fat32)
			}
		}
	}
	nfats := int64(b.numFATs()[0])
	for i := int64(0); i < nfats; i++ {
		off := f.fatOff + i*f.fatBytes
		if off+f.fatBytes > size {
			break
		}
		sum, err := hashRange(r, off, f.fatBytes)
		if err != nil {
			return nil, err
		}
		out = append(out, describe.Field{Path: "FAT " + strconv.FormatInt(i+1, 10), Name: "table", Offset: off, Size: f.fatBytes, Value: sum})
	}
	err = fs.WalkDir(f, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		e, err := f.Entry(p)
		if err != nil {
			return err
		}
		out, err = f.entryFields(out, "/"+p, e)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// bootFields appends the fields of a boot sector read at off.
func bootFields(out []describe.Field, where string, off int64, b *bootSector, fat32 bool) []describe.Field {
	add := func(name string, field []byte, value string) {
		out = append(out, describe.Field{Path: where, Name: name, Offset: off + fieldOff(b[:], field), Size: int64(len(field)), Value: value})
	}
	num := func(name string, field []byte) { add(name, field, fmtNum(field)) }
	add("BS_jmpBoot", b.jmpBoot(), hexBytes(b.jmpBoot()))
	add("BS_OEMName", b.oemName(), strconv.Quote(string(b.oemName())))
	num("BPB_BytsPerSec", b.bytsPerSec())
	num("BPB_SecPerClus", b.secPerClus())
	num("BPB_RsvdSecCnt", b.rsvdSecCnt())
	num("BPB_NumFATs", b.numFATs())
	num("BPB_RootEntCnt", b.rootEntCnt())
	num("BPB_TotSec16", b.totSec16())
	num("BPB_Media", b.media())
	num("BPB_FATSz16", b.fatSz16())
	num("BPB_SecPerTrk", b.secPerTrk())
	num("BPB_NumHeads", b.numHeads())
	num("BPB_HiddSec", b.hiddSec())
	num("BPB_TotSec32", b.totSec32())
	if fat32 {
		num("BPB_FATSz32", b.fatSz32())
		num("BPB_ExtFlags", b.extFlags())
		num("BPB_FSVer", b.fsVer())
		num("BPB_RootClus", b.rootClus())
		num("BPB_FSInfo", b.fsInfo())
		num("BPB_BkBootSec", b.bkBootSec())
		add("BPB_Reserved", b[52:64], hexBytes(b[52:64]))
	}
	num("BS_DrvNum", b.drvNum(fat32))
	add("BS_Reserved1", b.ext(fat32)[1:2], fmtNum(b.ext(fat32)[1:2]))
	num("BS_BootSig", b.bootSig(fat32))
	num("BS_VolID", b.volID(fat32))
	add("BS_VolLab", b.volLab(fat32), strconv.Quote(string(b.volLab(fat32))))
	add("BS_FilSysType", b.filSysType(fat32), strconv.Quote(string(b.filSysType(fat32))))
	code := b[bootCodeOffset(fat32):510]
	out = append(out, describe.Field{Path: where, Name: "boot code", Offset: off + int64(bootCodeOffset(fat32)), Size: int64(len(code)), Value: describe.Sum(code)})
	num("Signature_word", b.signature())
	return out
}

// fsInfoFields appends the fields of the FSInfo sector read at off.
func fsInfoFields(out []describe.Field, off int64, fi *fsInfoSector) []describe.Field {
	for _, x := range []struct {
		name  string
		field []byte
	}{
		{"FSI_LeadSig", fi.leadSig()},
		{"FSI_StrucSig", fi.strucSig()},
		{"FSI_Free_Count", fi.freeCount()},
		{"FSI_Nxt_Free", fi.nxtFree()},
		{"FSI_TrailSig", fi.trailSig()},
	} {
		out = append(out, describe.Field{Path: "FSInfo", Name: x.name, Offset: off + fieldOff(fi[:], x.field), Size: int64(len(x.field)), Value: fmtNum(x.field)})
	}
	return out
}

// entryFields appends the fields of the directory entry e at path p: its
// short entry, long name, cluster chain and, for a file, its data.
func (f *FS) entryFields(out []describe.Field, p string, e *Entry) ([]describe.Field, error) {
	var d dirEntry
	if _, err := f.r.ReadAt(d[:], e.Offset); err != nil {
		return nil, fmt.Errorf("msdos: reading the entry of %s at byte %#x: %w", p, e.Offset, err)
	}
	add := func(name string, field []byte, value string) {
		out = append(out, describe.Field{Path: p, Name: name, Offset: e.Offset + fieldOff(d[:], field), Size: int64(len(field)), Value: value})
	}
	num := func(name string, field []byte) { add(name, field, fmtNum(field)) }
	add("DIR_Name", d.name(), strconv.Quote(string(d.name())))
	add("DIR_Attr", d.attr(), attrString(d.attr()[0]))
	num("DIR_NTRes", d.ntRes())
	num("DIR_CrtTimeTenth", d.crtTimeTenth())
	add("DIR_CrtTime", d.crtTime(), dosTimeString(le.Uint16(d.crtTime())))
	add("DIR_CrtDate", d.crtDate(), dosDateString(le.Uint16(d.crtDate())))
	add("DIR_LstAccDate", d.lstAccDate(), dosDateString(le.Uint16(d.lstAccDate())))
	num("DIR_FstClusHI", d.fstClusHI())
	add("DIR_WrtTime", d.wrtTime(), dosTimeString(le.Uint16(d.wrtTime())))
	add("DIR_WrtDate", d.wrtDate(), dosDateString(le.Uint16(d.wrtDate())))
	num("DIR_FstClusLO", d.fstClusLO())
	num("DIR_FileSize", d.fileSize())
	if name := path.Base(p); f.hasLongName(e) {
		// The long-name entries lie just before the short entry when they
		// are in the same sector, as writers place them.
		n := int64(longSlots(utf16Units(name)))
		lf := describe.Field{Path: p, Name: "long name (LDIR_Name1/2/3)", Offset: -1, Value: strconv.Quote(name)}
		if start := e.Offset - n*dirEntrySize; n > 0 && start >= 0 && start/f.bps == e.Offset/f.bps {
			lf.Offset, lf.Size = start, n*dirEntrySize
		}
		out = append(out, lf)
	}
	chain := e.Chain()
	if len(chain) > 0 {
		out = append(out, describe.Field{Path: p, Name: "cluster chain", Offset: -1, Value: chainString(chain), Spans: f.fatSpans(chain)})
	}
	if !e.IsDir() {
		spans := f.clusterSpans(chain, e.Size)
		sum, err := f.dataHash(e.Size, spans)
		if err != nil {
			return nil, err
		}
		out = append(out, describe.Field{Path: p, Name: "data", Offset: -1, Value: sum, Spans: spans})
	}
	return out, nil
}

// hasLongName reports whether the entry before e's short entry, in the
// same sector, is a long-name entry.
func (f *FS) hasLongName(e *Entry) bool {
	if e.Offset < dirEntrySize || (e.Offset-dirEntrySize)/f.bps != e.Offset/f.bps {
		return e.Name != e.ShortName && !strings.EqualFold(e.Name, e.ShortName)
	}
	var l longEntry
	if _, err := f.r.ReadAt(l[:], e.Offset-dirEntrySize); err != nil {
		return false
	}
	return l.attr()[0]&attrLongMask == attrLongName && l.ord()[0] != slotDeleted
}

// dataHash returns the value of a file of size bytes whose data lies in
// spans (from clusterSpans): one read per run of contiguous clusters rather
// than one per cluster.
func (f *FS) dataHash(size int64, spans [][2]int64) (string, error) {
	h := describe.NewHash()
	for _, s := range spans {
		if err := h.AddRange(f.r, s[0], s[1]-s[0]); err != nil {
			return "", fmt.Errorf("msdos: reading bytes %#x-%#x: %w", s[0], s[1], err)
		}
	}
	return describe.DataValue(size, h.Sum()), nil
}

// clusterSpans returns the image ranges that the first size bytes of a
// chain occupy, merging contiguous clusters.
func (f *FS) clusterSpans(chain []uint32, size int64) [][2]int64 {
	var spans [][2]int64
	for _, c := range chain {
		if size <= 0 {
			break
		}
		n := min(size, f.clusBytes)
		off := f.clusterOff(c)
		if k := len(spans); k > 0 && spans[k-1][1] == off {
			spans[k-1][1] = off + n
		} else {
			spans = append(spans, [2]int64{off, off + n})
		}
		size -= n
	}
	return spans
}

// fatSpans returns the ranges of the first FAT that hold the chain's
// entries, one byte range per entry (two bytes for FAT12's 12-bit entries).
func (f *FS) fatSpans(chain []uint32) [][2]int64 {
	var spans [][2]int64
	for _, c := range chain {
		var off, n int64
		switch f.fatType {
		case 12:
			off, n = int64(c)*3/2, 2
		case 16:
			off, n = int64(c)*2, 2
		default:
			off, n = int64(c)*4, 4
		}
		off += f.fatOff
		if k := len(spans); k > 0 && spans[k-1][1] >= off {
			spans[k-1][1] = max(spans[k-1][1], off+n)
		} else {
			spans = append(spans, [2]int64{off, off + n})
		}
	}
	return spans
}

// hashRange returns the value of the n bytes at off, a FAT as a whole.
func hashRange(r io.ReaderAt, off, n int64) (string, error) {
	sum, err := describe.SumRange(r, off, n)
	if err != nil {
		return "", fmt.Errorf("msdos: reading bytes %#x-%#x: %w", off, off+n, err)
	}
	return sum, nil
}

// fieldOff returns the offset of field, a subslice of rec, within rec.
func fieldOff(rec, field []byte) int64 {
	return int64(cap(rec) - cap(field))
}

// fmtNum formats a little-endian field of 1, 2 or 4 bytes in decimal, with
// hex beside it when that differs.
func fmtNum(b []byte) string {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	if v < 10 {
		return strconv.FormatUint(v, 10)
	}
	return strconv.FormatUint(v, 10) + " (0x" + strconv.FormatUint(v, 16) + ")"
}

func hexBytes(b []byte) string { return hex.EncodeToString(b) }

func attrString(a byte) string {
	var names []string
	for _, x := range []struct {
		bit  byte
		name string
	}{{AttrReadOnly, "ATTR_READ_ONLY"}, {AttrHidden, "ATTR_HIDDEN"}, {AttrSystem, "ATTR_SYSTEM"},
		{AttrVolumeID, "ATTR_VOLUME_ID"}, {AttrDirectory, "ATTR_DIRECTORY"}, {AttrArchive, "ATTR_ARCHIVE"}} {
		if a&x.bit != 0 {
			names = append(names, x.name)
		}
	}
	if len(names) == 0 {
		return "0x00"
	}
	return fmt.Sprintf("%#02x %s", a, strings.Join(names, "|"))
}

func dosDateString(d uint16) string {
	return fmt.Sprintf("%04d-%02d-%02d (%#04x)", int(d>>9)+1980, d>>5&0xf, d&0x1f, d)
}

func dosTimeString(t uint16) string {
	return fmt.Sprintf("%02d:%02d:%02d (%#04x)", t>>11, t>>5&0x3f, int(t&0x1f)*2, t)
}

// chainString formats a cluster chain as runs: "5-9, 12".
func chainString(chain []uint32) string {
	var b strings.Builder
	for i := 0; i < len(chain); {
		j := i
		for j+1 < len(chain) && chain[j+1] == chain[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatUint(uint64(chain[i]), 10))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.FormatUint(uint64(chain[j]), 10))
		}
		i = j + 1
	}
	return b.String()
}

// utf16Units returns the length of name in UTF-16 units, for counting
// long-name entries.
func utf16Units(name string) int {
	n := 0
	for _, r := range name {
		n += utf16.RuneLen(r)
	}
	return n
}
