package cd9660

import (
	"io/fs"
	"strings"
)

// readRecords reads the directory records of the directory data x. A
// record lies within one logical sector; a zero length byte ends the
// records of a sector.
func (f *FS) readRecords(x extent) ([]rawRecord, error) {
	data := make([]byte, x.n)
	if err := f.readAt(data, x.off); err != nil {
		return nil, err
	}
	var out []rawRecord
	for sec := 0; sec < len(data); sec += SectorSize {
		end := min(sec+SectorSize, len(data))
		for p := sec; p < end; {
			n := int(data[p])
			if n == 0 {
				break
			}
			if n < dirRecordFixedLen+1 || p+n > end || dirRecordLen(int(data[p+32]), 0) > n {
				return nil, formatErr(x.off+int64(p), "Length of Directory Record", "bad directory record at byte %#x", x.off+int64(p))
			}
			out = append(out, rawRecord{off: x.off + int64(p), rec: dirRecord(data[p : p+n])})
			p += n
		}
	}
	return out, nil
}

// readDirEntries reads the entries of directory d, without "." and "..",
// associated files and relocated directories (which it counts), with the
// records of a multi-extent file joined into one entry. Entries whose
// names are not valid fs.FS names, or repeat an earlier name, are left
// out.
func (f *FS) readDirEntries(d *Entry) ([]*Entry, int, error) {
	recs, err := f.readRecords(d.extents[0])
	if err != nil {
		return nil, 0, err
	}
	var out []*Entry
	seen := map[string]bool{}
	var prev *Entry // a multi-extent file whose next record may follow
	relocated := 0
	for _, r := range recs {
		id := r.rec.fileIdentifier()
		if len(id) == 1 && id[0] <= 1 {
			if id[0] == 0 && d.isRoot && f.ns == RockRidge {
				if d.RockRidge, err = f.readRockRidge(r.rec, r.off); err != nil {
					return nil, 0, err
				}
			}
			prev = nil
			continue
		}
		if prev != nil && f.identifier(id) == prev.Identifier && r.rec.fileFlags()[0]&flagDirectory == 0 {
			f.addRecord(prev, r)
			if prev.Flags&flagMultiExtent == 0 {
				prev = nil
			}
			continue
		}
		prev = nil
		if r.rec.fileFlags()[0]&flagAssociatedFile != 0 {
			continue
		}
		e, reloc, err := f.dirEntry(r)
		if err != nil {
			return nil, 0, err
		}
		if reloc {
			relocated++
			continue
		}
		if e == nil {
			continue
		}
		if e.Flags&flagMultiExtent != 0 && !e.dir {
			prev = e
		}
		if !validName(e.Name) || seen[e.Name] {
			continue
		}
		seen[e.Name] = true
		out = append(out, e)
	}
	return out, relocated, nil
}

// dirEntry makes the entry of record r with its Rock Ridge entries. It
// reports a relocated directory (RE) instead, and returns a nil entry for
// a CL entry whose directory cannot be read.
func (f *FS) dirEntry(r rawRecord) (*Entry, bool, error) {
	e := f.entryOf(r.rec, r.off)
	if f.ns != RockRidge {
		return e, false, nil
	}
	rr, err := f.readRockRidge(r.rec, r.off)
	if err != nil || rr == nil {
		return e, false, err
	}
	if rr.Relocated {
		return nil, true, nil
	}
	e.RockRidge = rr
	if rr.Name != "" {
		e.Name = rr.Name
	}
	if rr.HasCL && f.followChildLink(e) != nil {
		return nil, false, nil
	}
	return e, false, nil
}

// addRecord adds record r, the next extent of multi-extent file e.
func (f *FS) addRecord(e *Entry, r rawRecord) {
	x := f.extentOf(r.rec)
	e.extents = append(e.extents, x)
	e.Size += x.n
	e.Flags = r.rec.fileFlags()[0]
	e.recOffs = append(e.recOffs, r.off)
	e.Records++
}

// followChildLink makes e, whose CL entry points at a relocated directory
// (RRIP 4.1.5.1), that directory: its extent and size are those of the
// "." record at the start of the block CL names.
func (f *FS) followChildLink(e *Entry) error {
	loc := e.RockRidge.ChildLink
	off := int64(loc) * f.blockSize
	if off < 0 || off+dirRecordFixedLen+1 > f.size {
		return formatErr(e.Offset, "CL", "CL entry of the record at byte %#x points outside the image", e.Offset)
	}
	b := make([]byte, min(255, f.size-off))
	if err := f.readAt(b, off); err != nil {
		return err
	}
	rec := dirRecord(b)
	if n := int(rec[0]); n < dirRecordFixedLen+1 || n > len(b) || rec[32] != 1 || rec[33] != 0 || rec.fileFlags()[0]&flagDirectory == 0 {
		return formatErr(e.Offset, "CL", "CL entry of the record at byte %#x: no directory at block %d", e.Offset, loc)
	}
	rec = rec[:rec[0]]
	e.dir = true
	e.Extent = loc
	x := f.extentOf(rec)
	e.extents = []extent{x}
	e.Size = x.n
	return nil
}

// validName reports whether name can be a file name in an fs.FS.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.Contains(name, "/") && fs.ValidPath(name)
}
