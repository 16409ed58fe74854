package ext

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// An Xattr is one extended attribute of an inode.
type Xattr struct {
	// Name is the attribute's full name: the prefix its e_name_index
	// stands for, then e_name ("user.mime_type", "security.selinux",
	// "system.posix_acl_access", "system.data").
	Name string
	// Value is the value as stored; a POSIX ACL is in ext4's compact
	// form (ext4_acl_header), not the form getxattr(2) gives.
	Value []byte
	// Inum is the inode that holds the value (the ea_inode feature), 0
	// when the value lies beside its entry.
	Inum uint32
	// InBlock says that the attribute is in the block at i_file_acl, not
	// in the inode's body after i_extra_isize.
	InBlock bool
}

// maxXattrValues bounds the bytes of ea_inode values that the attributes
// of one inode read: a crafted block can name an ea_inode of 16 MiB in
// each of its entries.
const maxXattrValues = 1 << 26

// Xattrs returns the extended attributes of name, not following a final
// symbolic link, sorted by name: those in the inode's body and those in
// its attribute block (i_file_acl), with values kept in ea_inodes read
// from them. An attribute block whose h_checksum (metadata_csum) or an
// entry whose e_hash does not match is a warning (Warnings); entries or
// values outside their block or inode are an error wrapping ErrFormat.
func (f *FS) Xattrs(name string) ([]Xattr, error) {
	in, err := f.lookup("xattrs", name, false)
	if err != nil {
		return nil, err
	}
	recs, _, err := f.xattrs(in)
	if err != nil {
		return nil, &fs.PathError{Op: "xattrs", Path: name, Err: err}
	}
	out := make([]Xattr, len(recs))
	for i, r := range recs {
		out[i] = r.Xattr
	}
	return out, nil
}

// xattrRec is one attribute read, with where it lies for Fields.
type xattrRec struct {
	Xattr
	entryOff int64  // byte offset of its ext4_xattr_entry in the image
	entryLen int64  // bytes of the entry, name included
	valueOff int64  // byte offset of the value, -1 for a value in an ea_inode
	hash     uint32 // e_hash
	wantHash uint32 // e_hash as computed
	hashOK   bool   // e_hash matches (either form of the name hash), or is 0 in an inode's body
}

// xattrBlock is an inode's attribute block, read.
type xattrBlock struct {
	blk      uint64
	raw      []byte
	wantCsum uint32 // h_checksum as computed
}

// off is the block's byte offset in the image.
func (b *xattrBlock) off(f *FS) int64 { return int64(b.blk) * f.g.bsize }

// rawXattr is one entry as parsed, its value not read yet.
type rawXattr struct {
	index byte
	name  []byte
	at    int    // the entry's offset in its region
	size  int    // the entry's bytes, name and padding included
	vo    int    // the value's offset in the region (e_value_offs from the base)
	vs    int    // e_value_size
	inum  uint32 // e_value_inum
	hash  uint32 // e_hash
}

// parseXattrEntries parses the entries of region b (an inode, or an
// attribute block) from byte first on, up to the 4 zero bytes that end
// them, as ext4_xattr_check_entries checks them: each entry and the end
// inside b, each value (at base plus e_value_offs) inside b past the
// entries, a value in an ea_inode only with that feature. off is b's
// byte offset in the image, what names b in errors.
func (f *FS) parseXattrEntries(b []byte, first, base int, off int64, what string) ([]rawXattr, error) {
	bad := func(pos int, field []byte, name, msg string, args ...any) error {
		at := off + int64(pos)
		if field != nil {
			at += fieldOff(b[pos:], field)
		}
		return formatErr(at, name, "%s: extended attribute entry at byte %#x: %s", what, off+int64(pos), fmt.Sprintf(msg, args...))
	}
	var out []rawXattr
	pos := first
	for {
		if pos < 0 || pos+4 > len(b) {
			return nil, bad(pos, nil, "", "the entries run past the end")
		}
		if le.Uint32(b[pos:]) == 0 {
			break
		}
		if pos+xattrEntryFixed > len(b) {
			return nil, bad(pos, nil, "", "header past the end")
		}
		e := xattrEntry(b[pos:])
		nl := int(e.eNameLen()[0])
		size := (xattrEntryFixed + nl + xattrPad - 1) &^ (xattrPad - 1)
		if pos+size+4 > len(b) {
			return nil, bad(pos, e.eNameLen(), "e_name_len", "e_name_len %d runs past the end", nl)
		}
		out = append(out, rawXattr{
			index: e.eNameIndex()[0], name: b[pos+xattrEntryFixed:][:nl:nl], at: pos, size: size,
			vo: base + int(le.Uint16(e.eValueOffs())), vs: int(le.Uint32(e.eValueSize())),
			inum: le.Uint32(e.eValueInum()), hash: le.Uint32(e.eHash()),
		})
		pos += size
	}
	valuesFrom := pos + 4
	for _, r := range out {
		e := xattrEntry(b[r.at:])
		switch {
		case r.inum != 0 && !f.hasIncompat(incompatEAInode):
			return nil, bad(r.at, e.eValueInum(), "e_value_inum", "e_value_inum %d without the ea_inode feature", r.inum)
		case r.inum != 0 && (r.vs > xattrSizeMax || r.vs < 0):
			return nil, bad(r.at, e.eValueSize(), "e_value_size", "e_value_size %d of a value in an inode", r.vs)
		case r.inum == 0 && r.vs != 0 && (r.vo < valuesFrom || r.vs > len(b) || r.vo > len(b)-r.vs):
			return nil, bad(r.at, e.eValueOffs(), "e_value_offs", "value of %d bytes at e_value_offs %d is outside the %d bytes after the entries", r.vs, r.vo-base, len(b)-valuesFrom)
		}
	}
	return out, nil
}

