package imgfmt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
)

// A Foreign is a file system or volume format that fixturegen knows by
// its signature but does not read, as Identify names it.
type Foreign struct {
	// Name is the format's usual name: "NTFS", "exFAT", "ext4", "LUKS".
	Name string
	// What says what the format is, with its article, for a message: "an
	// NTFS file system", "a LUKS encrypted volume", "a Linux swap area".
	What string
}

// ErrUnsupported reports a file or partition that holds a format
// fixturegen knows only by its signature (Identify).
var ErrUnsupported = errors.New("a format fixturegen does not read")

// An UnsupportedError reports that a file or partition holds a Foreign
// format. It wraps ErrUnsupported.
type UnsupportedError struct{ Foreign }

func (e *UnsupportedError) Error() string {
	return "holds " + e.What + ", which fixturegen does not read"
}

func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// identifyBytes is how much of the start of a file Identify reads: enough
// for the signatures below, of which ZFS's uberblocks, at 128 KiB to 256
// KiB of the first vdev label, lie furthest in.
const identifyBytes = 256 << 10

// Identify names the format of the file or partition in r (size bytes)
// when it begins with the signature of a file system or volume that
// fixturegen does not read: NTFS, exFAT, HFS, HFS+, APFS, squashfs, UDF,
// ZFS, ext2/3/4, btrfs, XFS, F2FS, LUKS, LVM2 or Linux swap. It looks
// only at fixed places in the first 256 KiB, so it is meant for a file
// that no format of the registry matched: an ISO 9660 image with a UDF
// bridge, say, holds UDF's marks too.
func Identify(r io.ReaderAt, size int64) (Foreign, bool) {
	head := make([]byte, min(max(size, 0), identifyBytes))
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	for _, s := range signatures {
		if what, ok := s.match(head); ok {
			return what, true
		}
	}
	return Foreign{}, false
}

// at returns the n bytes of head at off, or nil past its end.
func at(head []byte, off, n int) []byte {
	if off+n > len(head) {
		return nil
	}
	return head[off : off+n]
}

// has reports whether head holds magic at off.
func has(head []byte, off int, magic string) bool {
	return bytes.Equal(at(head, off, len(magic)), []byte(magic))
}

// A signature recognises one format from a file's first bytes.
type signature struct {
	match func(head []byte) (Foreign, bool)
}

// fixed is a signature of magic bytes at one offset.
func fixed(off int, magic string, f Foreign) signature {
	return signature{func(head []byte) (Foreign, bool) { return f, has(head, off, magic) }}
}

// signatures are the formats Identify knows, each by the marks its own
// specification or its reference tool puts at a fixed place.
var signatures = []signature{
	// NTFS and exFAT: the OEM name in the boot sector's bytes 3 to 10.
	fixed(3, "NTFS    ", Foreign{"NTFS", "an NTFS file system"}),
	fixed(3, "EXFAT   ", Foreign{"exFAT", "an exFAT file system"}),
	// HFS+ and HFSX: the volume header's signature and version at byte
	// 1024; HFS: the master directory block's drSigWord there.
	fixed(1024, "H+\x00\x04", Foreign{"HFS+", "an HFS+ file system"}),
	fixed(1024, "HX\x00\x05", Foreign{"HFSX", "an HFSX file system"}),
	fixed(1024, "BD", Foreign{"HFS", "an HFS file system"}),
	// APFS: the container superblock's nx_magic at byte 32.
	fixed(32, "NXSB", Foreign{"APFS", "an APFS container"}),
	// squashfs: s_magic at byte 0, little- or big-endian.
	fixed(0, "hsqs", Foreign{"squashfs", "a squashfs file system"}),
	fixed(0, "sqsh", Foreign{"squashfs", "a squashfs file system"}),
	// XFS: sb_magicnum; LUKS: the header's magic (LUKS1 and LUKS2).
	fixed(0, "XFSB", Foreign{"XFS", "an XFS file system"}),
	fixed(0, "LUKS\xba\xbe", Foreign{"LUKS", "a LUKS encrypted volume"}),
	// btrfs: the superblock at 64 KiB, its magic at byte 64 of it.
	fixed(65536+64, "_BHRfS_M", Foreign{"Btrfs", "a Btrfs file system"}),
	// F2FS: the superblock at byte 1024, magic 0xF2F52010.
	fixed(1024, "\x10\x20\xf5\xf2", Foreign{"F2FS", "an F2FS file system"}),
	// LVM2: the physical volume label in sector 1.
	{func(head []byte) (Foreign, bool) {
		return Foreign{"LVM2", "an LVM2 physical volume"}, has(head, 512, "LABELONE") && has(head, 512+24, "LVM2 001")
	}},
	{matchExt},
	{matchSwap},
	{matchUDF},
	{matchZFS},
}

