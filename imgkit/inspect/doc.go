// Package inspect looks inside fixture images and archives without mounting
// them: it detects the format of a file, opens it as an io/fs.FS, lists its
// tree, and explains by structure how two files differ.
//
// Formats are kept in a small registry (Register) of describe.Kind
// values, the contract of imgkit/inspect/describe: each says how to
// recognise its files from their first bytes (Match), how to open one as
// an fs.FS, what extra
// column a listing shows (the FAT short name, the ar member's header
// offset, the FFS inode number, the ISO 9660 file identifier and extent
// block) and how to describe a file field by field.
// FAT images (imgkit/msdos), ar archives (imgkit/ar), FFS images
// (imgkit/ffs) and ISO 9660 images (imgkit/cd9660) are registered by this
// package, one line each in
// formats.go (Register(msdos.Describe())); a new format adds one such
// line, and a program can register a format of its own from an init
// function.
//
// Diff compares two files. When their formats are the same and both parse,
// it matches the fields of both descriptions by structure and name — the
// boot sector's BPB_SecPerClus, the directory entry of /DIR/A.TXT, the
// superblock's fs_minfree, the di_mtime of an FFS file's inode, the "ar
// member header date" of b.o — and reports each field whose value differs
// with its offset, old and new value (a file's data as size and SHA-256,
// with the first byte at which the contents differ); structures and files
// present on one side only; structures that moved, from the offset or,
// for a file's data and other fields spread over the file, the byte
// ranges they take in the first file to those in the second. Byte ranges that differ
// outside every reported field (free space, slack, anything the format's
// description does not cover, files in no known format, or files of two
// different formats) are reported as ranges. The report is bounded: at most
// MaxChanges lines.
package inspect
