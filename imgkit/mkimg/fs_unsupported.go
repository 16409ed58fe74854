package mkimg

import (
	"bytes"
	"encoding/binary"
	"io"
)

// unsupportedFileSystem names, with its article, the file system that
// the disk in r (size bytes) begins with when it is one that fixturegen
// does not read, such as "an ext2 file system" or "an NTFS file system",
// from the file system's magic numbers; "" when it finds none. It only
// names: nothing of the file system past its magic is checked.
func unsupportedFileSystem(r io.ReaderAt, size int64) string {
	at := func(off int64, n int) []byte {
		b := make([]byte, n)
		if off < 0 || off+int64(n) > size {
			return nil
		}
		if _, err := r.ReadAt(b, off); err != nil {
			return nil
		}
		return b
	}
	switch oem := at(3, 8); {
	case bytes.Equal(oem, []byte("NTFS    ")):
		return "an NTFS file system"
	case bytes.Equal(oem, []byte("EXFAT   ")):
		return "an exFAT file system"
	}
	// The ext2/3/4 superblock at byte 1024: s_magic at 56, then
	// s_feature_compat, _incompat and _ro_compat at 92, 96 and 100.
	if sb := at(1024, 104); sb != nil && binary.LittleEndian.Uint16(sb[56:]) == 0xef53 {
		le := binary.LittleEndian
		compat, incompat, roCompat := le.Uint32(sb[92:]), le.Uint32(sb[96:]), le.Uint32(sb[100:])
		const journal = 0x4
		const ext3Incompat = 0x2 | 0x4 | 0x10 // filetype, recover, meta_bg
		const ext2RoCompat = 0x1 | 0x2 | 0x4  // sparse_super, large_file, btree_dir
		switch {
		case incompat&^ext3Incompat != 0 || roCompat&^ext2RoCompat != 0:
			return "an ext4 file system"
		case compat&journal != 0:
			return "an ext3 file system"
		}
		return "an ext2 file system"
	}
	if m := at(1024, 2); bytes.Equal(m, []byte("H+")) || bytes.Equal(m, []byte("HX")) {
		return "an HFS+ file system"
	}
	if m := at(0, 4); bytes.Equal(m, []byte("hsqs")) || bytes.Equal(m, []byte("sqsh")) {
		return "a squashfs file system"
	} else if bytes.Equal(m, []byte("XFSB")) {
		return "an XFS file system"
	}
	if bytes.Equal(at(65536+64, 8), []byte("_BHRfS_M")) {
		return "a Btrfs file system"
	}
	return ""
}
