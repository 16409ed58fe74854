package cd9660

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// tree describes the directory records of every file and directory of the
// tree of f, depth-first in name order, with prefix before each path, and
// the data of each regular file when prefix is "".
func (l *fieldList) tree(f *FS, prefix string) error {
	type item struct {
		p string
		e *Entry
	}
	stack := []item{{"/", f.root}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for i, off := range it.e.recOffs {
			rec, err := f.recordAt(off)
			if err != nil {
				return err
			}
			name := ""
			if i > 0 {
				name = "record " + strconv.Itoa(i+1) + " "
			}
			l.record(f, prefix+it.p, name, rec, off)
		}
		if it.e.dir {
			l.dotRecords(f, prefix+it.p, it.e)
		} else if prefix == "" && it.e.mode().IsRegular() {
			l.data(prefix+it.p, it.e)
		}
		kids := slices.Clone(it.e.kids)
		slices.SortFunc(kids, func(a, b *Entry) int { return strings.Compare(b.Name, a.Name) })
		for _, k := range kids {
			stack = append(stack, item{path.Join(it.p, k.Name), k})
		}
	}
	return nil
}

// recordAt reads the directory record at byte off.
func (f *FS) recordAt(off int64) (dirRecord, error) {
	var n [1]byte
	if err := f.readAt(n[:], off); err != nil {
		return nil, err
	}
	if int(n[0]) < dirRecordFixedLen+1 {
		return nil, formatErr(off, "Length of Directory Record", "bad directory record at byte %#x", off)
	}
	rec := make(dirRecord, n[0])
	if err := f.readAt(rec, off); err != nil {
		return nil, err
	}
	if dirRecordLen(int(rec[32]), 0) > len(rec) {
		return nil, formatErr(off+32, "Length of File Identifier", "bad directory record at byte %#x", off)
	}
	return rec, nil
}

// dotRecords describes the "." and ".." records that start directory e,
// as the paths p+"/." and p+"/..".
func (l *fieldList) dotRecords(f *FS, p string, e *Entry) {
	x := e.extents[0]
	for i, off := 0, x.off; i < 2 && off < x.off+min(x.n, SectorSize); i++ {
		rec, err := f.recordAt(off)
		if err != nil {
			return
		}
		id := rec.fileIdentifier()
		if len(id) != 1 || id[0] != byte(i) {
			return
		}
		l.record(f, strings.TrimSuffix(p, "/")+"/"+[]string{".", ".."}[i], "", rec, off)
		off += int64(len(rec))
	}
}

// record describes the directory record rec at byte off, with pre before
// each field name, and its system use area.
func (l *fieldList) record(f *FS, p, pre string, rec dirRecord, off int64) {
	add := func(name string, b []byte, value string) { l.add(p, pre+name, off, rec, b, value) }
	add("Length of Directory Record", rec.lengthOfDirectoryRecord(), byteNum(rec.lengthOfDirectoryRecord()))
	add("Extended Attribute Record Length", rec.extendedAttributeRecordLength(), byteNum(rec.extendedAttributeRecordLength()))
	add("Location of Extent", rec.locationOfExtent(), num733(rec.locationOfExtent()))
	add("Data Length", rec.dataLength(), num733(rec.dataLength()))
	add("Recording Date and Time", rec.recordingDateAndTime(), dirTimeString(rec.recordingDateAndTime()))
	add("File Flags", rec.fileFlags(), flagsString(rec.fileFlags()[0]))
	add("File Unit Size", rec.fileUnitSize(), byteNum(rec.fileUnitSize()))
	add("Interleave Gap Size", rec.interleaveGapSize(), byteNum(rec.interleaveGapSize()))
	add("Volume Sequence Number", rec.volumeSequenceNumber(), num723(rec.volumeSequenceNumber()))
	add("Length of File Identifier", rec.lengthOfFileIdentifier(), byteNum(rec.lengthOfFileIdentifier()))
	add("File Identifier", rec.fileIdentifier(), strconv.Quote(f.identifier(rec.fileIdentifier())))
	su := rec.systemUse()
	if len(su) == 0 {
		return
	}
	if f.ns != RockRidge {
		add("System Use", su, describe.Sum(su))
		return
	}
	count := map[string]int{}
	f.walkSUSP(rec, off, func(e suspEntry, eoff int64) error {
		name := suspName(string(e.signatureWord()))
		count[name]++
		if c := count[name]; c > 1 {
			name += " " + strconv.Itoa(c)
		}
		l.out = append(l.out, describe.Field{Path: p, Name: pre + name, Offset: eoff, Size: int64(len(e)), Value: suspValue(e)})
		return nil
	})
}

// suspName names an entry by its signature: "SUSP CE", "RRIP PX", or
// "SUSP entry ZF" for one of neither specification.
func suspName(sig string) string {
	switch sig {
	case sigCE, sigPD, sigSP, sigST, sigER, sigES:
		return "SUSP " + sig
	case sigRR, sigPX, sigPN, sigSL, sigNM, sigCL, sigPL, sigRE, sigTF, sigSF:
		return "RRIP " + sig
	}
	return "SUSP entry " + strconv.Quote(latin1([]byte(sig)))
}

