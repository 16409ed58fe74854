// Package cd9660 writes and reads ISO 9660 (ECMA-119) images as FreeBSD's
// makefs(8) -t cd9660 writes them, with Rock Ridge (IEEE P1282), El Torito
// boot catalogues and, beyond makefs, a Joliet supplementary volume.
//
// The records of the format live in format.go, one byte-array type per
// record with one accessor per field named as ECMA-119, El Torito and
// SUSP/RRIP name them.
//
// # Reading
//
// NewReader and OpenReader read any ISO 9660 image as an io/fs.FS (with
// fs.ReadLinkFS): the volume descriptor set from sector 16 to its
// terminator, then one directory tree, chosen as Linux's isofs and
// libisofs choose it: Rock Ridge when the primary root's "." record starts
// with the SUSP indicator SP, else the Joliet supplementary volume (escape
// sequences %/@, %/C or %/E), else the primary volume's ISO 9660 names.
// FS.View gives the others.
//
// Without Rock Ridge a file's name is its file identifier without the
// version (";1") and a trailing "."; the case is kept, as libisofs,
// libarchive (bsdtar) and 7-Zip show it (Linux's isofs lower-cases it
// under its default map=normal). Joliet names are UCS-2 (UTF-16 with
// surrogate pairs) treated the same way. Names that are not UTF-8 are read
// as Latin-1; names that are not valid fs.FS names, and repeats of a name
// in a directory, are left out. Files are read-only (0444, directories
// 0555) unless a PX entry gives their mode.
//
// Rock Ridge: SP's LEN_SKP, CE continuation areas (at most 64 per record
// and 64 KiB, a loop is an error), PX modes, links, owners and serial
// numbers, PN devices (as Linux reads them: Dev_t High and Low are major
// and minor unless High is 0, when Low is a whole dev_t), SL links
// (component records joined with "/" unless one continues or is the
// root, across SL entries as within one, so that a ROOT component after
// the first doubles a "/" as in bsdtar and xorriso), NM names with their continuation flags, TF
// times in short and long form, and relocated directories: a CL entry
// shows the relocated directory where it stood, RE entries are left out,
// and a directory left with nothing but relocated directories (rr_moved)
// is hidden, so that the tree reads as it did before relocation. NetBSD's
// makefs writes no RE entries; a CL entry then takes the directory from
// its record in rr_moved. SF (sparse file) entries are refused with
// ErrUnsupported when the file is opened. Files with a ZF entry of zisofs
// (mkzftree, mkisofs -z, xorriso -set_filter --zisofs) or a ZF or Z2
// entry of zisofs2 with zlib read and stat uncompressed: the uncompressed
// size must need no more block pointers than the recorded bytes hold, the
// header must agree with the entry, the pointers must rise within the
// file, every block must decode to its length (a block of no bytes is
// zeros), and blocks are 2^15 to 2^17 bytes (zisofs2: to 2^20, as xorriso
// writes them); anything else is an ErrFormat error naming the record's
// or the file's byte offset, and zisofs2's other algorithms are
// ErrUnsupported. A file whose entry is refused stats with its Data
// Length, as bsdtar shows it. AAIP entries are not decoded.
//
// Directory records: multi-extent files are joined, associated files
// skipped, extended attribute records stepped over, interleaved files
// (File Unit Size and Interleave Gap Size) read unit by unit; the Logical
// Block Size may be 512, 1024 or 2048. Only the first session is read.
// FS.BootCatalog reads the El Torito boot catalogue. Every size read from
// the image is checked against the image before it is trusted: the
// directories read may not add up to more than the image, a directory
// extent is read once (later records pointing at it are dropped), and
// nesting stops at 2048 levels.
//
// # Writing
//
// WriteFile, Write and Build lay the tree of an fstree.Source out as an
// ISO 9660 volume: a host directory (fstree.Dir), an io/fs.FS
// (fstree.FS), or an fstree.Tree built already. WriteFile writes the
// image to a file through the block cache (imgkit/bcache), so that it
// appears at its path only when complete; Write writes it to an
// io.WriterAt and Build returns it. The three make the same bytes from
// the same source and Options, and so does the fixturegen makefs command
// line (-t cd9660) with the same options. For a tree walked in bytewise
// order and the same -T, the image is byte for byte the one FreeBSD's
// makefs -t cd9660 makes, except where listed under Deviations; the tests
// compare them across interchange levels, with and without Rock Ridge,
// with every allow-* option, the identifier options, hard links,
// symlinks, devices and fifos, a 200-entry directory and relocated deep
// trees. The layout follows cd9660_makefs:
//
//   - The System Area (sectors 0 to 15) is zero unless boot options fill
//     it (see El Torito); the Primary Volume Descriptor is at sector 16
//     and the Volume Descriptor Set Terminator follows it (an El Torito
//     Boot Record, then a Joliet Supplementary Volume Descriptor, come
//     between).
//     The System Identifier is "FreeBSD"; the Volume Identifier (label),
//     Volume Set Identifier (volumeid), Publisher, Data Preparer and
//     Application Identifiers are blanks unless given, upper-cased, and
//     must be d-characters (label, 32) or a-characters (128), as makefs
//     checks them. The creation, modification and effective dates are the
//     volume time (below); the expiration date is unset.
//   - The Type L path table, then the Type M one, follow the descriptors,
//     directories numbered breadth first.
//   - From there each directory's extent is followed by its
//     subdirectories' (recursively) and then its files' extents, in the
//     order of its records (cd9660_compute_offsets). A record never
//     crosses a sector, and one that would end a sector exactly starts
//     the next one. A file's extent is where the next free sector is when
//     it comes first among its hard links; the other names share it. An
//     empty file, a symlink and a device take no sector, and their extent
//     is the next free sector; a symlink's Data Length is its target's
//     length, as makefs writes it, in its Joliet record too. (With Joliet
//     a symlink has sectors of its own; see Joliet.)
//   - Names are converted as cd9660_level1_convert_filename and
//     cd9660_level2_convert_filename convert them: upper case, every byte
//     other than a letter or digit as "_", 8.3 at level 1, 30 characters
//     (31 for a directory) at level 2, the later dots of a file name as
//     "_" unless allow-multidot, "." before ";1" unless
//     omit-trailing-period. Level 3 (isolevel=3, which FreeBSD's makefs
//     refuses) names as level 2 and gives a file of 4 GiB or more one
//     record per section of up to 0xFFFFF800 bytes, all but the last with
//     the Multi-Extent flag (multiextent.go; xorriso, bsdtar and 7z read
//     them); at levels 1 and 2 such a file is an error naming it.
//     allow-lowercase, allow-illegal-chars and allow-max-name
//     are accepted and change nothing, as in makefs. Records are sorted
//     as cd9660_compare_filename and cd9660_sort_nodes sort them, and
//     names equal after conversion are renamed as
//     cd9660_handle_collisions renames them, quirks included: the digits
//     go after the extension at level 2 ("A_B.0;1"), and the record keeps
//     the identifier length of the name it had, so "A_B.0;" is what is
//     written, with the "1" in the padding byte.
//   - Sockets are skipped with a warning (Options.Warn), as makefs's walk
//     skips them. An empty tree makes a volume with an empty root, where
//     makefs stops with an error.
//   - A directory at level 9 of the hierarchy (the root being level 1) is
//     an error naming its path, unless allow-deep-trees or rockridge.
//   - Under Rock Ridge every record carries PX (the mode, link count,
//     owner and a serial number counted from 1 in the order makefs's
//     pass meets the files, hard links sharing one), TF (modification,
//     access and change times), NM, SL for symlinks (empty components,
//     from "//" or a trailing "/", left out as makefs leaves them out)
//     and PN for devices;
//     the root's "." record starts with SP and ER ("IEEE_P1282"). Entries
//     that do not fit a record of 254 bytes go to a continuation area
//     behind a CE entry, placed where cd9660_susp_handle_continuation
//     places it.
//   - 150 zero sectors end the image (not counted in the Volume Space
//     Size). makefs's no-trailing-padding is a boolean that sets the
//     padding flag, so "-o no-trailing-padding" changes nothing and
//     "-o no-trailing-padding=0" leaves the padding out (Options.
//     NoTrailingPadding); it is the same here.
//   - -s, -m and -M are ignored with a warning, as FreeBSD's makefs
//     ignores them for cd9660: the image is always the smallest that
//     holds the tree.
//
// # Times
//
// With Options.Timestamp (-T) every date is that time: records, Rock
// Ridge time stamps and the volume descriptors' dates. With ClampTimes
// (SOURCE_DATE_EPOCH) the files' times are bounded by it and the volume's
// dates are it (makefs takes them from the clock, which is past the
// bound). With neither, files keep their times and the volume's dates,
// and the records makefs dates with its clock (the root, RR_MOVED and
// relocation placeholders), are the root directory's modification time,
// so that the image depends on its inputs only. Dates are written in UTC
// with offset 0, as makefs writes them with TZ=UTC.
//
// # Deviations
//
// Where FreeBSD's makefs writes what the readers tested here (bsdtar,
// xorriso, isoinfo, iso-info, 7z, fls) do not read back right, this
// package writes what they all accept, and only there:
//
//   - Deep trees under Rock Ridge. makefs relocates a directory at level
//     9 into RR_MOVED (".rr_moved") with CL, PL and RE entries; bsdtar
//     rejects nested relocations ("Failed to connect 'CL' pointer to 'RE'
//     rr_moved pointer") and xorriso shows .rr_moved as a directory of
//     the tree. Here deep directories stay in place, as xorriso writes
//     them; every reader above reads them. Options.RelocateDeepTrees
//     (-o relocate-deep-trees, not a makefs option) relocates as makefs
//     does, byte for byte.
//   - Continuation areas. makefs puts all of them after the tree, one
//     after the other, and names each by the first area's sector and an
//     offset that may pass the end of that sector. libarchive (bsdtar)
//     reads an image in one pass: it rejects a regular file whose area
//     comes after its contents, or an area that ends past the sector its
//     CE entry names ("Invalid parameter in SUSP CE extension"), and
//     loses the entries of other areas. So whenever a record other than
//     the root's "." has an area (a name of about 150 characters or more,
//     a long symlink target), or the areas pass one sector, each
//     directory's areas follow its extent, none crossing a sector. The
//     root's "." record always has one (its PX and TF); alone it stays
//     where makefs puts it, which bsdtar reads without the root's mode.
//   - Long symlink targets. makefs splits the SL entries of a target of
//     more than about 247 bytes with an uninitialised flags byte, and a
//     component that starts at the split point gets two zero bytes of
//     content (readers drop it). bsdtar and libisofs join consecutive SL
//     entries without a "/", Linux, isoinfo and this package's reader
//     with one unless the entry's last component continues, so here no
//     entry but the last ends with a whole component: a component is
//     split where the entry fills up (flagged CONTINUE), or the entry's
//     last component gives its last byte to the next entry, or, when that
//     component has one byte or is "." or "..", the entry ends with an
//     empty component flagged CONTINUE, after which every reader puts the
//     "/" and joins the next entry. A target that fits one entry is
//     written as makefs writes it.
//   - A symlink that is the last record to get an extent. Its extent is
//     the next free sector and its Data Length its target's length, as in
//     makefs, whose continuation areas after the tree hold that sector.
//     When nothing follows the tree (the areas follow their directories,
//     and there is no Joliet hierarchy), the link would run past the end
//     of the volume, and bsdtar refuses the image ("Invalid location of
//     extent of file"); under Rock Ridge the volume then ends with the
//     zero sectors the link's Data Length spans. Without Rock Ridge the
//     image stays makefs's, which bsdtar refuses the same way when such a
//     link comes last in the root (the links tree of the tests).
//   - no-trailing-padding=0: makefs then writes its zero "padding" sector
//     over the last sector of the volume, the last file's contents or
//     the continuation areas. Here that sector keeps its data.
//   - A symlink component such as "..x" makes makefs loop forever; here
//     it is content. Empty components ("a//b", a trailing "/") are left
//     out, as makefs leaves them out.
//
// # Joliet
//
// Options.Joliet (-o joliet) adds a Joliet Supplementary Volume
// Descriptor (escape sequence %/E, UCS-2 level 3), its own path tables
// after the primary ones, and its own directories, with the source
// tree's shape and UCS-2 big-endian names of up to 64 characters (a name
// equal to another's after cutting gets "~N"), placed after the primary
// hierarchy and one zero sector; its file records share the primary
// extents. A symlink's records (primary and Joliet) have its target's
// length as Data Length, as makefs's primary record has, and, unlike
// makefs's, an extent of its own that holds the target: makefs gives a
// link the next free sector, which is the next file's, and then bsdtar,
// reading the ISO 9660 records of an image without Rock Ridge, extracts
// that file as a hard link of the link, with the link's size, and 7z,
// iso-info, isoinfo -J and xorriso, reading the Joliet records, show the
// link as the first bytes of that file. So every reader shows a link as a
// link (Rock Ridge) or as a file holding its target, and each file with
// its own bytes (the tests read the images with all five). Images without
// Joliet keep makefs's bytes. An empty file, a device and a fifo still get
// the next free sector with Data Length 0, as in makefs, which every
// reader takes as empty; a second hard link shares its file's extent, as
// a hard link should. With Joliet, the root's PX and TF come before its ER, so that they stay in the root's
// record: libarchive reads the Joliet hierarchy of an image whose root
// "." record shows no RRIP entry of its own. Readers that prefer Joliet
// (7z, iso-info, fls) then show the Joliet names.
//
// # El Torito
//
// Options.Boot holds makefs's boot options (bootimage, B; no-emul-boot,
// hard-disk-boot, no-boot, boot-load-segment and platformid, which apply
// to the last bootimage; bootimagedir; generic-bootimage, G; chrp-boot,
// C), and the images are byte for byte makefs's for them, with and
// without Rock Ridge (the tests compare floppy, no-emulation and hard
// disk images, several images of several platforms, load segments,
// no-boot, platformid, the generic boot image and the partition tables):
//
//   - A boot image is a host file, named as makefs opens it (relative to
//     the working directory); it need not be in the tree, and when it is
//     it is written twice, as makefs writes it. bootimagedir is checked
//     (up to 12 d-characters) and otherwise unused, as in makefs, and no
//     boot catalogue file appears in the tree.
//   - The Boot Record is in sector 17. The catalogue follows the volume
//     descriptor set, in the sectors the Validation Entry and one entry
//     per image take (makefs does not count the Section Headers), then
//     the images, each from a new sector, in makefs's order: each
//     new image goes before the first image of another system. The path
//     tables follow after as many sectors as the images' 512-byte sector
//     counts add up to, which is what makefs reserves.
//   - The Initial/Default Entry is the first image given, and the
//     Validation Entry has its platform; the others get Section Entries
//     under one Section Header per platform (platformid=efi changes an
//     image's), the headers in the reverse order of their platforms'
//     first images. The media type is a 1.2, 1.44 or 2.88 MB floppy for
//     images of exactly those sizes, else no emulation, unless
//     no-emul-boot or hard-disk-boot says otherwise; the System Type is
//     the platform (makefs does not read a hard disk image's MBR); the
//     Sector Count is the image's size in 512-byte sectors, rounded up
//     to 2048 bytes (its low 16 bits); no-boot marks the Initial/Default
//     Entry only, as in makefs.
//   - The generic boot image (up to 32768 bytes) is written from byte 0.
//     With a powerpc image or chrp-boot (which, as in makefs, needs a
//     bootimage) the System Area gets an MBR: a 96h partition over the
//     whole image for chrp-boot and a 41h (PReP Boot) one per powerpc
//     image; with a macppc or mac68k image an Apple Partition Map. Their
//     bytes are makefs's, its quirks included: an image partition's size
//     is 4 times its 512-byte sector count, and the APM's last entry
//     (CD_ROM_Mode_1) is written one block past the count of entries.
//
// Where this package differs: a boot-load-segment that is not a
// hexadecimal number up to ffff and a platformid other than efi are
// errors (makefs warns and goes on with segment 0 or the image's own
// platform); a boot image's size is its file's, following symlinks
// (makefs takes lstat's); boot images whose partition entries would not
// fit in the System Area (more than 60 Mac or 2019 powerpc images) are an
// error (makefs writes them over the volume descriptors). With 63 or more
// images the catalogue's last entries run into the first image's sector,
// as in makefs, and the image wins.
//
// With compat=debian the boot area is Debian's makefs's (NetBSD's
// cd9660_eltorito.c of 2008): the Initial/Default Entry is the first
// image in makefs's order rather than the first given, the Validation
// Entry's platform is always 80x86, no Section Header is marked the last,
// each header's entries are in the reverse order of the images, each
// image starts as many 2048-byte sectors after the previous one as that
// one has 512-byte sectors, and no MBR or APM is written. The efi system,
// platformid and chrp-boot, which that makefs does not have, are errors.
//
// # compat=debian
//
// Options.Compat CompatDebian (-o compat=debian) gives the bytes of Debian's
// makefs -t cd9660 (the makefs package, NetBSD's makefs of 2019; see
// compat.go for every difference): System Identifier "NetBSD", its
// Application Use texts, the files' own times whatever Timestamp says
// (as that makefs ignores -T for cd9660; SOURCE_DATE_EPOCH still bounds
// them; Options.SourceTimes is the rule, which the makefs command line
// builds its tree with), the root's modification time for the volume's
// dates (that makefs takes the clock), its Rock Ridge entries and its
// level-1 names. An mtree spec's time= is a file's modification, access
// and, under Rock Ridge, change time; Debian's makefs writes its clock as
// the change time there, which no two runs share; here the spec's time
// stands in for it, so that the image depends on its inputs only. A node
// the spec adds to the tree without a time= gets the Unix epoch, or
// SOURCE_DATE_EPOCH's time when that is set (Debian's makefs: the clock).
// The tests compare it
// with Debian's makefs on fifteen cases, each with -T equal to the files'
// modification time, another -T and none, and with a spec giving every
// entry time= with and without -T, masking only the dates that makefs
// takes from the clock (and checking that the TF change times a spec sets
// are its time). The deviations above apply to it too. For the bytes of
// an image to depend on its inputs only under compat=debian, give the
// times in the spec: -T does not fix them.
//
// # archimedes
//
// Options.Archimedes (-o archimedes, NetBSD's option; FreeBSD's makefs
// does not know it) writes NetBSD's RISC OS extension (archimedes.go): a
// file named "name,xxx" gets the identifier of "name" and a 32-byte
// ARCHIMEDES block with its file type and time stamp at the end of its
// System Use field, as does a record whose name starts with "!"; under
// Rock Ridge an ST entry ends the SUSP entries before it. The tests
// compare it with Debian's makefs. bsdtar turns Rock Ridge off for the
// rest of an image at its first ST entry (libarchive), so it shows the
// later records' ISO 9660 identifiers; xorriso and isoinfo read them.
//
// # Limits
//
// Not written: extended attribute records and the optional path tables.
// iso-info (libcdio) does not follow CE entries, so names in
// continuation areas show as ISO 9660 identifiers there.
package cd9660
