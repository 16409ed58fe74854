// Package describe is the contract between a format package and
// imgkit/inspect's registry: what a format provides so that tools can
// recognise its files, open them as an io/fs.FS and describe them field by
// field (Kind, Field and the hash helpers Sum, SumRange, Hash and
// DataValue).
//
// It sits beside inspect, as a package of its own, because inspect
// registers this module's formats and so imports their packages, which
// return their Kind from a Describe function: a contract inside inspect
// would make that an import cycle. describe imports nothing of this
// module.
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
//     cd9660, ext, disk, then any new one), and the first that matches wins.
//   - a field description, func Fields(r io.ReaderAt, size int64)
//     ([]Field, error), naming each field as the format's specification
//     does, with its offset, size and value in words. Each (Path, Name)
//     pair appears at most once; a file's contents are a Field named "data"
//     whose Path is the file's name in the FS that Open returns, with or
//     without a leading "/", and whose Value DataValue gives, so that a
//     diff can say where the contents first differ. Sum, SumRange and Hash
//     give the value of any other field shown as a hash.
//   - func Describe() describe.Kind, which puts these together with its
//     reader (an io/fs.FS), a one-line Summary and the listing Column;
//     OpenAs, SummaryOf, ColumnOf and OwnerOf let it write those over its
//     own types.
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
package describe
