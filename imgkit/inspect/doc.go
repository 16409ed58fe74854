// Package inspect looks inside fixture images and archives without mounting
// them: it detects the format of a file, opens it as an io/fs.FS, lists its
// tree, and explains by structure how two files differ. It is what
// fixturegen ls, cat and diff, and fixturetest's imgls, imgcat and cmpimg,
// are built on.
//
// Detect and Open find a file's format from its first bytes; ListFile and
// ListFileLong print its tree, with a column of the format's own (the FAT
// short name, the ar member's header offset, the FFS inode number, the
// ISO 9660 file identifier and extent block); Diff compares two files.
//
// # Formats
//
// Formats are kept in a small registry (Register). FAT images
// (imgkit/msdos), ar archives (imgkit/ar), FFS images (imgkit/ffs),
// ISO 9660 images (imgkit/cd9660), ext2/3/4 images (imgkit/ext) and partitioned disks (imgkit/mkimg,
// whose partitions are opened through this registry's Detect) are
// registered by this package, one line each in formats.go; a new format adds one such line, and a program can
// register a format of its own from an init function. Each format says how
// to recognise its files, how to open one as an fs.FS, what its listing's
// extra column shows and how to describe a file field by field.
//
// # Diff
//
// When both files are in one format and parse, Diff matches the fields of
// their descriptions by structure and name (the boot sector's
// BPB_SecPerClus, the directory entry of /DIR/A.TXT, an FFS file's
// di_mtime) and reports each field whose value differs with its offset, old
// and new value (a file's data as size and SHA-256, with the first byte
// that differs), structures present on one side only, and structures that
// moved. Bytes that differ outside every reported field, or files in no
// known format or in two formats, are reported as byte ranges. A report
// has at most MaxChanges lines.
package inspect
