// Package cd9660 writes and reads ISO 9660 (ECMA-119) images as FreeBSD's
// makefs(8) -t cd9660 writes them, with Rock Ridge (IEEE P1282), El Torito
// boot catalogues and, beyond makefs, a Joliet supplementary volume.
//
// WriteFile, Write and Build lay out the tree of an fstree.Source (a host
// directory, an io/fs.FS or a built fstree.Tree) with one Options value,
// whose fields are makefs's cd9660 -o options: WriteFile into a file that
// appears only when complete, Write to an io.WriterAt, Build as bytes. The
// three give the same bytes as fixturegen makefs -t cd9660 with the same
// options. NewReader and OpenReader read any ISO 9660 image back as an io/fs.FS,
// with Rock Ridge names and modes when present, else Joliet names, else
// ISO 9660 identifiers; FS.View chooses another, FS.BootCatalog reads the
// El Torito catalogue.
//
//	img, err := cd9660.Build(fstree.FS(fsys), &cd9660.Options{RockRidge: true, Timestamp: t})
//	fsys, err := cd9660.NewReader(bytes.NewReader(img), int64(len(img)))
//
// The on-disk records are in format.go, one byte-array type per record
// with one accessor per field, named as the standards name them.
//
// # What to know
//
//   - For a tree walked in bytewise order and the same -T, the image is
//     FreeBSD's makefs's byte for byte, except where bsdtar, xorriso,
//     isoinfo, iso-info, 7z or fls do not read makefs's image back right:
//     there the writer writes what they all accept (deep trees stay in
//     place under Rock Ridge unless Options.RelocateDeepTrees, continuation
//     areas follow their directories, long symlinks split cleanly).
//   - Options.Compat "debian" gives the bytes of Debian's makefs (NetBSD's),
//     which keeps the files' own times whatever Timestamp says: give times
//     in an mtree spec for bytes that depend on the inputs only.
//   - The image is always the smallest that holds the tree; a directory
//     deeper than 8 levels without Rock Ridge or allow-deep-trees
//     (ErrDeepTree), and a file of 4 GiB or more below level 3
//     (ErrFileTooBig), are errors naming the path. Sockets are skipped with
//     a warning.
//   - The reader checks every size read from the image before trusting it
//     (errors wrap ErrFormat) and refuses what it does not decode with
//     ErrUnsupported; it reads the first session only.
//
// # More
//
// DETAILS.md in this package's folder is the reference: how the reader
// chooses and decodes a tree, the writer's layout rule by rule, times,
// every deviation from FreeBSD's makefs and why, Joliet, El Torito,
// compat=debian, archimedes and the limits.
package cd9660
