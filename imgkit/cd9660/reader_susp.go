package cd9660

import (
	"encoding/binary"
	"strings"
	"time"
)

// RRIP holds what the Rock Ridge (RRIP 1.09 and 1.12) entries of a
// directory record say about a file.
type RRIP struct {
	// HasPX reports a PX entry: Mode (st_mode, type and permission bits),
	// Links, UID, GID and, in RRIP 1.12 entries, Serial (the file serial
	// number, 0 when absent).
	HasPX                         bool
	Mode, Links, UID, GID, Serial uint32
	// DevHigh and DevLow are the PN entry's Dev_t High and Dev_t Low.
	DevHigh, DevLow uint32
	// HasSL reports an SL entry; Link is the symbolic link's target, its
	// component records joined.
	HasSL bool
	Link  string
	// Name is the NM name, its continued entries joined, or "".
	Name string
	// The TF time stamps present, in UTC.
	Created, Modified, Accessed, Attributes, Backup, Expiration, Effective time.Time
	// HasCL reports a CL entry: the record stands for the relocated
	// directory at logical block ChildLink. ParentLink is a PL entry's
	// location, 0 when absent.
	HasCL                 bool
	ChildLink, ParentLink uint32
	// Relocated reports an RE entry: the directory is the relocated copy,
	// shown where its CL entry is.
	Relocated bool
	// Sparse reports an SF entry (RRIP 1.12 sparse file), whose data this
	// package does not read.
	Sparse bool
	// HasZF reports a ZF (or Z2) entry: the file's data is compressed
	// with ZFAlgorithm ("pz": zisofs, zlib in blocks of 2^ZFLog2 bytes,
	// behind a header of ZFHeaderWords 4-byte words), and ZFSize is its
	// size uncompressed. ZFVersion is the entry's version, 2 for zisofs2.
	HasZF                            bool
	ZFAlgorithm                      string
	ZFVersion, ZFHeaderWords, ZFLog2 uint8
	ZFSize                           uint64
}

// Limits on the system use of one directory record.
const (
	maxContinuations = 64      // CE entries followed
	maxSUSPBytes     = 1 << 16 // bytes of continuation areas read
	maxNameLen       = 4096    // bytes of an NM name or SL target
)

// A suspVisit is called for each SUSP entry with its byte offset in the
// image.
type suspVisit func(e suspEntry, off int64) error

// walkSUSP calls visit for each SUSP entry of the record rec at byte off,
// after the LEN_SKP bytes the SP entry announced, following CE entries
// into their continuation areas (SUSP 5.1). An ST entry, an entry too short
// or too long for the area, or the end of the area ends an area. A
// continuation area met twice, more than maxContinuations of them, or more
// than maxSUSPBytes bytes of them are errors.
func (f *FS) walkSUSP(rec dirRecord, off int64, visit suspVisit) error {
	su := rec.systemUse()
	skip := min(f.suspSkip, len(su))
	area, areaOff := []byte(su[skip:]), off+int64(dirRecordLen(int(rec[32]), 0)+skip)
	seen := map[int64]bool{}
	read := 0
	for {
		next, err := walkArea(area, areaOff, visit)
		if err != nil || next == nil {
			return err
		}
		loc, _ := get733(next.blockLocationOfContinuationArea())
		at, _ := get733(next.offsetToStartOfContinuationArea())
		n, _ := get733(next.lengthOfTheContinuationArea())
		start := int64(loc)*f.blockSize + int64(at)
		read += int(n)
		switch {
		case seen[start]:
			return formatErr(off, "CE", "continuation areas of the record at byte %#x loop at byte %#x", off, start)
		case len(seen) >= maxContinuations || read > maxSUSPBytes:
			return formatErr(off, "CE", "continuation areas of the record at byte %#x are too many or too long", off)
		}
		seen[start] = true
		area = make([]byte, n)
		if err := f.readAt(area, start); err != nil {
			return err
		}
		areaOff = start
	}
}

// walkArea calls visit for the entries of one system use area at byte
// off and returns its CE entry, if any.
func walkArea(area []byte, off int64, visit suspVisit) (suspEntry, error) {
	var next suspEntry
	for p := 0; p+suspHeaderLen <= len(area); {
		n := int(area[p+2])
		if n < suspHeaderLen || p+n > len(area) {
			break
		}
		e := suspEntry(area[p : p+n])
		sig := string(e.signatureWord())
		if sig == sigST {
			break
		}
		if sig == sigCE && n >= 28 {
			next = e
		}
		if err := visit(e, off+int64(p)); err != nil {
			return nil, err
		}
		p += n
	}
	return next, nil
}

