// Package ffs writes and reads UFS1 and UFS2 images of the Berkeley Fast
// File System, as makefs(8) -t ffs makes them.
//
// # Writing
//
// WriteFile, Write and Build make the image of a tree, given as an
// fstree.Source (a host directory, fstree.Dir; an io/fs.FS, fstree.FS; or
// a built fstree.Tree), with one Options value: WriteFile in a file, which
// appears only when the image is complete; Write to an io.WriterAt; Build
// as bytes in memory. The three give the same bytes, which are those of
// fixturegen makefs -t ffs with the same options. They lay the tree out
// through the block cache (imgkit/bcache) with the algorithms of makefs's
// ffs code: the geometry of its mkfs.c (cylinder groups sized so that each
// group's map fits in one block), the inode numbering and write order of
// ffs.c (each directory's entries are numbered together, the directory and
// its files are written, then its subdirectories in order), and the block
// allocator of ffs_alloc.c and ffs_balloc.c (preferred block, rotor,
// quadratic rehash; files of up to UFS_NDADDR blocks end in fragments,
// longer files in whole blocks). Without Options.Size the image is the
// smallest makefs would choose for the tree (its ffs_validate estimate),
// plus the free space and inodes asked for (Options.FreeBlocks,
// Options.FreeFiles).
//
// Every option of makefs -t ffs is supported: version, bsize, fsize,
// density, minfree, maxbpg, avgfilesize, avgfpdir, extent, maxbpcg,
// optimization, label and softupdates (ParseOption applies them,
// OptionHelp describes them), and the global -s, -M, -m, -b, -f, -R, -O,
// -S, -Z, -B and -T (Options).
//
// # FreeBSD and Debian
//
// FreeBSD's current makefs and the makefs Debian packages (a 2019 port of
// NetBSD's) differ; Options.Compat selects which is followed.
// CompatFreeBSD, the default: bsize 32768 and fsize 4096 unless given,
// minfree 8, the UFS2 superblock at byte 65536, times written as the tree
// has them, nanoseconds and birth times included, sockets stored.
// CompatDebian: bsize 8192 and fsize 1024, minfree 5, the UFS2 superblock
// at byte 8192, no nanoseconds or birth times, di_gen 0 in used inodes,
// sockets left out. In CompatDebian mode the image equals Debian's
// makefs's byte for byte, for a tree whose readdir order is bytewise,
// except in the fields makefs takes from random() or heap pointers
// (fs_id[1], fs_csp, fs_maxcluster, di_gen): compat_test.go checks that.
// Debian's makefs -T has a rule for times of its own: it clamps UFS1
// inode times to the -T time, which is Options.Timestamp with ClampTimes,
// and leaves UFS2 inode times as the files have them, which no Options
// say: Timestamp sets or clamps every time of the tree, as FreeBSD's
// makefs -T does and fixturegen makefs -T does with either compat.
//
// Both keep makefs's quirks that show in the bytes: the last sector of the
// image holds the first 512 bytes of a superblock under construction (only
// fs_old_flags set), as makefs writes it to check that the size is
// reachable; UFS2 inode blocks are initialised two per group and then one
// at a time as inodes are written.
//
// # Determinism
//
// Options.Timestamp, when set, is every time of the tree, or with
// Options.ClampTimes their upper bound (the rule of SOURCE_DATE_EPOCH):
// the writers pass both to the Source as fstree.Options. fs_time, fs_id[0]
// and cg_time are Options.Timestamp whenever it is set, clamping or not,
// else the latest modification time in the tree. fs_id[1] is the low 31
// bits of SplitMix64 of that time xor 0x4646535f49445f31; di_gen of inode
// i is SplitMix64(seed xor i) mod (2^31-1) plus 1, where seed is the
// SplitMix64 value behind fs_id[1]. Nothing else depends on the clock,
// the host or the order of a directory walk.
//
// Device numbers are stored in FreeBSD's encoding (makedev), which equals
// the Linux one for major and minor numbers below 256.
//
// A size that cannot hold the tree (Options.Size, or Options.MaxSize) is
// an error wrapping ErrNoSpace or ErrTooLarge that names the smallest size
// that does, found by laying the tree out at candidate sizes: "the tree
// needs an image of at least 163840 bytes (Options.Size = 65536 given)".
//
// # Speed
//
// Inodes are written one inode block at a time, and every inode block is
// written once. File contents are queued while the tree is laid out, one
// bcache.FileCopy per run of contiguous blocks (SrcOff its offset in the
// file, Pad the slack of its last fragment), and copied in batches of 4096
// with bcache's CopyFiles: up to 4 workers, the data range preallocated,
// small files that follow each other written together. The map search
// skips free-map bytes that cannot match, finding the byte ffs_mapsearch
// finds. These choices were measured; the numbers are in BENCHMARKS.md at
// the repository root.
//
// # Sparse images (-Z)
//
// FreeBSD makefs -Z makes the image file sparse instead of writing zeros
// into every unused block. The image files of WriteFile are always
// sparse: the file is created with ftruncate and only blocks that hold
// data or metadata are written (see imgkit/bcache), so Options.Sparse (-Z)
// is accepted and changes nothing; the bytes are the same with and without
// it. Write writes every byte of the image to its io.WriterAt, zeros
// included.
//
// # Checking with sleuthkit
//
// sleuthkit (fsstat, fls, istat, icat) finds these images without -f ufs,
// with two exceptions that are limits of sleuthkit 4.11.1 (tsk/fs/ffs.c),
// not of the images. Its ffs_open looks for a UFS2 superblock at 65536,
// then at 262144, and only then for a UFS1 one at 8192; it gives up when
// the read at 262144 comes back short, so a UFS1 image smaller than
// 263680 bytes (262144 plus its three-sector superblock read) is "Cannot
// determine file system type" even with -f ufs, although the same bytes
// followed by zeros open (TestSleuthkitSmallUFS1). A given minfree can
// seem to cure it only by moving the automatic size across that line. And
// it never looks for a UFS2 superblock at 8192, where CompatDebian (like
// Debian's makefs) puts it, so it cannot read those images at all. It also
// reads the 64-bit fs_time of a big-endian UFS2 image as its high half and
// shows "Last Written: empty".
//
// # Reading
//
// Open reads any UFS1 or UFS2 image, in either byte order, with its
// superblock at 65536, 8192, 0 or 262144, from an io.ReaderAt, and
// OpenReader from a file, as archive/zip's OpenReader does (the
// ReadCloser's Close closes the file), as an fs.FS that also implements
// fs.ReadDirFS, fs.ReadFileFS, fs.StatFS and fs.ReadLinkFS; Inode and
// BlockList give the inode number, block addresses and flags of a path.
// Sizes read from the image are checked before they are trusted; a
// corrupt image gives an error wrapping ErrFormat.
package ffs
