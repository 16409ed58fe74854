// Package ffs writes and reads UFS1 and UFS2 images of the Berkeley Fast
// File System, as FreeBSD's makefs(8) -t ffs makes them.
//
// WriteFile, Write and Build lay out the tree of an fstree.Source (a host
// directory, an io/fs.FS or a built fstree.Tree) with one Options value,
// whose fields are makefs's -o options and global flags: WriteFile into a
// file that appears only when complete, Write to an io.WriterAt, Build as
// bytes. The three give the same bytes as fixturegen makefs -t ffs with the
// same options. NewReader and OpenReader read any UFS1 or UFS2 image, in either
// byte order, back as an io/fs.FS; ExampleBuild shows both directions.
//
//	img, err := ffs.Build(fstree.FS(fsys), &ffs.Options{Version: 2, Timestamp: t})
//
// # What to know
//
//   - Options.Compat chooses whose makefs the bytes follow: FreeBSD's
//     (the default) or Debian's port of NetBSD's. For a tree whose readdir
//     order is bytewise the image equals that makefs's byte for byte, but
//     for the few differences listed in DETAILS.md.
//   - The image depends only on the tree and the options: without
//     Options.Timestamp, the times makefs takes from the clock are the
//     latest modification time in the tree.
//   - A size too small for the tree is an error wrapping ErrNoSpace or
//     ErrTooLarge that names the smallest size that fits; what the format
//     cannot hold (a long name, too many links) is an error naming the path.
//   - WriteFile keeps a bounded amount of memory whatever the image's size;
//     Build and Write hold the whole image in memory.
//   - A corrupt image read back gives an error wrapping ErrFormat.
//
// # More
//
// DETAILS.md in this package's folder is the reference: the layout and the
// FreeBSD and Debian rules, every difference from FreeBSD's makefs and why,
// determinism, memory, sparse images (-Z) and sleuthkit's limits with these
// images. The measurements behind the writer's choices are in BENCHMARKS.md
// at the repository root.
package ffs