// suspValue says what a SUSP or RRIP entry holds.
func suspValue(e suspEntry) string {
	v := "version " + byteNum(e.systemUseEntryVersion()) + ", "
	n := len(e)
	switch sig := string(e.signatureWord()); {
	case sig == sigSP && n >= 7:
		return v + fmt.Sprintf("check bytes %#x, LEN_SKP %d", e.checkBytes(), e.lenSkp()[0])
	case sig == sigCE && n >= 28:
		return v + "block " + num733(e.blockLocationOfContinuationArea()) + ", offset " + num733(e.offsetToStartOfContinuationArea()) +
			", length " + num733(e.lengthOfTheContinuationArea())
	case sig == sigER && n >= 8 && 8+int(e.lenID()[0])+int(e.lenDes()[0])+int(e.lenSrc()[0]) <= n:
		return v + fmt.Sprintf("%s version %d, descriptor %d bytes, source %d bytes", strconv.Quote(string(e.extensionIdentifier())),
			e.extVer()[0], e.lenDes()[0], e.lenSrc()[0])
	case sig == sigPX && n >= 36:
		s := fmt.Sprintf("mode %#o, links %s, uid %s, gid %s", le32(e.posixFileMode()), num733(e.posixFileLinks()),
			num733(e.posixFileUserID()), num733(e.posixFileGroupID()))
		if n >= 44 {
			s += ", serial " + num733(e.posixFileSerialNumber())
		}
		return v + s
	case sig == sigPN && n >= 20:
		return v + "high " + num733(e.devTHigh()) + ", low " + num733(e.devTLow())
	case sig == sigSL && n >= 5:
		var b linkBuilder
		b.addComponents(e.componentArea())
		return v + fmt.Sprintf("flags %#02x, components %s", e.flags()[0], strconv.Quote(b.b.String()))
	case sig == sigNM && n >= 5:
		return v + fmt.Sprintf("flags %#02x, %s", e.flags()[0], strconv.Quote(latin1(e.nameContent())))
	case sig == sigTF && n >= 5:
		return v + tfString(e.flags()[0], e.timeStamps())
	case sig == sigCL && n >= 12:
		return v + "block " + num733(e.locationOfChildDirectory())
	case sig == sigPL && n >= 12:
		return v + "block " + num733(e.locationOfParentDirectory())
	case (sig == sigZF || sig == sigZ2) && n >= 16:
		var rr RRIP
		rr.addZF(e)
		return v + fmt.Sprintf("algorithm %q, header %d words, block size 2^%d, uncompressed size %d",
			rr.ZFAlgorithm, rr.ZFHeaderWords, rr.ZFLog2, rr.ZFSize)
	case sig == sigSF && n >= 21:
		return v + "virtual size high " + num733(e.virtualFileSizeHigh()) + ", low " + num733(e.virtualFileSizeLow()) +
			", table depth " + byteNum(e.tableDepth())
	}
	return v + describe.Sum(e.data())
}

// tfString says the time stamps of a TF entry.
func tfString(flags byte, ts []byte) string {
	var rr RRIP
	rr.addTimes(flags, ts)
	names := [...]string{"creation", "modify", "access", "attributes", "backup", "expiration", "effective"}
	times := [...]time.Time{rr.Created, rr.Modified, rr.Accessed, rr.Attributes, rr.Backup, rr.Expiration, rr.Effective}
	s := fmt.Sprintf("flags %#02x", flags)
	for i, name := range names {
		switch {
		case flags&(1<<i) == 0:
		case times[i].IsZero():
			s += ", " + name + " not specified"
		default:
			s += ", " + name + " " + times[i].Format("2006-01-02 15:04:05.00 UTC")
		}
	}
	return s
}

// maxDataSpans bounds the spans listed for an interleaved file.
const maxDataSpans = 4096

// data describes the contents of regular file e at path p: its size, sum
// and the image ranges its extents cover.
func (l *fieldList) data(p string, e *Entry) {
	var spans [][2]int64
	for _, x := range e.extents {
		if x.unit == 0 {
			if x.n > 0 { // an empty file's extent holds none of its bytes
				spans = append(spans, [2]int64{x.off, x.off + x.n})
			}
			continue
		}
		for done := int64(0); done < x.n; done += x.unit {
			if len(spans) >= maxDataSpans {
				break
			}
			start := x.off + done/x.unit*(x.unit+x.gap)
			spans = append(spans, [2]int64{start, start + min(x.unit, x.n-done)})
		}
	}
	h := describe.NewHash()
	value := ""
	if l.budget -= min(e.Size, l.f.size); l.budget < 0 {
		value = describe.DataValue(e.Size, "not summed: the files' extents add up to more than four times the image")
	}
	for _, s := range spans {
		if value != "" {
			break
		}
		if err := h.AddRange(l.f.r, s[0], s[1]-s[0]); err != nil {
			value = describe.DataValue(e.Size, "unreadable: "+err.Error())
			break
		}
	}
	if value == "" {
		value = describe.DataValue(e.Size, h.Sum())
	}
	l.out = append(l.out, describe.Field{Path: p, Name: "data", Offset: -1, Value: value, Spans: spans})
}