// xattrs reads the attributes of in, sorted by name, and its attribute
// block (nil without one).
func (f *FS) xattrs(in *Inode) ([]xattrRec, *xattrBlock, error) {
	var out []xattrRec
	budget := int64(maxXattrValues)
	n := in.raw
	if len(n) > goodOldInodeSize {
		start := goodOldInodeSize + int(le.Uint16(n.iExtraIsize()))
		if start+4 <= len(n) && le.Uint32(n[start:]) == xattrMagic {
			what := fmt.Sprintf("inode %d", in.Ino)
			ents, err := f.parseXattrEntries(n, start+4, start+4, in.off, what)
			if err != nil {
				return nil, nil, err
			}
			for _, e := range ents {
				r, err := f.xattrValue(n, e, in.off, what, false, &budget)
				if err != nil {
					return nil, nil, err
				}
				out = append(out, r)
			}
		}
	}
	var xb *xattrBlock
	if in.FileACL != 0 {
		var ents []rawXattr
		var err error
		if xb, ents, err = f.readXattrBlock(in); err != nil {
			return nil, nil, err
		}
		what := fmt.Sprintf("extended attribute block %d", xb.blk)
		for _, e := range ents {
			r, err := f.xattrValue(xb.raw, e, xb.off(f), what, true, &budget)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b xattrRec) int { return strings.Compare(a.Name, b.Name) })
	return out, xb, nil
}

// readXattrBlock reads and checks the attribute block of in: h_magic,
// h_blocks 1, the entries, and h_checksum with metadata_csum (crc32c of
// the seed, the block's number as 64 bits and the block with h_checksum
// zeroed, as ext4_xattr_block_csum computes it), a mismatch a warning.
func (f *FS) readXattrBlock(in *Inode) (*xattrBlock, []rawXattr, error) {
	blk := in.FileACL
	if blk < f.g.firstData || blk >= f.g.blocks {
		at := in.off + fieldOff(in.raw, in.raw.iFileACLLo())
		return nil, nil, formatErr(at, "i_file_acl_lo", "inode %d at byte %#x: i_file_acl %d is outside the file system", in.Ino, in.off, blk)
	}
	xb := &xattrBlock{blk: blk, raw: make([]byte, f.g.bsize)}
	if err := f.readBlock(xb.raw, blk, 0); err != nil {
		return nil, nil, err
	}
	h, off := xattrHeader(xb.raw), xb.off(f)
	if m := le.Uint32(h.hMagic()); m != xattrMagic {
		return nil, nil, formatErr(off, "h_magic", "inode %d: extended attribute block %d at byte %#x: h_magic %#x, not 0xea020000", in.Ino, blk, off, m)
	}
	if n := le.Uint32(h.hBlocks()); n != 1 {
		return nil, nil, formatErr(off+fieldOff(h, h.hBlocks()), "h_blocks", "inode %d: extended attribute block %d at byte %#x: h_blocks %d, not 1", in.Ino, blk, off, n)
	}
	what := fmt.Sprintf("extended attribute block %d", blk)
	ents, err := f.parseXattrEntries(xb.raw, xattrHeaderSize, 0, off, what)
	if err != nil {
		return nil, nil, err
	}
	if f.hasRoCompat(roCompatMetadataCsum) {
		xb.wantCsum = f.xattrBlockCsum(blk, xb.raw)
		if got := le.Uint32(h.hChecksum()); got != xb.wantCsum {
			f.warn(fmt.Sprintf("%s at byte %#x: h_checksum %#08x, computed %#08x", what, off, got, xb.wantCsum))
		}
	}
	return xb, ents, nil
}

