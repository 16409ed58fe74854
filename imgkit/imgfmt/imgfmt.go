// Package imgfmt holds what every image format of imgkit shares with the
// others and with the commands built on them, so that a new format copies
// none of it: the reader's plumbing, opening an image file (OpenFile,
// OpenImage, ImageFile), looking a path up in its tree (Tree) and the
// open files and directories of its FS (FileReader, DirReader); and the
// format contract, how a format lets tools look inside its files (Format,
// Field and the hash helpers). The -o option tables of the makefs types
// are in imgkit/makefs/fsopt.
//
// # The format contract
//
// A format is one package (imgkit/msdos, imgkit/ffs, imgkit/ar,
// imgkit/cd9660) that provides, besides its writer and reader:
//
//   - func Match(head []byte) bool, which recognises a file of the format
//     from its first HeadSize bytes (fewer for a shorter file) by the
//     format's own constants: its magic numbers and their offsets, checked
//     in no more detail than it takes to tell the formats apart. Match must
//     not panic on any input and must reject the files of every other
//     format: formats are tried in registration order (msdos, ar, ffs,
//     cd9660, then any new one), and the first that matches wins.
//   - a field description, func Fields(r io.ReaderAt, size int64)
//     ([]Field, error), naming each field as the format's specification
//     does, with its offset, size and value in words. Each (Path, Name)
//     pair appears at most once; a file's contents are a Field named "data"
//     whose Path is the file's name in the FS that Open returns, with or
//     without a leading "/", and whose Value DataValue gives, so that a
//     diff can say where the contents first differ. Sum, SumRange and Hash
//     give the value of any other field shown as a hash.
//   - func Describe() Format, which puts these together with its Open (the
//     reader as an io/fs.FS), a one-line Summary and the listing Column;
//     OpenAs, SummaryOf and ColumnOf let it write those over its own
//     types.
//
// The package imgkit/inspect then registers it with one line in its
// formats.go, in the order detection tries the formats:
//
//	Register(msdos.Describe())
//
// and "fixturegen ls", "cat" and "diff" handle the format from then on. A
// program may register a format of its own the same way (inspect.Register,
// from an init function). The format's doc.go says what it supports and
// its limits, and the README's package table gains its line: that is all a
// new format writes; it copies nothing.
package imgfmt
