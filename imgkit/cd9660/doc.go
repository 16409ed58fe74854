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
// Open and OpenReader read any ISO 9660 image as an io/fs.FS (with
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
// (component records joined with "/" unless one continues, across SL
// entries as within one), NM names with their continuation flags, TF
// times in short and long form, and relocated directories: a CL entry
// shows the relocated directory where it stood, RE entries are left out,
// and a directory left with nothing but relocated directories (rr_moved)
// is hidden, so that the tree reads as it did before relocation. NetBSD's
// makefs writes no RE entries; a CL entry then takes the directory from
// its record in rr_moved. SF (sparse file) entries are refused with
// ErrUnsupported when the file is opened; ZF (zisofs) and AAIP entries
// are not decoded.
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
package cd9660