// xattrBlockCsum is h_checksum's value for attribute block blk, b.
func (f *FS) xattrBlockCsum(blk uint64, b []byte) uint32 {
	h := xattrHeader(b)
	at := int(fieldOff(b, h.hChecksum()))
	var nr [8]byte
	binary.LittleEndian.PutUint64(nr[:], blk)
	c := crc32c(f.csumSeed, nr[:])
	c = crc32c(c, b[:at])
	c = crc32c(c, []byte{0, 0, 0, 0})
	return crc32c(c, b[at+4:])
}

// xattrValue reads the value of entry e of region b (at byte off of the
// image; what names it) and checks its e_hash: over the name and the
// value's words, or for a value in an ea_inode over the name and the
// crc32c of the value, which the ea_inode keeps in i_atime. inBlock says
// b is an attribute block, whose entries must carry e_hash; in an
// inode's body 0 is allowed (the kernel leaves it so). budget is what
// ea_inode values may still take.
func (f *FS) xattrValue(b []byte, e rawXattr, off int64, what string, inBlock bool, budget *int64) (xattrRec, error) {
	r := xattrRec{Xattr: Xattr{Name: xattrName(e.index, e.name), Inum: e.inum, InBlock: inBlock},
		entryOff: off + int64(e.at), entryLen: int64(e.size), valueOff: -1, hash: e.hash}
	var hashed []byte // the words e_hash covers after the name
	switch {
	case e.inum == 0 && e.vs == 0:
		r.Value = []byte{}
	case e.inum == 0:
		r.Value = b[e.vo:][:e.vs:e.vs] // parseXattrEntries checked it lies inside b
		r.valueOff = off + int64(e.vo)
		hashed = b[e.vo:min(len(b), e.vo+(e.vs+xattrPad-1)&^(xattrPad-1))]
	default:
		v, stored, err := f.eaInodeValue(e, what, budget)
		if err != nil {
			return r, err
		}
		r.Value = v
		c := crc32c(f.csumSeed, v)
		if stored != c {
			f.warn(fmt.Sprintf("%s: attribute %s: ea_inode %d: value hash (i_atime) %#08x, computed %#08x", what, r.Name, e.inum, stored, c))
		}
		hashed = binary.LittleEndian.AppendUint32(nil, c)
	}
	r.wantHash = xattrHashEntry(e.name, hashed, false)
	r.hashOK = r.hash == r.wantHash || r.hash == xattrHashEntry(e.name, hashed, true) || r.hash == 0 && !inBlock
	if !r.hashOK {
		f.warn(fmt.Sprintf("%s: attribute %s at byte %#x: e_hash %#08x, computed %#08x", what, r.Name, r.entryOff, r.hash, r.wantHash))
	}
	return r, nil
}

// eaInodeValue reads the value of entry e from its ea_inode, which must
// have EXT4_EA_INODE_FL and e_value_size bytes, and returns it with the
// hash the inode keeps in i_atime.
func (f *FS) eaInodeValue(e rawXattr, what string, budget *int64) ([]byte, uint32, error) {
	if *budget -= int64(e.vs); *budget < 0 {
		return nil, 0, formatErr(-1, "e_value_size", "%s: values in ea_inodes of more than %d bytes", what, maxXattrValues)
	}
	vin, err := f.inode(e.inum)
	if err != nil {
		return nil, 0, err
	}
	if vin.Flags&eaInodeFL == 0 || vin.typ() != sIFREG || vin.Size != int64(e.vs) {
		return nil, 0, formatErr(vin.off, "", "%s: attribute value in inode %d at byte %#x, which is not an ea_inode of %d bytes (i_flags %#x, i_mode %#o, i_size %d)",
			what, e.inum, vin.off, e.vs, vin.Flags, vin.Mode, vin.Size)
	}
	var m blockMap
	if vin.Flags&inlineDataFL == 0 {
		if m, err = f.mapOf(vin); err != nil {
			return nil, 0, err
		}
	}
	v := make([]byte, e.vs)
	if err := f.readData(vin, m, v, 0); err != nil {
		return nil, 0, err
	}
	return v, le.Uint32(vin.raw.iAtime()), nil
}
