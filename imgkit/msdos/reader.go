package msdos

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// FS is a FAT12, FAT16 or FAT32 volume opened for reading. It implements
// fs.FS, fs.ReadDirFS, fs.StatFS and fs.ReadFileFS. Names are matched
// exactly as listed by ReadDir (the long name when there is one). An FS is
// safe for concurrent use when its io.ReaderAt is.
type FS struct {
	r          io.ReaderAt
	size       int64
	fatType    int
	bps        int64
	clusBytes  int64
	fatOff     int64
	fatBytes   int64
	rootOff    int64 // FAT12/16 root directory
	rootEnts   int64
	rootClus   uint32 // FAT32 root directory cluster
	dataOff    int64
	maxCluster uint32
	label      string
	volID      uint32
	fat        []byte // the first FAT, read whole
	root       *Entry
	warnings   []string // what a cut volume lacks (Warnings)
}

// Warnings says what the volume lacks, when the image ends before the
// volume does (a FAT image cut short): the volume's size and the image's,
// and each directory whose clusters lie past the image's end, which lists
// as empty. Reading a file's clusters past the end fails with an error
// wrapping imgfmt.ErrTruncated. It implements describe.Warner.
func (f *FS) Warnings() []string { return slices.Clone(f.warnings) }

// Entry describes one directory entry: what FAT stores about a file or
// directory. Sys() of the fs.FileInfo values from this package returns the
// *Entry.
type Entry struct {
	Name      string    // the long name, or the short name when there is none
	ShortName string    // the 8.3 name as NAME.EXT, bytes of 0x80 and above read as code page 850
	Attr      uint8     // DIR_Attr
	NTRes     uint8     // DIR_NTRes
	Created   time.Time // DIR_CrtDate, DIR_CrtTime, DIR_CrtTimeTenth (UTC)
	Modified  time.Time // DIR_WrtDate, DIR_WrtTime (UTC)
	Accessed  time.Time // DIR_LstAccDate (UTC, day precision)
	Cluster   uint32    // first cluster (DIR_FstClusHI:DIR_FstClusLO)
	Size      int64     // DIR_FileSize (0 for directories)
	Offset    int64     // byte offset of the short entry in the image
	chain     []uint32
	isRoot    bool
	kids      []*Entry // for directories: the entries, read by scan
	kidsErr   error    // why the directory could not be read
}

// maxDepth bounds how deep directories may nest.
const maxDepth = 256

