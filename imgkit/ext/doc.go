// Package ext reads ext2, ext3 and ext4 file system images as an io/fs.FS,
// and writes ext2, ext3 and ext4 images as mke2fs -d does.
//
// The reader (NewReader, OpenReader) takes images made by anyone, as
// e2fsprogs 1.47.4's lib/ext2fs and the kernel's fs/ext4 define them:
// blocks of 1024 to 65536 bytes, inodes of 128 bytes or more, 32- and
// 64-bit group descriptors (the 64bit feature) in the traditional layout
// or in meta groups (meta_bg), extent trees of any depth and the direct
// and indirect blocks of ext2 and ext3 (holes and unwritten extents read
// as zeros), linear and hash-indexed directories (an htree directory is
// read through its leaf blocks, as a linear one), inline data
// (inline_data) for files, directories and symbolic links, fast and slow
// symbolic links, character and block devices, FIFOs and sockets as
// fs.FileMode bits, and hard links (one inode under several names).
// FS.Xattrs gives a path's extended attributes: those in the inode's
// body, in its attribute block (i_file_acl) and values kept in inodes of
// their own (ea_inode).
//
// Checksums are verified, never enforced: a superblock's s_checksum, a
// group descriptor's bg_checksum (metadata_csum's crc32c or gdt_csum's
// crc16), an inode's, an extent or directory block's tail, an htree index
// block's dx_tail, the block and inode bitmaps' checksums, an attribute
// block's h_checksum and an attribute's e_hash that do not match what
// they cover are reported by FS.Warnings, naming the structure and its
// byte offset, and the image reads on.
//
// The reader is bounded: every count and size read from the image is
// checked before it is used to allocate (the group descriptors must fit
// the image, a directory holds at most 256 MiB, ReadFile reads at most 1
// GiB and Open reads a file of any size), an extent tree whose depth does
// not fall by one at each level or that visits a block twice is refused,
// and a directory whose subdirectory does not name it as ".." (a loop) is
// refused by ReadDir, so that a walk of any image ends. Errors about the
// image wrap ErrFormat and name the structure and its byte offset.
//
// Not read yet: encrypted names and contents (read as stored), the
// journal's transactions (Fields describes the journal inode and its
// superblock; it is not listed as a file), POSIX ACLs in getxattr(2)'s
// form (Xattrs gives them as stored).
//
// The writer (WriteFile, Write, Build) makes ext2, ext3 and ext4 images
// from a source tree as `mke2fs -t TYPE -d DIR` of e2fsprogs 1.47.4 does
// with its default mke2fs.conf, byte for byte when given the same UUID,
// hash seed and SOURCE_DATE_EPOCH (Options.UUID, HashSeed, Timestamp with
// ClampTimes; ext4's s_kbytes_written from a model of mke2fs's I/O,
// DETAILS.md). What it does
// not reproduce yet is refused with ErrOption rather than written
// differently; a tree that does not fit is ErrNoSpace. UpdateFile writes
// into a file that holds bytes already, as mke2fs writes to a device:
// the bytes outside the file system (a disk's partition table before
// Options.Offset) are kept.
//
// The package registers with imgkit/inspect through Describe, so that
// "fixturegen ls", "cat" and "diff" read ext images and the ext file
// systems inside disks and containers.
package ext
