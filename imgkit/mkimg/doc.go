// Package mkimg writes partitioned disk images as FreeBSD's mkimg(1) makes
// them, byte for byte. It covers the GPT and MBR schemes in the raw
// format and mkimg's whole command line: partitions from files
// (TYPE[/LABEL]:=FILE[:[+]OFFSET]), from a command's output
// (TYPE[/LABEL]:-CMD), empty ones of a size (TYPE[/LABEL]::SIZE[:[+]OFFSET])
// and unused slots (-), and -s, -p, -o, -y, -v, -S, -P, -H, -T, -a, -b,
// -c, -C, --capacity, -t, -f raw, -h, --formats, --schemes and --version;
// Parse reads that command line.
//
// # Layout
//
// Partitions are laid out in slot order, each after the previous one
// (plus a +OFFSET gap) or at its absolute OFFSET, both aligned as the
// scheme aligns partitions; the disk then ends after the last partition in
// slot order and the scheme's trailing metadata, and grows to -c or is
// refused past -C, each rounded up to whole sectors. A GPT keeps LBA 0 (the
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
//	        le64 disk sectors ‖
//	        SHA-256(boot code, 512 bytes zero-padded, or nothing) ‖
//	        for each used slot: le64 index ‖ type (lower case) NUL ‖
//	        label NUL ‖ le64 start LBA ‖ le64 sectors ‖
//	        SHA-256(the partition's file or command output, or nothing))
//	disk GUID        = v4(SHA-256("fixturegen/mkimg guid v1\x00" ‖ seed ‖ "disk" NUL ‖ le32 0))
//	partition i GUID = v4(SHA-256("fixturegen/mkimg guid v1\x00" ‖ seed ‖ "partition" NUL ‖ le32 i))
//
// where i is the 0-based slot and v4 takes the first 16 bytes as RFC 4122
// octets and sets the version to 4 and the variant to 10. The slots are
// hashed in slot order with their start sectors, so the rule stays well
// defined when offsets put partitions out of disk order, and the disk's
// size (which -c changes) is an input. The output file's name is not an
// input. Every other byte is the same as with -y.
//
// # Command line and layout
//
// For := the existing file wins: when FILE exists under its whole name a
// trailing :N is part of the name; otherwise the text after the last colon
// is the offset. A directory is an error; a file that is not a regular
// one (a pipe, a device) is read to its end. A :-CMD partition is the
// standard output of /bin/sh -c CMD, run in Options.Dir when the layout
// reaches it; its size is what it wrote. The output is spooled to an
// unlinked temporary file (beside the disk for WriteFile, in TMPDIR
// otherwise) and copied into the disk from there, so it is never held in
// memory whole. As mkimg, the package takes only its type aliases; current
// FreeBSD mkimg (scheme.c's scheme_check_part) accepts no raw GUID or MBR
// type number, and neither does this package. With Options.Verbose and
// Options.Log the package writes the lines mkimg -v writes, the same
// ones. Without a scheme and partitions, -c gives a disk of zeros.
//
// Where fixturegen differs from mkimg, on purpose:
//
//   - A command that exits other than 0 is an error naming the partition
//     and the command; mkimg ignores pclose's status.
//   - A command's output is written contiguously. mkimg puts each read(2)
//     of the pipe at the next sector, so output that arrives in pieces
//     not whole sectors long gets gaps that depend on timing.
//   - A bad := offset is an error; mkimg ignores it and places the
//     partition at sector 0. A file at a later slot may start before an
//     earlier one (mkimg aborts on an assertion), and a partition that
//     ends past the disk is refused where mkimg writes a broken table.
//   - Overlaps name both partitions by slot (mkimg counts used partitions
//     from 0), and any two that share a sector overlap, also one holding
//     another whole, which mkimg's check misses.
//   - A partition over the metadata keeps its data where the metadata's
//     sectors are zeros and is refused where they are not, as mkimg's
//     image_write does; the message names the sector.
//
// # Not yet
//
// -f formats other than raw: mkimg's qcow, qcow2, vhd, vhdf, vhdx, vmdk
// and vmdks are refused with an ErrOption naming them, and --formats
// lists raw. -t is parsed and kept in Options.Timestamp for those
// formats.
package mkimg