// scan reads every directory once, depth-first from the root. A
// directory cluster belongs to the first directory entry that reaches it
// (in that order); later entries pointing at it (cross-linked or cyclic
// directories in a damaged image) are dropped, so the tree is finite and
// reading it costs at most one pass over the directories.
func (f *FS) scan() {
	claimed := map[uint32]bool{}
	if f.fatType == 32 {
		claimed[f.rootClus] = true
	}
	type item struct {
		e     *Entry
		path  string
		depth int
	}
	stack := []item{{f.root, "/", 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		kids, err := f.parseDir(it.e)
		if errors.Is(err, imgfmt.ErrTruncated) {
			// A directory of a cut volume whose clusters are past the
			// image's end lists as empty, and a warning says so.
			f.warnings = append(f.warnings, fmt.Sprintf("directory %s: %v; listed as empty", it.path, err))
			continue
		}
		if err != nil {
			it.e.kidsErr = err
			continue
		}
		keep := kids[:0]
		for _, k := range kids {
			if k.IsDir() {
				if claimed[k.Cluster] || it.depth >= maxDepth {
					continue
				}
				claimed[k.Cluster] = true
			}
			keep = append(keep, k)
		}
		it.e.kids = keep
		for i := len(keep) - 1; i >= 0; i-- {
			if keep[i].IsDir() {
				stack = append(stack, item{keep[i], it.path + keep[i].Name + "/", it.depth + 1})
			}
		}
	}
}

// readDir returns the entries of directory e.
func (f *FS) readDir(e *Entry) ([]*Entry, error) {
	return e.kids, e.kidsErr
}

// IsDir reports whether the entry is a directory.
func (e *Entry) IsDir() bool { return e.Attr&AttrDirectory != 0 }

// Chain returns the entry's cluster chain (nil for an empty file and for a
// FAT12/16 root directory).
func (e *Entry) Chain() []uint32 { return slices.Clone(e.chain) }

// A ReadCloser is a FAT volume opened from a file by OpenReader: an FS
// that must be closed when no longer needed. Close closes the image file;
// files of the FS opened before cannot be read after it.
type ReadCloser struct {
	FS
	imgfmt.ImageFile
}

// OpenReader opens the FAT image file name and reads its volume as NewReader
// does.
func OpenReader(name string) (*ReadCloser, error) {
	rc := new(ReadCloser)
	var err error
	if rc.ImageFile, err = imgfmt.OpenImage(name, rc.FS.init); err != nil {
		return nil, err
	}
	return rc, nil
}

// formatErr returns the *imgfmt.FormatError, wrapping ErrFormat, of a
// structure at byte off (-1: none) whose field (as Microsoft's FAT
// specification names it, "" for none) is malformed.
func formatErr(off int64, field, format string, args ...any) error {
	return &imgfmt.FormatError{Format: "msdos", Off: off, Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrFormat}
}

// fatEntryOff returns the byte offset of cluster c's entry in the first
// FAT.
func (f *FS) fatEntryOff(c uint32) int64 {
	switch f.fatType {
	case 12:
		return f.fatOff + int64(c) + int64(c)/2
	case 16:
		return f.fatOff + 2*int64(c)
	}
	return f.fatOff + 4*int64(c)
}

// linkOff returns the byte offset of what points to the cluster after
// chain: the FAT entry of its last cluster, or -1 for an empty chain,
// whose first cluster a directory entry gave.
func (f *FS) linkOff(chain []uint32) int64 {
	if len(chain) == 0 {
		return -1
	}
	return f.fatEntryOff(chain[len(chain)-1])
}

// NewReader reads the FAT volume that starts at byte 0 of r, which holds size
// bytes. It checks the boot sector and reads the first FAT; directories
// and files are read when asked for.
func NewReader(r io.ReaderAt, size int64) (*FS, error) {
	f := new(FS)
	if err := f.init(r, size); err != nil {
		return nil, err
	}
	return f, nil
}

// init reads the volume of r into f, for NewReader and OpenReader.
func (f *FS) init(r io.ReaderAt, size int64) error {
	b, err := readBootSector(r, size)
	if err != nil {
		return err
	}
	v, err := parseBPB(b, size)
	if err != nil {
		return err
	}
	*f = FS{r: r, size: size, bps: v.bps, clusBytes: v.spc * v.bps}
	if vol := v.totSec * v.bps; vol > size {
		// Clusters past the image's end read as errors, not zeros.
		f.r = imgfmt.CutReader(r, size)
		field := "BPB_TotSec16 at byte 0x13"
		if le.Uint16(b.totSec16()) == 0 {
			field = "BPB_TotSec32 at byte 0x20"
		}
		f.warnings = append(f.warnings, fmt.Sprintf("volume of %d sectors (%d bytes, %s) ends past the image's end (%d bytes); listing what is there", v.totSec, vol, field, size))
	}
	need, err := f.setLayout(b, v)
	if err != nil {
		return err
	}
	// Read the first FAT: its size is bounded by the volume size checked
	// above.
	f.fat = make([]byte, need)
	if _, err := f.r.ReadAt(f.fat, f.fatOff); err != nil {
		return fmt.Errorf("msdos: reading FAT at byte %#x: %w", f.fatOff, err)
	}
	if err := f.setRoot(b); err != nil {
		return err
	}
	f.scan()
	return nil
}

// readBootSector reads the boot sector of the image of size bytes in r and
// checks its signature.
func readBootSector(r io.ReaderAt, size int64) (*bootSector, error) {
	var b bootSector
	if size < int64(len(b)) {
		return nil, formatErr(-1, "", "image of %d bytes is smaller than a boot sector", size)
	}
	if _, err := r.ReadAt(b[:], 0); err != nil {
		return nil, fmt.Errorf("msdos: reading boot sector: %w", err)
	}
	if le.Uint16(b.signature()) != bootSig {
		return nil, formatErr(0x1fe, "", "no boot signature 0x55 0xaa at byte 0x1fe")
	}
	return &b, nil
}

// totSecOff and totSecField name the field that holds the volume's
// sector count: BPB_TotSec16, or BPB_TotSec32 when that is 0.
func totSecOff(b *bootSector) int64 {
	if le.Uint16(b.totSec16()) == 0 {
		return 0x20
	}
	return 0x13
}

func totSecField(b *bootSector) string {
	if le.Uint16(b.totSec16()) == 0 {
		return "BPB_TotSec32"
	}
	return "BPB_TotSec16"
}

// fatSzOff and fatSzField name the field that holds a FAT's size in
// sectors: BPB_FATSz16, or BPB_FATSz32 when that is 0.
func fatSzOff(b *bootSector) int64 {
	if le.Uint16(b.fatSz16()) == 0 {
		return 0x24
	}
	return 0x16
}

func fatSzField(b *bootSector) string {
	if le.Uint16(b.fatSz16()) == 0 {
		return "BPB_FATSz32"
	}
	return "BPB_FATSz16"
}

// bpbValues are the BPB fields a reader needs, with the first data
// sector and the cluster count that follow from them.
type bpbValues struct {
	bps, spc, rsvd, nfats int64
	rootEnts, totSec      int64
	fatSz                 int64
	dataSec, clusters     int64
	// fat32Fields is set when BPB_FATSz16 is 0, so that the FAT's size
	// is in BPB_FATSz32, a field only FAT32 has.
	fat32Fields bool
}

// parseBPB reads the BPB of b and checks that it describes a volume
// within the image of size bytes, with room for data after its metadata.
func parseBPB(b *bootSector, size int64) (bpbValues, error) {
	var v bpbValues
	bps := int64(le.Uint16(b.bytsPerSec()))
	if bps < 512 || bps > 4096 || bps&(bps-1) != 0 {
		return v, formatErr(0xb, "BPB_BytsPerSec", "BPB_BytsPerSec %d at byte 0xb is not 512, 1024, 2048 or 4096", bps)
	}
	spc := int64(b.secPerClus()[0])
	if spc == 0 || spc&(spc-1) != 0 {
		return v, formatErr(0xd, "BPB_SecPerClus", "BPB_SecPerClus %d at byte 0xd is not a power of 2", spc)
	}
	rsvd := int64(le.Uint16(b.rsvdSecCnt()))
	if rsvd == 0 {
		return v, formatErr(0xe, "BPB_RsvdSecCnt", "BPB_RsvdSecCnt at byte 0xe is 0")
	}
	nfats := int64(b.numFATs()[0])
	if nfats == 0 {
		return v, formatErr(0x10, "BPB_NumFATs", "BPB_NumFATs at byte 0x10 is 0")
	}
	rootEnts := int64(le.Uint16(b.rootEntCnt()))
	totSec := int64(le.Uint16(b.totSec16()))
	if totSec == 0 {
		totSec = int64(le.Uint32(b.totSec32()))
	}
	fatSz := int64(le.Uint16(b.fatSz16()))
	fat32Fields := fatSz == 0
	if fat32Fields {
		fatSz = int64(le.Uint32(b.fatSz32()))
	}
	if fatSz == 0 {
		return v, formatErr(0x24, "BPB_FATSz32", "FAT size is 0 (BPB_FATSz16 at byte 0x16, BPB_FATSz32 at byte 0x24)")
	}
	rootSecs := (rootEnts*dirEntrySize + bps - 1) / bps
	dataSec := rsvd + nfats*fatSz + rootSecs
	if totSec*bps > size && min(dataSec, totSec)*bps > size {
		// A cut volume is read as far as it goes (FS.Warnings), but
		// not without its FATs and root directory.
		return v, formatErr(totSecOff(b), totSecField(b), "volume of %d sectors (%d bytes) extends beyond the image (%d bytes), which ends before its data area", totSec, totSec*bps, size)
	}
	if dataSec >= totSec {
		return v, formatErr(totSecOff(b), totSecField(b), "metadata (%d sectors) fills the volume (%d sectors)", dataSec, totSec)
	}
	clusters := (totSec - dataSec) / spc
	return bpbValues{bps: bps, spc: spc, rsvd: rsvd, nfats: nfats, rootEnts: rootEnts,
		totSec: totSec, fatSz: fatSz, dataSec: dataSec, clusters: clusters, fat32Fields: fat32Fields}, nil
}

// setLayout sets the FAT type from the cluster count, the offsets of the
// FAT, root directory and data area, and the volume id and label. It
// returns the bytes of FAT that the clusters need.
func (f *FS) setLayout(b *bootSector, v bpbValues) (int64, error) {
	clusters := v.clusters
	switch {
	case clusters < 4085:
		f.fatType = 12
	case clusters < 65525:
		f.fatType = 16
	default:
		f.fatType = 32
	}
	if f.fatType != 32 && v.fat32Fields && v.rootEnts == 0 {
		// A FAT32 volume with fewer clusters than the specification's
		// 65525 (mkfs.fat -F 32 of a small device): Linux's driver and
		// fsck.fat take the FAT's type from BPB_FATSz16 being 0, and so
		// does this reader, saying so.
		f.fatType = 32
		f.warnings = append(f.warnings, fmt.Sprintf("FAT32 by its BPB_FATSz16 of 0 and BPB_RootEntCnt of 0, with only %d clusters (the FAT specification counts %d as FAT%d); read as FAT32, as Linux and fsck.fat read it", clusters, clusters, map[bool]int{true: 12, false: 16}[clusters < 4085]))
	}
	fat32 := f.fatType == 32
	if fat32 != (v.rootEnts == 0) {
		return 0, formatErr(0x11, "BPB_RootEntCnt", "BPB_RootEntCnt %d at byte 0x11 does not suit FAT%d (%d clusters)", v.rootEnts, f.fatType, clusters)
	}
	f.fatOff = v.rsvd * v.bps
	f.fatBytes = v.fatSz * v.bps
	need := fatBytes(f.fatType, clusters+reservedFATEnts)
	if need > f.fatBytes {
		return 0, formatErr(fatSzOff(b), fatSzField(b), "FAT of %d bytes cannot hold %d clusters", f.fatBytes, clusters)
	}
	f.rootOff = (v.rsvd + v.nfats*v.fatSz) * v.bps
	f.rootEnts = v.rootEnts
	f.dataOff = v.dataSec * v.bps
	f.maxCluster = uint32(clusters + 1)
	if b.bootSig(fat32)[0] == extBootSig {
		f.volID = le.Uint32(b.volID(fat32))
		f.label = strings.TrimRight(string(b.volLab(fat32)), " ")
	}
	return need, nil
}

// setRoot makes the root directory's Entry, with the cluster chain of a
// FAT32 root directory.
func (f *FS) setRoot(b *bootSector) error {
	f.root = &Entry{Name: ".", Attr: AttrDirectory, isRoot: true}
	if f.fatType == 32 {
		f.rootClus = le.Uint32(b.rootClus())
		chain, err := f.dirChain(f.rootClus)
		if err != nil {
			return fmt.Errorf("root directory: %w", err)
		}
		f.root.Cluster = f.rootClus
		f.root.chain = chain
	}
	return nil
}

// FATType returns 12, 16 or 32.
func (f *FS) FATType() int { return f.fatType }

// VolumeID returns BS_VolID.
func (f *FS) VolumeID() uint32 { return f.volID }

// Label returns BS_VolLab without trailing blanks.
func (f *FS) Label() string { return f.label }

// ClusterSize returns the cluster size in bytes.
func (f *FS) ClusterSize() int64 { return f.clusBytes }

// chainOf follows the chain from start. want, when not negative, is the
// number of clusters the caller needs; the walk stops there. A chain that
// loops, leaves the volume or ends early is an error.
func (f *FS) chainOf(start uint32, want int64) ([]uint32, error) {
	if want == 0 {
		return nil, nil
	}
	limit := int64(f.maxCluster) - 1
	if want > limit {
		return nil, formatErr(-1, "", "%d clusters needed from cluster %d; the volume has %d", want, start, limit)
	}
	var chain []uint32
	var seen map[uint32]bool
	c := start
	for {
		if c < reservedFATEnts || c > f.maxCluster {
			return nil, formatErr(f.linkOff(chain), "", "cluster %d in chain from %d is outside 2..%d", c, start, f.maxCluster)
		}
		if k := len(chain); k > 0 && c <= chain[k-1] {
			// A backward jump: from here on, remember every cluster to
			// catch a chain that loops.
			if seen == nil {
				seen = make(map[uint32]bool, len(chain))
				for _, x := range chain {
					seen[x] = true
				}
			}
		}
		if seen != nil {
			if seen[c] {
				return nil, formatErr(f.linkOff(chain), "", "cluster chain from %d loops at cluster %d", start, c)
			}
			seen[c] = true
		}
		chain = append(chain, c)
		if want > 0 && int64(len(chain)) == want {
			return chain, nil
		}
		if int64(len(chain)) > limit {
			return nil, formatErr(f.linkOff(chain), "", "cluster chain from %d loops", start)
		}
		next := fatEntry(f.fat, f.fatType, c)
		if next >= eoc(f.fatType)&^7 {
			if want > 0 {
				return nil, formatErr(f.linkOff(chain), "", "cluster chain from %d ends after %d clusters; %d needed", start, len(chain), want)
			}
			return chain, nil
		}
		c = next
	}
}

// maxDirBytes is the largest directory FAT allows: 65536 entries.
const maxDirBytes = maxDirSlots * dirEntrySize

// dirChain follows a directory's chain, which may not exceed maxDirBytes.
func (f *FS) dirChain(start uint32) ([]uint32, error) {
	var chain []uint32
	c := start
	for {
		if c < reservedFATEnts || c > f.maxCluster {
			return nil, formatErr(f.linkOff(chain), "", "cluster %d in directory chain from %d is outside 2..%d", c, start, f.maxCluster)
		}
		chain = append(chain, c)
		if int64(len(chain))*f.clusBytes > max(maxDirBytes, f.clusBytes) {
			return nil, formatErr(f.linkOff(chain[:len(chain)-1]), "", "directory chain from cluster %d is longer than 65536 entries (or loops)", start)
		}
		next := fatEntry(f.fat, f.fatType, c)
		if next >= eoc(f.fatType)&^7 {
			return chain, nil
		}
		c = next
	}
}

func (f *FS) clusterOff(c uint32) int64 {
	return f.dataOff + int64(c-reservedFATEnts)*f.clusBytes
}

// parseDir reads and parses the directory e.
func (f *FS) parseDir(e *Entry) ([]*Entry, error) {
	data, offs, chunk, err := f.readDirData(e)
	if err != nil {
		return nil, err
	}
	var out []*Entry
	var ln longName
	seen := map[string]bool{}
	for p := 0; p+dirEntrySize <= len(data); p += dirEntrySize {
		raw := data[p : p+dirEntrySize]
		if raw[0] == slotFree {
			break
		}
		if raw[0] == slotDeleted {
			ln.reset()
			continue
		}
		if raw[11]&attrLongMask == attrLongName {
			ln.add((*longEntry)(raw))
			continue
		}
		d := (*dirEntry)(raw)
		if d.attr()[0]&AttrVolumeID != 0 || isDotEntry(raw) {
			ln.reset()
			continue
		}
		ent := f.entryOf(d, offs[int64(p)/chunk]+int64(p)%chunk)
		if name := ln.name(d.name()); name != "" {
			ent.Name = name
		}
		ln.reset()
		if !usableEntry(ent, seen) {
			continue
		}
		seen[ent.Name] = true
		out = append(out, ent)
	}
	return out, nil
}

// readDirData reads the directory e: the FAT12/16 root directory's
// sectors, or the clusters of e's chain. It returns the bytes, the image
// offset of each chunk (the root directory or a cluster) and the chunk
// size; a directory without a cluster has no bytes.
func (f *FS) readDirData(e *Entry) (data []byte, offs []int64, chunk int64, err error) {
	if e.isRoot && f.fatType != 32 {
		data = make([]byte, f.rootEnts*dirEntrySize)
		if _, err := f.r.ReadAt(data, f.rootOff); err != nil {
			return nil, nil, 0, fmt.Errorf("msdos: reading root directory at byte %#x: %w", f.rootOff, err)
		}
		return data, []int64{f.rootOff}, int64(len(data)), nil
	}
	chain := e.chain
	if chain == nil {
		if e.Cluster == 0 {
			return nil, nil, 0, nil
		}
		if chain, err = f.dirChain(e.Cluster); err != nil {
			return nil, nil, 0, err
		}
		e.chain = chain
	}
	data = make([]byte, int64(len(chain))*f.clusBytes)
	for i, c := range chain {
		off := f.clusterOff(c)
		offs = append(offs, off)
		if _, err := f.r.ReadAt(data[int64(i)*f.clusBytes:][:f.clusBytes], off); err != nil {
			return nil, nil, 0, fmt.Errorf("msdos: reading directory cluster %d at byte %#x: %w", c, off, err)
		}
	}
	return data, offs, f.clusBytes, nil
}

// longName gathers the slots of a long name, which come in reverse order
// before their short entry: the UTF-16 units, the checksum of the short
// name they belong to, and the ordinal the next slot must have.
type longName struct {
	units []uint16
	sum   byte
	next  int
}

// reset drops the long name gathered so far.
func (ln *longName) reset() { ln.units, ln.next = nil, 0 }

// add takes the long-name slot l: the last slot (which comes first)
// starts a name of up to 20 slots; any other must follow in order with
// the same checksum, or the name is dropped.
func (ln *longName) add(l *longEntry) {
	ord := int(l.ord()[0])
	if ord&lastLongOrd != 0 {
		n := ord &^ lastLongOrd
		if n == 0 || n > 20 {
			ln.reset()
			return
		}
		ln.units = make([]uint16, n*charsPerSlot)
		ln.sum = l.chksum()[0]
		ln.next = n
	} else if ord != ln.next || l.chksum()[0] != ln.sum || ln.units == nil {
		ln.reset()
		return
	}
	for i := 0; i < charsPerSlot; i++ {
		ln.units[(ln.next-1)*charsPerSlot+i] = l.unit(i)
	}
	ln.next--
}

// name returns the long name gathered, up to its NUL or 0xffff padding,
// when every slot is in and their checksum is that of the short name
// short; it returns "" otherwise.
func (ln *longName) name(short []byte) string {
	if ln.units == nil || ln.next != 0 || ln.sum != shortNameChecksum(short) {
		return ""
	}
	n := 0
	for n < len(ln.units) && ln.units[n] != 0 && ln.units[n] != 0xffff {
		n++
	}
	return string(utf16.Decode(ln.units[:n]))
}

// isDotEntry reports whether the directory entry raw is "." or "..".
func isDotEntry(raw []byte) bool {
	return raw[0] == '.' && (string(raw[:11]) == ".          " || string(raw[:11]) == "..         ")
}

// entryOf makes the Entry of the short directory entry d at image offset
// off, named by its short name.
func (f *FS) entryOf(d *dirEntry, off int64) *Entry {
	attr := d.attr()[0]
	ent := &Entry{
		ShortName: shortNameString(d.name(), d.ntRes()[0]),
		Attr:      attr,
		NTRes:     d.ntRes()[0],
		Created:   fromDOSTime(le.Uint16(d.crtDate()), le.Uint16(d.crtTime()), d.crtTimeTenth()[0]),
		Modified:  fromDOSTime(le.Uint16(d.wrtDate()), le.Uint16(d.wrtTime()), 0),
		Accessed:  fromDOSTime(le.Uint16(d.lstAccDate()), 0, 0),
		Cluster:   d.firstCluster(f.fatType == 32),
		Offset:    off,
	}
	ent.Name = ent.ShortName
	if !ent.IsDir() {
		ent.Size = int64(le.Uint32(d.fileSize()))
	}
	return ent
}

// usableEntry reports whether ent can be listed: its name is a valid
// fs.FS name not seen before in the directory (a bad or duplicate name
// would break fs.FS rules), and it is no directory without a cluster
// (which would be the FAT12/16 root again).
func usableEntry(ent *Entry, seen map[string]bool) bool {
	if !fs.ValidPath(ent.Name) || strings.Contains(ent.Name, "/") || ent.Name == "." || ent.Name == ".." || seen[ent.Name] {
		return false
	}
	return !(ent.IsDir() && ent.Cluster == 0)
}

// lookup finds the entry for a slash-separated path.
func (f *FS) lookup(op, name string) (*Entry, error) {
	return imgfmt.Tree[*Entry]{Root: f.rootEntry, Child: f.child}.Lookup(op, name, false)
}

// rootEntry returns the root directory.
func (f *FS) rootEntry() (*Entry, error) { return f.root, nil }

// child returns the entry name of directory dir.
func (f *FS) child(dir *Entry, name string) (*Entry, error) {
	if !dir.IsDir() {
		return nil, fs.ErrNotExist
	}
	list, err := f.readDir(dir)
	if err != nil {
		return nil, err
	}
	for _, c := range list {
		if c.Name == name {
			return c, nil
		}
	}
	return nil, fs.ErrNotExist
}

// Entry returns what the directory entry for name holds, including its
// cluster chain.
func (f *FS) Entry(name string) (*Entry, error) {
	e, err := f.lookup("entry", name)
	if err != nil {
		return nil, err
	}
	c := *e
	c.chain = slices.Clone(e.chain)
	if c.chain == nil && c.Cluster != 0 {
		// Only the copy gets the chain: the FS's entries are shared by
		// concurrent callers and are not written after NewReader.
		var err error
		if c.IsDir() {
			c.chain, err = f.dirChain(c.Cluster)
		} else {
			c.chain, err = f.chainOf(c.Cluster, (c.Size+f.clusBytes-1)/f.clusBytes)
		}
		if err != nil {
			return nil, &fs.PathError{Op: "entry", Path: name, Err: err}
		}
	}
	return &c, nil
}

// Open opens the named file or directory.
func (f *FS) Open(name string) (fs.File, error) {
	e, err := f.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if e.IsDir() {
		list, err := f.readDir(e)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &dir{DirReader: imgfmt.NewDirReader(name, dirEntries(list)), e: e}, nil
	}
	fl := &file{fsys: f, e: e}
	fl.FileReader = imgfmt.NewFileReader(name, e.Size, fl.readAt)
	if e.Size > 0 {
		if e.Cluster == 0 {
			return nil, &fs.PathError{Op: "open", Path: name, Err: formatErr(e.Offset+26, "DIR_FstClusLO", "file of %d bytes has no cluster", e.Size)}
		}
		if fl.chain, err = f.chainOf(e.Cluster, (e.Size+f.clusBytes-1)/f.clusBytes); err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
	}
	return fl, nil
}

// ReadDir reads the named directory, sorted by name.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := f.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !e.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	list, err := f.readDir(e)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	out := dirEntries(list)
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// dirEntries returns the fs.DirEntry of each entry of list.
func dirEntries(list []*Entry) []fs.DirEntry {
	out := make([]fs.DirEntry, len(list))
	for i, c := range list {
		out[i] = fs.FileInfoToDirEntry(&info{c})
	}
	return out
}

// Stat returns the fs.FileInfo of the named file.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	e, err := f.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return &info{e}, nil
}

