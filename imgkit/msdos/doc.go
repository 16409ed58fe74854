// Package msdos writes FAT12, FAT16 and FAT32 images as FreeBSD's makefs(8)
// -t msdos makes them, and reads any FAT image back as an io/fs.FS.
//
// WriteFile, Write and Build lay out the tree of an fstree.Source (a host
// directory, an io/fs.FS such as a testing/fstest.MapFS, or a built
// fstree.Tree) with one Options value, whose fields are makefs's msdos -o
// options: WriteFile into a file that appears only when complete, Write to
// an io.WriterAt, Build as bytes. The three give the same bytes as
// fixturegen makefs -t msdos with the same options; LayoutOf tells the
// geometry and size beforehand. NewReader and OpenReader read a FAT12/16/32
// volume back as an io/fs.FS with long names; FS.Entry gives a path's
// short name, attributes and cluster chain. ExampleBuild and
// ExampleWriteFile show both directions.
//
//	img, err := msdos.Build(fstree.FS(fsys), &msdos.Options{FATType: 32, Timestamp: t})
//
// # What to know
//
//   - For a tree whose readdir order is bytewise the image is FreeBSD's
//     makefs's byte for byte, except where FreeBSD writes a volume that
//     fsck.fat and mtools refuse: then a valid one is written, with a
//     warning. DETAILS.md lists each difference and why.
//   - Without a size the image is the smallest that holds the tree; a
//     tree that does not fit a given size is an error saying how large an
//     image it needs.
//   - Names FAT cannot hold (forbidden characters, a trailing dot or blank,
//     over 255 UTF-16 units, two names differing only by case) and files of
//     4 GiB or more are errors naming the path. Symbolic links, devices,
//     fifos, sockets and second hard links are skipped with a warning.
//   - Times are written in UTC, in FAT's 2-second units, clamped to
//     1980-2107; without Options.Timestamp the volume id is derived from
//     the tree, so the same tree and options always give the same image.
//   - The reader checks sizes and cluster chains against the volume before
//     it trusts them.
//
// # More
//
// DETAILS.md in this package's folder is the reference: the layout rule by
// rule, times, every difference from FreeBSD's makefs and why, the volume
// id and the reader's name rules.
package msdos
