// Package imgfmt holds what every image format of imgkit shares with the
// others and with the commands built on them, so that a new format copies
// none of it: the reader's plumbing, opening an image file (OpenFile,
// OpenImage, ImageFile), looking a path up in its tree (Tree) and the
// open files and directories of its FS (FileReader, DirReader). The -o option
// tables of the makefs types are in imgkit/makefs/fsopt, and the contract
// by which a format lets tools look inside its files in
// imgkit/inspect/describe.
package imgfmt