// ReadFile reads the named file.
func (f *FS) ReadFile(name string) ([]byte, error) {
	fl, err := f.Open(name)
	if err != nil {
		return nil, err
	}
	defer fl.Close()
	r, ok := fl.(*file)
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	if int64(r.e.Size) > f.size {
		// Only a volume cut short (FS.Warnings) has room in its FAT for
		// a file larger than the image: its data cannot all be there,
		// and its size is not allocated.
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("file of %d bytes in an image of %d bytes: %w", r.e.Size, f.size, imgfmt.ErrTruncated)}
	}
	buf := make([]byte, r.e.Size)
	if _, err := r.ReadAt(buf, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return buf, nil
}

// info is the fs.FileInfo of an entry.
type info struct{ e *Entry }

func (i *info) Name() string {
	if i.e.isRoot {
		return "."
	}
	return i.e.Name
}
func (i *info) Size() int64 { return i.e.Size }
func (i *info) Mode() fs.FileMode {
	if i.e.IsDir() {
		return fs.ModeDir | 0o755
	}
	if i.e.Attr&AttrReadOnly != 0 {
		return 0o444
	}
	return 0o644
}
func (i *info) ModTime() time.Time { return i.e.Modified }
func (i *info) IsDir() bool        { return i.e.IsDir() }
func (i *info) Sys() any           { return i.e }