// matchExt recognises ext2, ext3 and ext4 by s_magic 0xEF53 in the
// superblock at byte 1024, and tells them apart by its feature flags: a
// journal makes ext3, and extents, 64-bit block numbers or flexible
// block groups (features ext3 lacks) make ext4.
func matchExt(head []byte) (Foreign, bool) {
	sb := at(head, 1024, 1024)
	if sb == nil || binary.LittleEndian.Uint16(sb[56:]) != 0xef53 {
		return Foreign{}, false
	}
	const (
		compatHasJournal = 0x4
		incompatExtents  = 0x40
		incompat64bit    = 0x80
		incompatFlexBG   = 0x200
	)
	compat, incompat := binary.LittleEndian.Uint32(sb[92:]), binary.LittleEndian.Uint32(sb[96:])
	switch {
	case incompat&(incompatExtents|incompat64bit|incompatFlexBG) != 0:
		return Foreign{"ext4", "an ext4 file system"}, true
	case compat&compatHasJournal != 0:
		return Foreign{"ext3", "an ext3 file system"}, true
	}
	return Foreign{"ext2", "an ext2 file system"}, true
}

// matchSwap recognises a Linux swap area by "SWAPSPACE2" (or the old
// "SWAP-SPACE") in the last 10 bytes of its first page, for pages of 4
// to 64 KiB.
func matchSwap(head []byte) (Foreign, bool) {
	for page := 4096; page <= 65536; page *= 2 {
		if has(head, page-10, "SWAPSPACE2") || has(head, page-10, "SWAP-SPACE") {
			return Foreign{"swap", "a Linux swap area"}, true
		}
	}
	return Foreign{}, false
}

// matchUDF recognises UDF by its volume recognition sequence (ECMA-167
// part 2): from byte 32768, descriptors of 2048 bytes (or of the block
// size, when larger) whose identifiers at byte 1 are BEA01, then NSR02
// or NSR03.
func matchUDF(head []byte) (Foreign, bool) {
	for _, step := range []int{2048, 4096, 8192} {
		if !has(head, 32768+1, "BEA01") {
			break
		}
		for off := 32768 + step; off < 32768+8*step; off += step {
			if has(head, off+1, "NSR02") || has(head, off+1, "NSR03") {
				return Foreign{"UDF", "a UDF file system"}, true
			}
		}
	}
	return Foreign{}, false
}

// matchZFS recognises a ZFS vdev by an uberblock's ub_magic 0x00bab10c,
// in either byte order, in the uberblock array at 128 KiB to 256 KiB of
// its first label, whose slots are 1 KiB or larger powers of two.
func matchZFS(head []byte) (Foreign, bool) {
	for off := 128 << 10; off+8 <= min(len(head), 256<<10); off += 1024 {
		b := head[off : off+8]
		if binary.LittleEndian.Uint64(b) == 0x00bab10c || binary.BigEndian.Uint64(b) == 0x00bab10c {
			return Foreign{"ZFS", "a ZFS pool device"}, true
		}
	}
	return Foreign{}, false
}
