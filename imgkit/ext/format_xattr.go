package ext

import "strconv"

// This file holds the on-disk layout of extended attributes as the
// kernel's fs/ext4/xattr.h defines it: the entries after an inode's
// i_extra_isize (struct ext4_xattr_ibody_header, then entries whose
// e_value_offs count from the first entry), and the block at i_file_acl
// (struct ext4_xattr_header, then entries whose e_value_offs count from
// the block's start). An entry with e_value_inum keeps its value in an
// inode of its own (the ea_inode feature). Kept apart from format.go so
// that the writer's and the reader's changes to the layout do not meet.

const (
	xattrHeaderSize = 32      // sizeof(struct ext4_xattr_header)
	xattrPad        = 4       // EXT4_XATTR_PAD: names and values are padded to it
	xattrSizeMax    = 1 << 24 // EXT4_XATTR_SIZE_MAX: the largest value an ea_inode holds

	xattrNameHashShift  = 5  // NAME_HASH_SHIFT
	xattrValueHashShift = 16 // VALUE_HASH_SHIFT
)

// xattrHeader is struct ext4_xattr_header, the first 32 bytes of an
// extended attribute block.
type xattrHeader []byte

func (h xattrHeader) hMagic() []byte    { return h[0x0:][:4] }
func (h xattrHeader) hRefcount() []byte { return h[0x4:][:4] }
func (h xattrHeader) hBlocks() []byte   { return h[0x8:][:4] }
func (h xattrHeader) hHash() []byte     { return h[0xc:][:4] }
func (h xattrHeader) hChecksum() []byte { return h[0x10:][:4] }

// eHash is e_hash of struct ext4_xattr_entry (its other fields are in
// format.go).
func (x xattrEntry) eHash() []byte { return x[12:][:4] }

// xattrPrefixes are the name prefixes of e_name_index
// (EXT4_XATTR_INDEX_*), as the kernel's handlers spell them; the two
// POSIX ACLs are whole names, their e_name empty.
var xattrPrefixes = [...]string{
	1: "user.",                    // EXT4_XATTR_INDEX_USER
	2: "system.posix_acl_access",  // EXT4_XATTR_INDEX_POSIX_ACL_ACCESS
	3: "system.posix_acl_default", // EXT4_XATTR_INDEX_POSIX_ACL_DEFAULT
	4: "trusted.",                 // EXT4_XATTR_INDEX_TRUSTED
	5: "lustre.",                  // EXT4_XATTR_INDEX_LUSTRE
	6: "security.",                // EXT4_XATTR_INDEX_SECURITY
	7: "system.",                  // EXT4_XATTR_INDEX_SYSTEM
	8: "system.richacl",           // EXT4_XATTR_INDEX_RICHACL
	9: "encryption.",              // EXT4_XATTR_INDEX_ENCRYPTION (fscrypt's context, e_name "c")
}

// xattrName is the full name of an attribute of index and e_name: the
// index's prefix and the name, or for an index without one "index N:"
// before it.
func xattrName(index byte, name []byte) string {
	if int(index) < len(xattrPrefixes) && xattrPrefixes[index] != "" {
		return xattrPrefixes[index] + string(name)
	}
	return "index " + strconv.Itoa(int(index)) + ":" + string(name)
}

// xattrHashEntry is e_hash as ext4_xattr_hash_entry computes it over an
// entry's name and the little-endian 32-bit words of its value (padded
// to 4 bytes). signed takes each name byte as a signed char, as kernels
// before 6.2 did on the machines whose char is signed
// (ext4_xattr_hash_entry_signed); the two differ only for bytes past
// 0x7f.
func xattrHashEntry(name, value []byte, signed bool) uint32 {
	var h uint32
	for _, c := range name {
		v := uint32(c)
		if signed {
			v = uint32(int32(int8(c)))
		}
		h = h<<xattrNameHashShift ^ h>>(32-xattrNameHashShift) ^ v
	}
	for i := 0; i < len(value); i += 4 {
		var w [4]byte
		copy(w[:], value[i:])
		h = h<<xattrValueHashShift ^ h>>(32-xattrValueHashShift) ^ le.Uint32(w[:])
	}
	return h
}
