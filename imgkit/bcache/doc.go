// Package bcache is the block cache through which fixturegen writes every
// image: getblk, bread, bwrite and brelse over an image file, after the
// mmap'd buffer cache of FreeBSD makefs(8).
//
// Create makes the image as a temporary file beside its final path, sized
// with ftruncate so that everything never written stays a hole; Commit
// renames it into place. A failed or interrupted build never leaves a partial
// file at the final path, nor removes a good old file there.
package bcache
