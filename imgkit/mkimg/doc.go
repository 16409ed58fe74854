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
// # APM and VTOC8
//
// -s apm writes an Apple Partition Map as mkimg does: block 0 holds the
// driver descriptor record (sbSig "ER", sbBlkSize the sector size,
// sbBlkCount the disk's sectors), block 1 the map's own entry
// (Apple_partition_map, named Apple) and block i+2 slot i's entry, each
// with pmMapBlkCnt one more than the slots; the partitions follow, each
// starting on a physical block (-P). The types are FreeBSD, FreeBSD-UFS,
// FreeBSD-swap, FreeBSD-ZFS, FreeBSD-Vinum, FreeBSD-nandfs and
// Apple_Bootstrap, for the aliases freebsd, freebsd-ufs, freebsd-swap,
// freebsd-zfs, freebsd-vinum, freebsd-nandfs and freebsd-boot. A label,
// at most 31 bytes, is the entry's pmPartName. An APM holds up to 4096
// slots, takes sectors of 512 to 4096 bytes and no boot code, and ignores
// -H and -T. An unused slot's block stays zero, as mkimg leaves it;
// sleuthkit's mmls stops at such a block and reads no map, so leave no
// unused slots where a reader walks the whole map.
//
// -s vtoc8 writes a Sun disk label with an 8-partition VTOC (SMI VTOC8)
// in sector 0, as mkimg does: asciilabel "FreeBSDnM" (n the disk's whole
// MiB), rpm 3600, the -H/-T geometry as nhead and nsect, ncyl and pcyl the
// disk's cylinders, the whole disk in slot 2 (tag 0), and slot i's
// partition in map entry i, or i+1 from slot 2 on; partitions start on,
// and the disk ends at, whole cylinders of nhead*nsect sectors. The tags
// are FreeBSD's: 0x0901 freebsd-swap, 0x0902 freebsd-ufs, 0x0903
// freebsd-vinum and 0x0905 freebsd-nandfs, and freebsd-zfs, like mkimg
// (vtoc8.c, current FreeBSD too), also gets 0x0905, not ZFS's 0x0904;
// the reader names 0x0905 freebsd-nandfs and 0x0904 freebsd-zfs. A VTOC8
// holds 7 partitions, takes 512-byte sectors only, no labels and no boot
// code. ncyl and pcyl are 16-bit: past 65535 cylinders (32 MiB at the
// default one head of one sector) they keep the count's low 16 bits, as
// mkimg writes them; give -H and -T for larger disks. Both schemes refuse
// disks past 2^32 sectors, which their 32-bit fields cannot hold, with
// ErrTooLarge, where mkimg writes truncated values.
//
// The scheme table's read hooks (readAPM, readVTOC8) give the Table of a
// disk, with fields named as Inside Macintosh (sbSig, pmMapBlkCnt,
// pmPyPartStart, pmPartBlkCnt, pmPartName, pmParType, ...) and Solaris's
// dk_label (asciilabel, vtoc_sanity, ncyl, nhead, nsect, p_tag, cylno,
// nblk, magic, cksum, ...) name them, or ErrNoTable.
// # BSD and EBR
//
// A bsd disk (-s bsd, 512-byte sectors only) begins with an 8 KiB boot
// area holding the BSD disklabel (sys/sys/disk/bsd.h) in its second
// sector; -b boot code of up to 8192 bytes fills the rest of it, and mkimg
// clears only the first 276 bytes of the label's sector (the header and
// eight entries), so with more than seven slots an entry past the eighth
// that no partition fills keeps the boot code's bytes, which d_checksum
// covers. Partitions start on physical blocks (-P) after the boot area
// and the disk ends on a whole cylinder (-H times -T sectors). Slot i
// goes in d_partitions entry i, skipping the raw partition 'c' (entry 2),
// which covers the whole disk; d_npartitions is one more than the slots,
// and at least 8. At most 19 slots; the types are freebsd-nandfs,
// freebsd-swap, freebsd-ufs, freebsd-vinum and freebsd-zfs (p_fstype 30,
// 1, 7, 14 and 27); no labels.
//
// An ebr disk (-s ebr, up to 4096 slots, sectors up to 4096 bytes, no
// boot code) is the chain of Extended Boot Records that fills an MBR's
// extended partition (-s mbr -p ebr:=FILE). Each used slot gets an EBR
// in the track before it; record 0 places the partition a track after
// its EBR, sized in whole tracks, and record 1 links to the next EBR,
// counted from the first, at LBA 0. Unused slots leave no EBR. The CHS
// fields are mkimg's: record 0's StartingCHS is that of the LBA equal to
// -T, and the others are those of LBAs counted in the chain, not the
// disk. The types are fat16b, fat32, freebsd and fat32lba (0x06, 0x0b,
// 0xa5 and 0x0c); the reference freebsd-mkimg lacks fat32lba, which
// current FreeBSD's ebr.c maps. Both schemes refuse a disk whose
// sectors do not fit their 32-bit fields (ErrTooLarge), where mkimg would
// truncate them.
//
// Each scheme's reader gives a Table whose Fields are named as the
// on-disk structures name them (d_magic, d_secsize, ... and p_size,
// p_offset, p_fstype, ... for bsd; BootIndicator, StartingCHS, OSType,
// EndingCHS, StartingLBA and SizeInLBA of each EBR's records for ebr).
// The ebr reader follows at most 4096 links, each inside the disk and
// none twice; since an EBR does not record its sector size, it takes the
// size (512 to 4096) under which the chain ends at the disk's end, as the
// MBR reader does (see Reading).
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
// each header's byte. An MBR's records with a non-zero OSType and
// SizeInLBA are the partitions, and a record whose BootIndicator is
// neither 0x00 nor 0x80 means the sector is no MBR. An MBR, like an EBR
// chain, does not record its sector size (mkimg -S sets it): of 512,
// 1024, 2048 and 4096 bytes the reader takes the first under which the
// partitions end exactly at the disk's end, else 512 (or the first size
// under which they lie within the disk), so that a disk grown by -c past
// its last partition is read with 512-byte sectors. A disk of 512-byte
// sectors whose partitions end at exactly a half, a quarter or an eighth
// of it is read with larger ones; Table.SectorSize says which was taken.
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
// space, and its holes stay holes. Without -y a GPT's
// derived GUIDs need the file's SHA-256, read beside the copy from a
// second goroutine; only its data is read, its holes hashed as zeros.
// With -y, with every GUID given, and for the schemes without GUIDs
// nothing is hashed.
//
// # VMDK
//
// -f vmdk writes a hosted sparse extent with its descriptor embedded
// (createType monolithicSparse) and -f vmdks a stream-optimized one of
// compressed grains (streamOptimized), as FreeBSD's vmdk.c (a 2025
// version) writes them; format_vmdk.go has the SparseExtentHeader and the
// stream's markers with VMware's Virtual Disk Format 1.1 field names.
// Both round the disk up to whole MiB before the scheme writes its
// metadata. A vmdk's grain is the physical block size (-P), at least 8
// KiB; it holds the header, the descriptor, the grain directory and its
// tables, the redundant directory and a copy of the tables, then every
// grain holding a non-zero byte, in disk order, and with -y it is
// freebsd-mkimg -y's file byte for byte. Its grain tables are held in
// pages of 128 tables, the filled ones in an unlinked temporary file
// beside the raw disk, and its grains are read from the partitions'
// files (linkedFormats), so its memory does not grow with the disk: the
// two grain directories, 1 MiB each per TiB of 8 KiB grains, are all.
//
// A vmdks grain is 64 KiB (or the sector size, if larger); each grain
// holding a non-zero byte is a zlib (RFC 1950) stream after its grain
// marker, each grain table follows the grains it covers, then come the
// grain directory, the footer and the end-of-stream marker. mkimg
// compresses with zlib's compress2 at Z_DEFAULT_COMPRESSION, whose bytes
// Go's compress/flate does not reproduce, so a vmdks grain's compressed
// bytes (and so its length and the sectors of what follows it) differ
// from freebsd-mkimg's; everything else is the same, in the same order,
// and every grain inflates to freebsd-mkimg's grain (the tests walk both
// files' markers and tables to check it). A grain is deflated at the
// default level (6) unless deflate's fastest level does not shrink it at
// all, as with random data or compressed files: then it is stored in
// deflate's stored blocks, as zlib's default level would store it,
// without the search that makes such data slow. Grains are compressed on
// every core, in order, so the file does not depend on the timing.
//
// The descriptor's CID is 0 with -y, as mkimg writes it always; without
// -y it is the first four bytes, read little-endian, of
// derivedGUID(seed, "vmdk", 0): the GUID rule's SHA-256 of the domain
// string, the seed and the role "vmdk" with index 0 (see GUIDs), so that
// the same inputs give the same CID and none is drawn at random. The
// disk's geometry lines are mkimg's: its cylinders, -H and -T.
//
// A disk of more grains than mkimg counts (2^31-1: a 16 TiB vmdk of 8
// KiB grains, a 128 TiB vmdks) is refused with ErrTooLarge before
// anything is written, and so is an extent whose grains would sit past
// the 32-bit sector numbers of its tables (2 TiB of data), which mkimg's
// vmdk would wrap. The reader opens both (and a version 2 extent) through
// the grain directory, the footer's for a stream whose header has none;
// it bounds every table and grain by the file's size, a grain table entry
// of 0 reads as zeros, and a compressed grain must name its own sector in
// its marker and inflate to no more than its grain.
//
// # QCOW containers
//
// -f qcow and -f qcow2 write QEMU's copy-on-write formats as mkimg's
// qcow.c does (format_qcow.go names the header fields as QEMU's qcow2.txt
// and block/qcow.c do): the disk grows to a whole number of clusters (4
// KiB for version 1, 64 KiB for version 2) before the scheme writes its
// metadata, so a GPT's backup sits at the grown end; cluster 0 is the
// header, then the L1 table, the refcount table (version 2), one L2 table
// per L1 entry that maps data, the refcount blocks (version 2, counting
// one reference to every cluster of the file) and the clusters of the
// disk that hold a byte other than zero, in the disk's order. Clusters of
// zeros are not stored; every L1 and L2 entry of version 2 has the COPIED
// bit. The header has no backing file, encryption, snapshot or time, so
// there is no id or time to derive: without -y only the scheme's GUIDs
// differ from -y's. The raw disk is made first: its metadata in a
// temporary file beside the output (removed after), each partition of a
// regular file (without an absolute offset) left in its own file and
// read from there; its clusters are found in one pass that skips the
// files' holes and reads a cluster only to its first byte other than
// zero, and each run of data clusters is copied from the file that holds
// it by the block cache's file path (shared extents on XFS and btrfs,
// copy_file_range elsewhere), so a partition's data is copied once.
// A disk whose tables QEMU would not open is refused with ErrTooLarge,
// where mkimg writes it: a qcow2 L1 table of more than 4194304 entries
// or a refcount table of more than 8 MiB (a disk of 2 PiB or more), a
// qcow version 1 L1 table of 2^28 entries or more (512 TiB).
//
// The readers open both versions, and qcow2 version 3 as qemu-img
// writes it by default, giving the disk inside to ReadTable, ls, cat and
// diff: the cluster size must be in QEMU's range (512 bytes to 64 KiB for
// version 1, to 2 MiB for version 2), the L1 table must map the virtual
// size and lie in the file, every L2 table and data cluster it reaches
// must lie in the file (at a cluster's start for version 2 and 3), and at
// most 16 L2 tables are kept decoded. Backing files, encryption,
// compressed clusters and version 3's incompatible features other than
// the dirty bit are refused, each with a line naming it.
//
// # VHD and VHDX
//
// -f vhd, vhdf and vhdx write the containers of mkimg's vhd.c and vhdx.c
// (Microsoft's Virtual Hard Disk Image Format Specification 1.0 and VHDX
// Format Specification 1.00) around the raw disk, byte for byte as
// freebsd-mkimg -y. The reference vhdx.c is FreeBSD's 2020 version;
// current FreeBSD's differs only in its __FBSDID line and formatting and
// writes the same bytes.
//
// vhd (dynamic) rounds the disk up to whole cylinders of its Disk
// Geometry (-H by -T when both are 2 to 255, the specification's CHS
// algorithm otherwise) and writes the footer's copy, the dynamic header,
// a BAT of 2 MiB blocks and, for each block holding a non-zero byte, a
// sector bitmap of ones and the block, then the footer. vhdf (fixed)
// rounds to the geometry and then to a whole MiB (for Azure) and writes
// the raw disk and the footer. vhdx rounds to 16 MiB payload blocks and
// writes the header section, an empty log, the metadata (16 MiB blocks,
// the disk size, the Virtual Disk ID, -S and -P as the logical and
// physical sector sizes) and a BAT listing every block as present, then
// the whole raw disk; as in mkimg its region table gives the BAT region
// as 1 MiB long (see below) and not required, and the headers' GUIDs are
// zero.
//
// With -y the VHD's Unique Id and the VHDX's Virtual Disk ID are mkimg's
// next test-mode counter (after a GPT's partitions' and disk's) and the
// VHD's Time Stamp is 0x01234567. Otherwise the id is
//
//	v4(SHA-256("fixturegen/mkimg guid v1\x00" ‖ seed ‖ "vhd" NUL ‖ le32 0))   (VHD)
//	v4(SHA-256("fixturegen/mkimg guid v1\x00" ‖ seed ‖ "vhdx" NUL ‖ le32 0))  (VHDX)
//
// of the GUID rule's seed (of the disk as resized), stored as mkimg stores
// a UUID (its first three fields little-endian); the Time Stamp (seconds
// since 2000-01-01 00:00:00 UTC) is -t's time, or 0 without -t, never the
// clock. A -t before 2000 or past 2136 is refused with ErrOption.
//
// A VHD larger than 2040 GiB (0xff000000 sectors: VHD's 2 TiB limit as
// Hyper-V and qemu-img enforce it) and a VHDX larger than 64 TiB are
// refused with ErrTooLarge, before anything is written. For a VHDX whose
// BAT outgrows 1 MiB (a disk past about 2040 GiB) the region table lists
// the BAT's whole length, where mkimg lists 1 MiB and qemu-img refuses
// the file; smaller VHDXs are mkimg's bytes. Where
// mkimg's CHS rounding loops for ever (a disk past 65535 x 16 x 255
// sectors, about 127.5 GiB, or more than 65535 cylinders of -H by -T) the
// package takes the specification's geometry and, past its maximum,
// leaves the size unrounded with the largest geometry.
//
// qemu-img reads all three: it checks VHDX (qemu-img check) but not VHD;
// its vpc driver takes a VHD's size from the Disk Geometry for mkimg's
// Creator Application "*img", which is the disk for a dynamic VHD but
// less than Current Size for a fixed one that the MiB rounding grew (qemu
// then misses the disk's last sectors, a GPT's backup among them, unless
// opened with force_size_calc=current_size), and it finds a fixed VHD
// only with -f vpc. Its vhdx driver opens only 512-byte
// logical sectors.
//
// The readers open a dynamic VHD (footer copy and dynamic header checked,
// Current Size bytes, blocks looked up in the BAT as they are read,
// absent blocks zeros; a differencing disk is refused), a fixed VHD (a
// file ending in a fixed disk's footer whose Current Size is the rest of
// it) and a VHDX (the valid header of the greater SequenceNumber, with no
// log to replay; the first valid region table; block size, disk size and
// logical sector size from the metadata; payload blocks present, or
// zeros when not present, zero or unmapped; a differencing disk is
// refused), every offset bounded by the file's size. Fields (for
// fixturegen diff) names a container's own records (the VHD footers and
// dynamic header by the specification's names, VHDX's identifier,
// headers, region tables, metadata items and BAT) and places the disk's
// fields at their bytes in the file, through the BAT.
package mkimg
