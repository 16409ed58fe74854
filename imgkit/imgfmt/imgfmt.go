// Package imgfmt is what a format package builds its writer and reader
// on, so that every format has one shape and a new format copies none of
// it. On the writing side: reading the source tree (SourceTree) and making
// the image at a file, an io.WriterAt or memory through the block cache
// (Target, WriteImage), the one path under a format's WriteFile, Write and
// Build. On the reading side: opening an image file (OpenFile, OpenImage
// and the ImageFile a ReadCloser embeds), looking a path up in the
// format's tree, symbolic links included (Tree), and the open files and
// directories of its io/fs.FS (FileReader, DirReader), which behave as an
// *os.File does: Read, ReadAt and Seek fail with fs.ErrClosed after
// Close, and Seek refuses a whence it does not know.
//
// It is public, not internal, because formats outside this module are a
// goal: a program may describe a format of its own and register it with
// imgkit/inspect, and its reader can then be built on this package as the
// module's own are. The contract such a format fills is in
// imgkit/inspect/describe; the -o option tables of the makefs types are
// in imgkit/makefs/fsopt.
package imgfmt