// readRockRidge returns the Rock Ridge entries of record rec at byte off,
// or nil when it has none.
func (f *FS) readRockRidge(rec dirRecord, off int64) (*RRIP, error) {
	rr := new(RRIP)
	var link linkBuilder
	var name strings.Builder
	found := false
	err := f.walkSUSP(rec, off, func(e suspEntry, _ int64) error {
		if rr.addEntry(e, &link, &name) {
			found = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, nil
	}
	rr.Link = link.b.String()
	rr.Name = latin1([]byte(name.String()))
	if !validName(rr.Name) {
		rr.Name = ""
	}
	return rr, nil
}

// addEntry takes one SUSP entry into rr and reports whether it was an RRIP
// entry; entries shorter than their fixed fields are ignored.
func (rr *RRIP) addEntry(e suspEntry, link *linkBuilder, name *strings.Builder) bool {
	n := len(e)
	switch string(e.signatureWord()) {
	case sigPX:
		if n < 36 {
			return false
		}
		rr.HasPX = true
		rr.Mode, _ = get733(e.posixFileMode())
		rr.Links, _ = get733(e.posixFileLinks())
		rr.UID, _ = get733(e.posixFileUserID())
		rr.GID, _ = get733(e.posixFileGroupID())
		if n >= 44 {
			rr.Serial, _ = get733(e.posixFileSerialNumber())
		}
	case sigPN:
		if n < 20 {
			return false
		}
		rr.DevHigh, _ = get733(e.devTHigh())
		rr.DevLow, _ = get733(e.devTLow())
	case sigSL:
		if n < 5 {
			return false
		}
		rr.HasSL = true
		link.addComponents(e.componentArea())
	case sigNM:
		if n < 5 {
			return false
		}
		if e.flags()[0]&0x06 == 0 && name.Len()+n <= maxNameLen {
			name.Write(e.nameContent())
		}
	case sigTF:
		if n < 5 {
			return false
		}
		rr.addTimes(e.flags()[0], e.timeStamps())
	default:
		return rr.addLinkEntry(e)
	}
	return true
}

// addLinkEntry takes the CL, PL, RE and SF entries.
func (rr *RRIP) addLinkEntry(e suspEntry) bool {
	n := len(e)
	switch string(e.signatureWord()) {
	case sigCL:
		if n < 12 {
			return false
		}
		rr.HasCL = true
		rr.ChildLink, _ = get733(e.locationOfChildDirectory())
	case sigPL:
		if n < 12 {
			return false
		}
		rr.ParentLink, _ = get733(e.locationOfParentDirectory())
	case sigRE:
		rr.Relocated = true
	case sigSF:
		rr.Sparse = true
	case sigZF, sigZ2:
		return rr.addZF(e)
	default:
		return false
	}
	return true
}

// addZF takes a ZF or Z2 entry of 16 bytes; a shorter one is ignored.
func (rr *RRIP) addZF(e suspEntry) bool {
	if len(e) < 16 {
		return false
	}
	rr.HasZF = true
	rr.ZFAlgorithm = string(e.zfAlgorithm())
	rr.ZFVersion = e.systemUseEntryVersion()[0]
	rr.ZFHeaderWords = e.zfHeaderSizeDiv4()[0]
	rr.ZFLog2 = e.zfLog2BlockSize()[0]
	if rr.ZFVersion == 1 {
		n, _ := get733(e.zfUncompressedSize())
		rr.ZFSize = uint64(n)
	} else {
		rr.ZFSize = binary.LittleEndian.Uint64(e.zfUncompressedSize())
	}
	return true
}

// TF flags (RRIP 4.1.6): which time stamps are recorded, in this order,
// and whether they are in the 17-byte long form.
const tfLongForm = 0x80

// addTimes takes the time stamps of a TF entry with flags.
func (rr *RRIP) addTimes(flags byte, ts []byte) {
	dst := []*time.Time{&rr.Created, &rr.Modified, &rr.Accessed, &rr.Attributes, &rr.Backup, &rr.Expiration, &rr.Effective}
	size := 7
	if flags&tfLongForm != 0 {
		size = 17
	}
	for bit, t := range dst {
		if flags&(1<<bit) == 0 {
			continue
		}
		if len(ts) < size {
			return
		}
		if size == 7 {
			*t = dirTime(dirDateTime(ts[:7]))
		} else {
			*t = decTime(decDateTime(ts[:17]))
		}
		ts = ts[size:]
	}
}

// SL component record flags (RRIP 4.1.3.1).
const (
	compContinue = 0x01
	compCurrent  = 0x02
	compParent   = 0x04
	compRoot     = 0x08
)

// linkBuilder joins the component records of a symbolic link's SL
// entries as libarchive (bsdtar) and libisofs (xorriso) read them: each
// component is "/" for ROOT, "." for CURRENT, ".." for PARENT and its
// content otherwise, and a "/" goes before every component but the first,
// one after a ROOT component and one after a component with the CONTINUE
// flag, across SL entries as within one (libarchive and libisofs drop the
// separator between entries; Linux's isofs does not). A ROOT component
// that is not first therefore doubles a "/": ROOT, "tmp", ROOT, PARENT is
// "/tmp//..".
type linkBuilder struct {
	b       strings.Builder
	started bool // a component has been written
	joined  bool // the next component takes no "/" before it
}

// addComponents adds the component records of one SL entry's area.
func (l *linkBuilder) addComponents(area []byte) {
	for p := 0; p+2 <= len(area); {
		flags, n := area[p], int(area[p+1])
		if p+2+n > len(area) {
			return
		}
		content := area[p+2 : p+2+n]
		p += 2 + n
		if l.b.Len()+n+3 > maxNameLen {
			return
		}
		if l.started && !l.joined {
			l.b.WriteByte('/')
		}
		switch {
		case flags&compRoot != 0:
			l.b.WriteByte('/')
		case flags&compCurrent != 0:
			l.b.WriteByte('.')
		case flags&compParent != 0:
			l.b.WriteString("..")
		default:
			l.b.WriteString(latin1(content))
		}
		l.started = true
		l.joined = flags&(compRoot|compContinue) != 0
	}
}