// file is an open regular file.
type file struct {
	imgfmt.FileReader
	fsys  *FS
	e     *Entry
	chain []uint32 // e's clusters, found by Open
}

func (fl *file) Stat() (fs.FileInfo, error) { return &info{fl.e}, nil }

// readAt reads the file's bytes at off through its cluster chain, for its
// FileReader.
func (fl *file) readAt(want []byte, off int64) (int, error) {
	cb := fl.fsys.clusBytes
	n := 0
	for n < len(want) {
		pos := off + int64(n)
		ci := pos / cb
		within := pos % cb
		// Read as many physically consecutive clusters as possible at once.
		run := int64(1)
		for ci+run < int64(len(fl.chain)) && fl.chain[ci+run] == fl.chain[ci]+uint32(run) && (run*cb-within) < int64(len(want)-n) {
			run++
		}
		chunk := min(int64(len(want)-n), run*cb-within)
		m, err := fl.fsys.r.ReadAt(want[n:n+int(chunk)], fl.fsys.clusterOff(fl.chain[ci])+within)
		n += m
		if err != nil && !(err == io.EOF && int64(m) == chunk) {
			return n, err
		}
	}
	return n, nil
}

// dir is an open directory; its DirReader lists its entries in on-disk
// order.
type dir struct {
	imgfmt.DirReader
	e *Entry
}

func (d *dir) Stat() (fs.FileInfo, error) { return &info{d.e}, nil }
