// Package msdos writes FAT12, FAT16 and FAT32 images as FreeBSD makefs -t
// msdos makes them, and reads any FAT image back as an io/fs.FS.
//
// # Writing
//
// WriteFile, Write and Build lay the tree of an fstree.Source out as a FAT
// volume: a host directory (fstree.Dir), an io/fs.FS such as a
// testing/fstest.MapFS (fstree.FS), or an fstree.Tree built already.
// WriteFile writes the image to a file through the block cache
// (imgkit/bcache), so that it appears at its path only when complete;
// Write writes it to an io.WriterAt and Build returns it. The three make
// the same bytes from the same source and Options, and so does the
// fixturegen makefs command line with the same options; LayoutOf tells the
// geometry and size beforehand. The layout follows FreeBSD's makefs, which
// formats the image with newfs_msdos's mkfs_msdos.c and fills it with a
// port of the msdosfs kernel code:
//
//   - Volume parameters (Options, one field per -o option of makefs(8)'s
//     msdos type) are selected as newfs_msdos selects them for an image
//     file: 63 sectors per track, 255 heads, no hidden sectors, media
//     descriptor 0xf0, 2 FATs, 512 root entries on FAT12/16
//     (directory_entries is rounded up to whole sectors), at least one
//     reserved sector on FAT12/16 and 16 KiB of them (32 of 512 bytes) on
//     FAT32 with the FSInfo sector at 1 and the backup boot sector at 2.
//     Unless reserved_sectors is given, the reserved area is padded so that
//     the data area, after the root directory, starts on a cluster
//     boundary (align only adds a warning when that fails). The default
//     cluster size comes from the sector count (up to 6000 sectors 1, up
//     to 2^17 8, up to 2^19 16, up to 2^21 32, else 64 sectors); the FAT
//     type, unless fat_type is given, is the smallest that the size allows
//     (FAT12 below 4085 clusters, FAT16 below 65525 or whenever
//     directory_entries is given, else FAT32). A type with too few
//     clusters is an error naming the count and the allowed range (the
//     hint names a cluster size that would do); a type with too many has
//     its sector count capped, with a warning, as newfs_msdos caps it. The
//     boot sector carries OEM name "BSD4.4  ", newfs_msdos's boot stub and
//     "NO NAME" unless volume_label is given; the label is also the root
//     directory's first entry. The FSInfo sector's free count and next
//     free cluster stay "unknown" (0xFFFFFFFF), as makefs leaves them.
//   - Numbers of -o options (ParseOption) are read as makefs reads them,
//     by fsopt.ParseNumber: base 10 (0100 is a hundred, and 0x10 is 0
//     times 10), suffixes b k m g t w, products with x; a numeric option
//     given without a value is 1.
//   - Without a size (-s, -m, size, create_size or floppy) the image is
//     the smallest that holds the tree with the other options, and it is
//     the image FreeBSD's makefs makes when given that size; -M (minimum
//     size) makes it at least that large; -m (maximum size), like -s, gives
//     the size, as makefs uses it for FAT. When a tree does not fit a given
//     size, the error says how large an image it needs.
//   - The tree is laid out depth-first, pre-order, children in bytewise
//     order. A directory's first cluster is allocated before its entry is
//     added to its parent; a directory grows by a cluster when an entry
//     does not fit; a file's clusters are allocated at once, after its
//     entry. Empty files take no cluster. On FAT12/16 a root directory
//     with more entries than the root holds is an error naming the limit,
//     and any directory needing more than 65536 32-byte entries (long-name
//     entries included), the most FAT allows, is an error naming it.
//   - Short names are made as FreeBSD's msdosfs makes them (upper-cased,
//     characters a short name cannot hold dropped, the extension after the
//     last dot cut to 3 characters, the base to 8), and a name that lost
//     characters gets a "~N" tail, N being the first number not yet taken
//     in the directory (so ~10, ~11 and on after ~9). Any name that is not
//     already an exact upper-case 8.3 name gets long-name entries.
//     Long names are UTF-8 decoded to UTF-16, surrogate pairs included
//     (makefs widens bytes to UCS-2); as in FreeBSD, a long name of 254 or
//     255 units has no 0x0000 terminator, and a shorter one has one when
//     its last entry has room.
//   - Names FAT cannot hold are errors that name the path: names with
//     control characters or any of " * / : < > ? \ |, names that end in a
//     dot or blank (FAT would drop them), names longer than 255 UTF-16
//     units, and names in one directory that differ only by case.
//   - Files without the owner write bit get the read-only attribute (an
//     fs.FS entry with no permission bits at all, as a fstest.MapFile
//     without a Mode, is an ordinary 0644 file: see fstree.FS).
//     Symbolic links, devices, fifos and sockets are skipped with a
//     warning naming each (Options.Warn), as makefs skips them; so are the
//     second and later names of a hard-linked file (makefs skips them
//     silently; FAT cannot share clusters). A file of 4 GiB or more is an
//     error.
//
// Times are written in UTC, never through the local time zone. A FAT time
// counts 2-second units, so an odd second rounds down; DIR_CrtTimeTenth is
// 0, as makefs writes it. DIR_CrtTime, DIR_CrtDate and DIR_LstAccDate hold
// the modification time too. With Options.Timestamp (-T) every time is the
// timestamp, as makefs writes it; with ClampTimes too, it is only an upper
// bound, as SOURCE_DATE_EPOCH is. The entry points apply that rule to the
// source's tree (fstree.Options), so that one field sets the time. The
// volume label entry carries the root directory's time (after the rule).
// Dates before 1980 become 1980-01-01 00:00:00, dates after 2107 become
// 2107-12-31 23:59:58.
//
// # Differences from FreeBSD makefs
//
// TestFreeBSDMakefsBytes compares the writer with FreeBSD's makefs (a
// Linux port of its code, run on trees whose readdir order is bytewise)
// over FAT12, FAT16 and FAT32, cluster sizes, reserved sectors given or
// not, root directory sizes, labels, OEM strings, hidden sectors, FAT
// counts, floppies, bootstraps, offsets and sizes; every case gives the
// same bytes. The remaining differences, each for a reason:
//
//   - Where newfs_msdos makes a volume whose FAT cannot hold the clusters
//     its sector count gives (it counts the FAT sectors twice when it pads
//     the reserved area and leaves a FAT sector out of its estimate: FAT32
//     at -s 64m with sectors_per_cluster=1, a forced FAT12 capped with
//     more than one sector per cluster, the 1232 KiB floppy in 512-byte
//     sectors, a small
//     sectors_per_fat), fsck.fat, mtools and this package's reader refuse
//     the volume. The sector count is cut to what the FAT holds, as macOS's
//     newfs_msdos does, with a warning; every other byte is FreeBSD's.
//   - FreeBSD's msdosfs takes a volume of exactly 4084 clusters for FAT16
//     (fatgen103 and newfs_msdos: FAT12 below 4085) and fills the FAT12
//     table with 16-bit entries, which readers refuse; FAT12 entries are
//     written, with a warning.
//   - newfs_msdos counts an image file in 512-byte units even with larger
//     sectors, claiming up to 8 times the sectors the file holds; here the
//     file is counted in bytes_per_sector units, with a warning.
//   - FreeBSD keeps blanks in a short name whose base has 8 or fewer
//     bytes ("SUB DIR"); sleuthkit then cannot read the directory holding
//     it and mtools cannot find the name, so blanks are dropped (the name
//     gets a ~N tail and a long name). FreeBSD puts '+' into short names,
//     which fatgen103 forbids; it is dropped too. Non-ASCII characters are
//     dropped from short names rather than mapped byte by byte through a
//     code page, and long names are decoded from UTF-8.
//   - FreeBSD's makefs makes no image without -s or -m (newfs_msdos gets no
//     file to format, and makefs still exits 0), nor when newfs_msdos
//     refuses the parameters (an image of zeros, exit 0); here the first
//     gives the smallest image that holds the tree and the second an
//     error.
//   - -o offset without -O makes FreeBSD's makefs write the volume at the
//     offset and then look for it at 0, and fail; here -o offset is -O.
//   - FreeBSD's makefs notes the -T time for the volume only while it
//     parses -o options, so that with -T after the last -o, or with no -o,
//     the volume id and the label entry's time come from the clock; here
//     -T applies wherever it stands. -o timestamp, which FreeBSD's makefs
//     accepts and never uses, sets the time as -T does.
//   - Without -T, FreeBSD's makefs takes the creation time from the
//     source's change time and the access date from its access time, and
//     the volume id and label time from the clock; here every time is the
//     modification time, and the volume id is derived from the tree (see
//     below), so that the same tree gives the same image. FreeBSD's makefs
//     writes file times in the local time zone, and dates outside
//     1980–2107 wrap around (-T 0 gives 2098); here they are UTC and
//     clamped.
//
// # Volume id
//
// Unless Options.VolumeID is set, BS_VolID is newfs_msdos's value for the
// time of the volume label entry when Options.Timestamp is set (month,
// day and second in the high half, year, hour and minute in the low half),
// which is FreeBSD's makefs's value under -T. Without a Timestamp it is
// not taken from the clock as newfs_msdos does: it is the first four bytes,
// read little-endian, of the SHA-256 of a text that lists "fixturegen
// msdos volume id v1"; the FAT type, bytes per sector, sectors per
// cluster, total sectors, reserved sectors, number of FATs and root
// entries; the volume label and OEM string; then, for every file and
// directory in layout order, its type, path, size, modification time in
// nanoseconds and read-only bit. The same tree and options always give the
// same id.
//
// # Speed
//
// File contents are copied after the metadata, as one batch of bcache's
// CopyFiles: up to 4 workers, the data range preallocated, and files that
// follow each other through the slack of their last cluster (given as
// FileCopy.Pad) read into one buffer and written with one pwrite. That way
// of copying was chosen by measurement; the numbers are in BENCHMARKS.md at
// the repository root.
//
// # Reading
//
// NewReader reads a FAT12/16/32 volume (type from the cluster count as
// fatgen103 specifies) from an io.ReaderAt, OpenReader from a file (as
// archive/zip's OpenReader: close the *ReadCloser when done); both give an
// FS, which implements fs.FS,
// fs.ReadDirFS, fs.StatFS and fs.ReadFileFS. Names are the long names
// where present, else the short names (lower-cased per DIR_NTRes), whose
// bytes of 0x80 and above are read as code page 850, the OEM code page
// mtools and fsck.fat assume by default (Linux's vfat assumes 437);
// FS.Entry gives the short name, attributes, times and cluster chain of a
// path. Sizes read from the image are checked against the volume before
// anything is allocated, cluster chains that loop or leave the volume are
// errors, and a directory may not exceed 65536 entries.
package msdos
