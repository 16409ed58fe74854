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
//	        SHA-256(the partition's file, or nothing))
//	disk GUID        = v4(SHA-256("fixturegen/mkimg guid v1\x00" ‖ seed ‖ "disk" NUL ‖ le32 0))
//	partition i GUID = v4(SHA-256("fixturegen/mkimg guid v1\x00" ‖ seed ‖ "partition" NUL ‖ le32 i))
//
// where i is the 0-based slot and v4 takes the first 16 bytes as RFC 4122
// octets and sets the version to 4 and the variant to 10. The output
// file's name is not an input. Every other byte is the same as with -y.
//
// # Reading
//
// NewReader and OpenReader read a disk's partition table (ReadTable),
// trying the schemes in the order gpt, apm, vtoc8, bsd, mbr, ebr: a GPT
// first, since its disk also holds a (protective) MBR. A GPT is looked
// for with 512- and 4096-byte sectors; both headers' HeaderCRC32 and
// both entry arrays' PartitionEntryArrayCRC32 are checked, and an entry
// array larger than 1 MiB is refused before it is read. When the primary
// header is missing or fails a check the backup header at the disk's last
// LBA is read instead and Table.Problems says so; when both fail, or a
// protective MBR has no GPT behind it, the error wraps ErrFormat and names
// each header's byte. An MBR is read with 512-byte sectors; its records
// with a non-zero OSType and SizeInLBA are the partitions, and a record
// whose BootIndicator is neither 0x00 nor 0x80 means the sector is no MBR.
// Every partition the table lists lies within the disk, or ReadTable
// fails.
//
// Disk.Partition gives a partition as an io.SectionReader; PartitionFS
// and FS give its file system, and the disk's as a whole, through the
// format registry's detector (inspect.Detect, passed in because
// imgkit/inspect registers this package's Describe and so imports it).
// The disk's FS holds p1, p2, ... for the used slots (the slot's index): a
// directory, the root of the partition's file system, when its format is
// recognised, else a file of the partition's bytes; so that fixturegen
// ls disk.img p1/EFI/BOOT and fixturegen cat disk.img p2/etc/motd reach
// into partitions. Fields names the table's fields as UEFI 2.10 names
// them (HeaderCRC32, DiskGUID, UniquePartitionGUID, PartitionName;
// BootIndicator, OSType, StartingLBA, SizeInLBA), then each partition's
// file system's under /pN, for fixturegen diff.
//
// # Not yet
//
// Partition offsets, :-CMD partitions, -c/-C/--capacity, -f formats other
// than raw, and the apm, bsd, ebr and vtoc8 schemes are refused with an
// ErrOption.
package mkimg
