// Package mkimg writes partitioned disk images as FreeBSD's mkimg(1) makes
// them, byte for byte. This first slice covers the GPT and MBR schemes in
// the raw format, with partitions from files (TYPE[/LABEL]:=FILE), empty
// partitions of a size (TYPE[/LABEL]::SIZE) and unused slots (-), and
// mkimg's -s, -p, -o, -y, -S, -P, -H, -T, -a and -b; Parse reads that
// command line.
//
// # Layout
//
// Partitions go one after another in slot order. A GPT keeps LBA 0 (the
// protective MBR), LBA 1 (the header) and an entry array of at least
// 16 KiB (UEFI 2.10 section 5.3) before them, and the backup array and
// header after them; the first partition, every partition, and the disk's
// end are rounded up to the physical block (-P). An MBR keeps LBA 0 and
// rounds partitions and the disk's end up to whole tracks (-T). Boot code
// (-b, at most 512 bytes) supplies LBA 0's bytes before the partition
// records; an MBR then marks its first partition active unless -a names
// another. A GPT label is stored one UTF-16 code unit per byte of the
// label, as mkimg stores it, and is at most 36 bytes; an MBR has none.
// The type aliases are FreeBSD's: efi, freebsd, freebsd-boot,
// freebsd-nandfs, freebsd-swap, freebsd-ufs, freebsd-vinum, freebsd-zfs,
// mbr, ms-basic-data, ntfs and prepboot for GPT; ebr, efi, fat16b, fat32,
// freebsd, ntfs and prepboot for MBR, as the reference freebsd-mkimg
// accepts them.
//
// # GUIDs
//
// With -y (Options.FreeBSDTestMode) the GUIDs are mkimg's test-mode
// counters and the disk is freebsd-mkimg -y's bytes. Without it, where
// mkimg draws random GUIDs, this package derives them, so that the same
// inputs give the same disk on any machine:
//
//	seed = SHA-256("fixturegen/mkimg guid v1\x00" ‖ scheme NUL ‖
//	        le64 sector size ‖ le64 block size ‖ le64 heads ‖
//	        le64 sectors per track ‖ le64 active ‖ le64 slots ‖
//	        SHA-256(boot code, 512 bytes zero-padded, or nothing) ‖
//	        for each used slot: le64 index ‖ type (lower case) NUL ‖
//	        label NUL ‖ le64 start LBA ‖ le64 sectors ‖
//	        SHA-256(the partition's bytes, from any Source, or nothing))
//	disk GUID        = v4(SHA-256("fixturegen/mkimg guid v1\x00" ‖ seed ‖ "disk" NUL ‖ le32 0))
//	partition i GUID = v4(SHA-256("fixturegen/mkimg guid v1\x00" ‖ seed ‖ "partition" NUL ‖ le32 i))
//
// where i is the 0-based slot and v4 takes the first 16 bytes as RFC 4122
// octets and sets the version to 4 and the variant to 10. The output
// file's name is not an input. Every other byte is the same as with -y.
//
// # Partition sources
//
// From Go a partition's bytes come from a Source (Partition.Source): a
// host file (FileSource, what File and TYPE:=FILE give), an io.ReaderAt
// and its size (ReaderSource), or a builder that writes them into the
// disk in place (BuilderSource; MSDOSSource and FFSSource for the file
// systems of imgkit/msdos and imgkit/ffs), so that an EFI system
// partition made from an fstest.MapFS needs no intermediate file. A
// source tells its size before anything is written, since the layout
// depends on it; the same bytes make the same disk from any source, the
// derived GUIDs included.
//
// A file partition goes through the block cache's file path: on XFS and
// btrfs its whole blocks are shared with the file (FICLONERANGE) when the
// partition starts on a file-system block of the disk (with -P 4096, or
// -S 4096; GPT's default first partition at LBA 34 does not); otherwise
// they are copied in the kernel (copy_file_range(2)), not through user
// space, and its holes stay holes. Without -y the
// derived GUIDs need the file's SHA-256, read beside the copy from a
// second goroutine; only its data is read, its holes hashed as zeros.
// With -y nothing is hashed.
//
// # Not yet
//
// Partition offsets, :-CMD partitions, -c/-C/--capacity, -f formats other
// than raw, and the apm, bsd, ebr and vtoc8 schemes are refused with an
// ErrOption.
package mkimg
