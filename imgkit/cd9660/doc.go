// Package cd9660 writes and reads ISO 9660 (ECMA-119) images as FreeBSD's
// makefs(8) -t cd9660 writes them, with Rock Ridge (IEEE P1282), El Torito
// boot catalogues and, beyond makefs, a Joliet supplementary volume.
//
// The records of the format live in format.go, one byte-array type per
// record with one accessor per field named as ECMA-119, El Torito and
// SUSP/RRIP name them.
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
//   - The System Area (sectors 0 to 15) is zero; the Primary Volume
//     Descriptor is at sector 16 and the Volume Descriptor Set Terminator
//     follows it (a Joliet Supplementary Volume Descriptor comes between).
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
//     length, as makefs writes it.
//   - Names are converted as cd9660_level1_convert_filename and
//     cd9660_level2_convert_filename convert them: upper case, every byte
//     other than a letter or digit as "_", 8.3 at level 1, 30 characters
//     (31 for a directory) at level 2, the later dots of a file name as
//     "_" unless allow-multidot, "." before ";1" unless
//     omit-trailing-period. Level 3 (isolevel=3, which FreeBSD's makefs
//     refuses) names as level 2; files of 4 GiB or more are an error at
//     every level. allow-lowercase, allow-illegal-chars and allow-max-name
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
//     access and change times), NM, SL for symlinks and PN for devices;
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
//     content (readers drop it). Here a target that needs several SL
//     entries is split inside a component, never between two: bsdtar and
//     libisofs join consecutive SL entries without a "/", so an entry
//     that ended with a whole component would lose a slash. A target
//     that fits one entry is written as makefs writes it.
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
// extents (a symlink or device is an empty file there). With Joliet, the
// root's PX and TF come before its ER, so that they stay in the root's
// record: libarchive reads the Joliet hierarchy of an image whose root
// "." record shows no RRIP entry of its own. Readers that prefer Joliet
// (7z, iso-info, fls) then show the Joliet names.
//
// # compat=debian
//
// Options.Compat "debian" (-o compat=debian) gives the bytes of Debian's
// makefs -t cd9660 (the makefs package, NetBSD's makefs of 2019; see
// compat.go for every difference): System Identifier "NetBSD", its
// Application Use texts, the files' own times whatever Timestamp says
// (as that makefs ignores -T for cd9660; SOURCE_DATE_EPOCH still bounds
// them), the root's modification time for the volume's dates (that makefs
// takes the clock), its Rock Ridge entries and its level-1 names. The
// tests compare it with Debian's makefs on twelve cases, masking only the
// dates that makefs takes from the clock. The deviations above apply to
// it too.
//
// # Limits
//
// Not written here: El Torito (eltorito.go has it and its options), multi-extent
// files, extended attribute records, the optional path tables, and
// NetBSD's archimedes extension (the option is accepted and changes
// nothing; FreeBSD's makefs does not know it). iso-info (libcdio) does
// not follow CE entries, so names in continuation areas show as ISO 9660
// identifiers there.
package cd9660
