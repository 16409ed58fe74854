// Package mkimg writes partitioned disk images as FreeBSD's mkimg(1) makes
// them, byte for byte: every scheme of mkimg's (apm, bsd, ebr, gpt, mbr,
// vtoc8) in every output format (-f raw, qcow, qcow2, vhd, vhdf, vhdx,
// vmdk, vmdks), and mkimg's whole command line: partitions from files
// (TYPE[/LABEL]:=FILE[:[+]OFFSET]), from a command's output
// (TYPE[/LABEL]:-CMD), empty ones of a size (TYPE[/LABEL]::SIZE[:[+]OFFSET])
// and unused slots (-), and -s, -p, -o, -y, -v, -S, -P, -H, -T, -a, -b,
// -c, -C, --capacity, -t, -f, -h, --formats, --schemes and --version;
// Parse reads that command line. WriteFile, Write and Build write the
// disk; NewReader and OpenReader read one back, inside its container.
// DETAILS.md in this package's folder is the reference: each scheme and
// each container field by field, the readers and the partition sources.
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
// # Command line
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
// # GUIDs
//
// With -y (Options.FreeBSDTestMode) the GUIDs are mkimg's test-mode
// counters and the disk is freebsd-mkimg -y's bytes. Without it, where
// mkimg draws random GUIDs, this package derives them, so that the same
// inputs give the same disk on any machine:
//
//	seed = SHA-256("fixturegen/mkimg guid v2\x00" ‖ scheme NUL ‖
//	        le64 sector size ‖ le64 block size ‖ le64 heads ‖
//	        le64 sectors per track ‖ le64 active ‖ le64 slots ‖
//	        le64 disk sectors ‖
//	        SHA-256(boot code zero-padded to the scheme's boot code
//	        size, 512 or 8192 bytes, or nothing) ‖
//	        for each used slot: le64 index ‖ type (lower case) NUL ‖
//	        label NUL ‖ le64 start LBA ‖ le64 sectors ‖
//	        D(the partition's bytes: its Source, file or command
//	        output, or none))
//	disk GUID        = v4(SHA-256("fixturegen/mkimg guid v2\x00" ‖ seed ‖ "disk" NUL ‖ le32 0))
//	partition i GUID = v4(SHA-256("fixturegen/mkimg guid v2\x00" ‖ seed ‖ "partition" NUL ‖ le32 i))
//
// where i is the 0-based slot, v4 takes the first 16 bytes as RFC 4122
// octets and sets the version to 4 and the variant to 10, and D, the
// content digest, is SHA-256 over each 64 KiB block of the bytes in turn
// (the last one may be shorter) as the byte 0 when the block is all
// zeros, or the byte 1 and the block's bytes otherwise, followed by le64
// the bytes' length. D takes a sparse partition's holes without reading
// them or hashing them byte by byte, and does not depend on whether its
// zeros are stored. The slots are
// hashed in slot order with their start sectors, so the rule stays well
// defined when offsets put partitions out of disk order, and the disk's
// size (which -c changes) is an input. The output file's name is not an
// input. Every other byte is the same as with -y.
//
// Only the GPT stores GUIDs; the other schemes store none, and their
// partitions' contents are not hashed. A GPT's GUIDs may instead be
// given: Options.DiskGUID and Partition.GUID, or fixturegen's own long
// options, which mkimg(1) does not have, --disk-guid GUID and
// --partition-guid N=GUID (N the 1-based -p slot, which must be used;
// once per slot), each GUID RFC 4122 text (ParseGUID) other than the nil
// GUID. A GUID given replaces the derived one in its field and changes no
// other byte but the CRCs; the others keep the rule above, whose seed is
// the same. When every GUID is given the partitions are not hashed at
// all, so a large partition file is read once, by the copy. -y refuses
// them (its GUIDs are FreeBSD's counters), as does a scheme without GUIDs,
// and no GUID may be given twice.
//
// # Schemes
//
// GPT and MBR are described under Layout; DETAILS.md gives every scheme
// field by field. -s apm writes an Apple Partition Map (up to 4096 slots,
// sectors of 512 to 4096 bytes), -s vtoc8 a Sun disk label with an
// 8-partition VTOC (7 partitions, 512-byte sectors, whole cylinders), -s
// bsd a BSD disklabel in an 8 KiB boot area (at most 19 slots, 512-byte
// sectors), and -s ebr the chain of Extended Boot Records that fills an
// MBR's extended partition (up to 4096 slots). Each scheme refuses a disk
// whose sectors its fields cannot hold, with ErrTooLarge, and its reader
// names the fields as its on-disk structure names them.
//
// # Containers
//
// -f writes the finished raw disk in a container as mkimg's format hooks
// do: the format may first grow the disk (qcow to whole clusters, vhd to
// whole cylinders of its geometry, vhdf also to a whole MiB, vhdx to 16
// MiB blocks, vmdk and vmdks to whole MiB) before the scheme writes its
// metadata, so a GPT's backup sits at the grown end; then it lays the
// container out around the disk, storing only the blocks, clusters or
// grains that hold a byte other than zero where the format is sparse. For
// WriteFile the raw disk is a temporary file beside the output (removed
// after); for qcow and qcow2 that file holds only the metadata and each
// regular-file partition is read from its own file, so its data is copied
// once (by the block cache's file path: shared extents on XFS and btrfs,
// copy_file_range elsewhere). A disk a format cannot hold (VHD's 2040 GiB,
// VHDX's 64 TiB, the qcow tables QEMU would not open, the VMDK grain
// counts) is refused with ErrTooLarge before anything is written.
//
// With -y each container is freebsd-mkimg -y's file byte for byte, but
// for a vmdks's compressed grains: mkimg compresses with zlib, whose
// deflate output Go's compress/flate does not reproduce, so a vmdks
// differs in its compressed bytes (and the sectors of what follows them)
// while everything else is freebsd-mkimg's, in the same order, and every
// grain inflates to freebsd-mkimg's grain. Without -y the ids mkimg draws
// at random follow the GUID rule (see GUIDs) and times come from -t, or
// are 0, never the clock: a VHD's Unique Id and a VHDX's Virtual Disk ID
// are derivedGUID(seed, "vhd", 0) and derivedGUID(seed, "vhdx", 0),
// stored as mkimg stores a UUID, a VHD's Time Stamp is -t's time (a -t
// before 2000 or past 2136 is refused), and a VMDK's CID is the first
// four bytes, little-endian, of derivedGUID(seed, "vmdk", 0); a qcow
// header holds no id or time. derivedGUID(seed, role, i) is
// v4(SHA-256("fixturegen/mkimg guid v2\x00" ‖ seed ‖ role NUL ‖ le32 i)).
//
// The readers open every container (and qcow2 version 3 and the VHD and
// VHDX layouts qemu-img writes), so ls, cat and diff see the partitions
// inside; every table, offset and size they read is bounded by the file,
// and they are fuzzed (FuzzOpenQCOW2, FuzzOpenVHD, FuzzOpenVHDX, FuzzOpenVMDK).
// Fields of a container names its own header fields by its
// specification's names at their offsets in the file, then the disk's
// fields at their bytes in the file.
//
// # Reading
//
// NewReader and OpenReader open a container if there is one, then read
// the disk's partition table (ReadTable), trying the schemes in the order
// gpt, apm, vtoc8, bsd, mbr, ebr; both GPT headers and entry arrays are
// checked, a damaged primary is replaced by the backup (Table.Problems
// says so), and an MBR's or EBR chain's sector size, which the disk does
// not record, is the first of 512 to 4096 bytes under which the
// partitions end at the disk's end. Disk.Partition gives a partition's
// bytes; FS gives the disk's partitions as p1, p2, ... (a file system's
// root when its format is recognised, through inspect.Detect), so that
// fixturegen ls disk.img p1/EFI/BOOT and fixturegen cat disk.img
// p2/etc/motd reach into partitions; Fields names the table's fields for
// fixturegen diff. From Go a partition's bytes come from a Source: a host
// file (FileSource), an io.ReaderAt (ReaderSource) or a builder writing
// in place (BuilderSource, MSDOSSource, FFSSource).
//
// # Independent checks
//
// The package's tests compare every scheme's disks with freebsd-mkimg -y
// over a generated matrix of command lines, and hold GPT and MBR disks to
// tools that share no code with it: sgdisk -v and sfdisk --verify find no
// problems, and sfdisk -d, fdisk -l and sleuthkit's mmls list each
// partition where the layout above puts it; FAT, UFS and ISO 9660 images
// inside pass fsck.fat, mtools with an @@offset, sleuthkit's fls and icat
// with -o, isoinfo and xorriso, with 512- or 4096-byte sectors. One
// layout of FreeBSD's is not valid for them: an empty partition (a 0-byte
// file or ::0). An empty partition followed by one that starts where it
// does is refused, as mkimg refuses it ("overlaps"). One that mkimg
// accepts (at the end, or before other empty ones) it writes as a GPT
// entry whose EndingLBA is one below its StartingLBA, which sgdisk -v and
// sfdisk --verify report as ending before it starts, and as an MBR record
// of SizeInLBA 0, which sfdisk -d and fdisk -l list and mmls leaves out.
// A table cannot hold a partition of no sectors, and giving it one would
// move the partitions after it and the disk's end, so the package leaves
// that GPT entry or MBR record unused (zeros; the disk is otherwise
// FreeBSD's, with -y too) and writes one line to Options.Warn:
//
//	mkimg: warning: partition N is empty: its GPT entry is left unused, ...
//
// which fixturegen mkimg prints after "fixturegen: ". The empty entries of
// bsd (p_size 0), apm (pmPartBlkCnt 0) and vtoc8 (nblk 0) are how those
// tables mark an unused entry, and an ebr empty partition is an EBR whose
// record 0 has SizeInLBA 0, still linked in the chain; sfdisk, fdisk and
// mmls leave all of these out alike (sfdisk saying "omitting empty
// partition"), so they are written as mkimg writes them.
//
// The containers are compared with freebsd-mkimg -y over every scheme,
// -S 512 and 4096, -P and geometries, and FreeBSD's golden tests
// (selftest.sh) are replayed for each format; QEMU, which shares no code
// with mkimg, checks them too: qemu-img check passes where qemu-img
// checks the format (qcow2, vhdx, vmdk), qemu-img info gives the virtual
// size mkimg chose (for a VHD, the Disk Geometry's size, which for a
// fixed VHD grown to a whole MiB is less than Current Size; qemu's vhdx
// driver opens only 512-byte logical sectors), and qemu-img convert -O
// raw gives the raw disk of the same command line with that capacity.
// Reproducibility is tested by writing each format twice from two
// directories.
//
// # Differences from mkimg
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
//   - A scheme or container that cannot hold the disk's sizes is refused
//     (ErrTooLarge) where mkimg writes truncated or wrapped values, or a
//     file QEMU would not open: apm, vtoc8, bsd and ebr past 2^32
//     sectors, a vmdk whose grain tables would wrap, a qcow whose tables
//     QEMU would not open.
//   - An empty partition gets an unused GPT entry or MBR record and a
//     warning (see Independent checks), where mkimg writes an entry that
//     ends before it starts.
//   - A VHDX whose BAT outgrows 1 MiB lists its whole length in the
//     region table, where mkimg lists 1 MiB and qemu-img refuses the
//     file; where mkimg's CHS rounding loops for ever (a VHD past about
//     127.5 GiB) the specification's geometry is taken.
//   - A vmdks's compressed grains are Go's deflate, not zlib's (see
//     Containers).
package mkimg
