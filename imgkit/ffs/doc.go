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
// optimization, label and softupdates, under their names or the one-letter
// keys of FreeBSD's option table (ParseOption applies them, OptionHelp
// describes them; numbers are read as makefs reads them, by
// fsopt.ParseNumber), and the global -s, -M, -m, -b, -f, -R, -O, -S, -Z,
// -B and -T (Options).
//
// # FreeBSD and Debian
//
// FreeBSD's current makefs and the makefs Debian packages (a 2019 port of
// NetBSD's) differ; Options.Compat selects which is followed.
//
// CompatFreeBSD, the default, follows FreeBSD's makefs (its code as of
// May 2025): bsize 32768 and fsize 4096 unless given, minfree 8, the UFS2
// superblock at byte 65536, times written as the tree has them,
// nanoseconds and birth times included. The size without Options.Size is
// FreeBSD's estimate (the boot area with the superblock, its copy and the
// cylinder group block each rounded to whole blocks; indirect blocks
// counted). When a size or free blocks are asked for (Options.Size,
// Options.MinSize, Options.FreeBlocks or FreeBlocksPct: -s, -M, -b) the
// density is lowered to 2 fragments an inode whatever Options.Density
// says, as FreeBSD's mkfs lowers it ("density reduced from N to M"), which
// sets fs_ipg and every offset after it. fs_providersize is fs_size;
// fs_maxcontig is the value before an extent raises it; soft updates are
// marked in UFS2 only; fs_id[1] and di_gen are FreeBSD's random(3) after
// srandom(the time stamp). For a tree whose readdir order is bytewise the
// image equals FreeBSD's makefs's byte for byte, but for the differences
// listed below: freebsd_test.go compares the two over a matrix of options
// and trees.
//
// CompatDebian: bsize 8192 and fsize 1024, minfree 5, the UFS2 superblock
// at byte 8192, no nanoseconds or birth times, di_gen 0 in used inodes,
// NetBSD's size estimate and density rules. In CompatDebian mode the image
// equals Debian's makefs's byte for byte, for a tree whose readdir order
// is bytewise, except in the fields makefs takes from random() or heap
// pointers (fs_id[1], fs_csp, fs_maxcluster, di_gen): compat_test.go
// checks that. Debian's makefs -T has a rule for times of its own: it
// clamps UFS1 inode times to the -T time, which is Options.Timestamp with
// ClampTimes, and leaves UFS2 inode times as the files have them, which no
// Options say: Timestamp sets or clamps every time of the tree, as
// FreeBSD's makefs -T does and fixturegen makefs -T does with either
// compat.
//
// Both keep makefs's quirks that show in the bytes: the last sector of the
// image holds the start of a superblock under construction (fs_old_flags
// set; with CompatFreeBSD also the label, fs_maxsymlinklen and
// fs_old_inodefmt, little-endian, where a sector larger than 512 bytes
// reaches them), as makefs writes it to check that the size is reachable;
// UFS2 inode blocks are initialised two per group and then one at a time
// as inodes are written. With CompatFreeBSD, fs_providersize is
// little-endian even in a big-endian image, as FreeBSD's ffs_sb_swap
// leaves it out. Sockets are left out of the image, with a warning, as
// both makefs leave them out of a directory walk.
//
// # Differences from FreeBSD's makefs
//
// With CompatFreeBSD the writer departs from FreeBSD's makefs only here,
// each on purpose:
//
//   - Without Options.Timestamp (makefs -T), FreeBSD's makefs takes
//     fs_time, fs_id[0], cg_time and the seed of random() from the clock;
//     the writer takes the latest modification time in the tree, so that
//     the image does not depend on when it is made.
//   - fs_ocsp..fs_active, the in-core pointers of struct fs, are zero;
//     FreeBSD's makefs leaves the address of its fs_si there.
//   - In a big-endian UFS2 image cg_clustersum is big-endian, as the rest
//     of the cylinder group is, and the writer warns that it departs from
//     FreeBSD here. FreeBSD's ffs_cg_swap returns before it swaps the
//     cluster summary of a UFS2 group, so its image holds the host's byte
//     order there, and its ffs_clusteracct then adds to those counts as if
//     they were swapped: the counts are invalid.
//   - An extent (Options.Extent) above FS_MAXCONTIG (16) blocks is
//     lowered to 16 blocks, with a warning. FreeBSD's mkfs means to lower
//     it too, but compares the fs_maxbsize it has not set yet instead of
//     the extent, and writes any extent as fs_maxbsize, past the limit
//     that FreeBSD's own superblock check (validate_sblock) enforces.
//   - Where FreeBSD's size estimate is too small for the tree (minfree=0,
//     large blocks), FreeBSD's makefs fails with "No space left on
//     device"; without Options.Size the writer grows the image until the
//     tree fits.
//   - A geometry whose first cylinder group cannot hold its own metadata
//     and the summary area (a small maxbpcg) is an error; FreeBSD's makefs
//     writes groups without data blocks and marks fragments past them
//     free.
//   - What the format cannot hold is an error naming the path, where
//     FreeBSD's makefs writes it truncated and the image is corrupt: a
//     name over 255 bytes (d_namlen is one byte) or with a NUL or '/'
//     (ErrName), more than UFS_LINK_MAX (65500) links, UFS1 times outside
//     32-bit seconds, a device number past UFS1's 32-bit di_rdev, a UFS1
//     file system past 2^31-1 fragments (its block addresses). A label
//     over 31 bytes is an error; FreeBSD's makefs cuts it.
//   - The writer accepts more than FreeBSD's makefs: maxbpf (NetBSD's
//     name for maxbpg) and compat; fifos and devices from any source
//     (FreeBSD's mtree reader knows only files, directories and links).
//   - The Linux port of FreeBSD's makefs that the comparison runs draws
//     fs_id[1] and di_gen from glibc's random(), not FreeBSD's, so the
//     comparison masks them; TestRandomFields checks the writer's against
//     FreeBSD's random(3). Without -T the port also writes no nanoseconds
//     (its struct stat has no st_mtimensec), where FreeBSD's makefs writes
//     them as the writer does; the comparison always gives -T.
//   - makefs's informational lines ("Calculated size", the superblock
//     backups) are not printed; its warnings are, to Options.Warn.
//
// # Determinism
//
// Options.Timestamp, when set, is every time of the tree, or with
// Options.ClampTimes their upper bound (the rule of SOURCE_DATE_EPOCH):
// the writers pass both to the Source as fstree.Options. fs_time, fs_id[0]
// and cg_time are Options.Timestamp whenever it is set, clamping or not,
// else the latest modification time in the tree. With CompatFreeBSD,
// fs_id[1] and every di_gen are FreeBSD's random(3) after srandom(that
// time), drawn in the order of FreeBSD's mkfs and ffs.c. With
// CompatDebian, fs_id[1] is the low 31 bits of SplitMix64 of that time xor
// 0x4646535f49445f31, and di_gen of spare inode i is SplitMix64(seed xor
// i) mod (2^31-1) plus 1, where seed is the SplitMix64 value behind
// fs_id[1]. Nothing else depends on the clock, the host or the order of a
// directory walk.
//
// Device numbers are stored in FreeBSD's encoding (makedev), which equals
// the Linux one for major and minor numbers below 256.
//
// A size that cannot hold the tree (Options.Size, or Options.MaxSize) is
// an error wrapping ErrNoSpace or ErrTooLarge that names the smallest size
// that does, found by laying the tree out at candidate sizes: "the tree
// needs an image of at least 163840 bytes (Options.Size = 65536 given)".
//
// Sizes too large for the format or the machine fail with ErrParams before
// the image is created, in bounded time: a count of cylinder groups whose
// summary outgrows a group, a size the block rounding would overflow, and
// an image whose bookkeeping (see Memory) needs more memory than the Go
// memory limit (GOMEMLIMIT) or, on Linux, the machine's RAM. A tree
// deeper than fstree.MaxPath allows fails with fstree.ErrPathTooLong.
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
// finds. Where ffs_balloc would take a file's next blocks one by one
// without a search (each the block after the last, free, in the same
// group, indirect block and fs_maxbpg section), they are taken as one run,
// with the same maps and counts. These choices were measured; the numbers
// are in BENCHMARKS.md at the repository root.
//
// # Memory
//
// Besides the image (mapped by WriteFile, see imgkit/bcache) and what
// grows with the tree (its nodes, and one queued copy per run of blocks,
// 4096 at most), WriteFile holds a bounded amount of memory whatever the
// image's size: at most 4 MiB of cylinder groups unpacked (the others
// packed with compress/flate, a few hundred bytes for a group that a file
// filled, or not kept at all while unchanged since mkfs made them), at
// most 1 MiB of the di_gen values mkfs draws for every group (past that,
// the generator's state about every 2^21 values drawn, from which a
// group's values are drawn again), one indirect block per level of the
// file being laid out (each is written as soon as the file's blocks pass
// it), and 12 bytes per cylinder group (its free block and fragment
// counts, and where its packed bytes are) besides its packed bytes. The
// block cache adds its bitmap, at most 16 MiB, and 1 MiB copy buffers.
// Tests bound what the Go runtime takes from the system for a 4 TiB UFS2
// image holding a 256 GiB file at 64 MiB, and the writer's heap at under
// 20 bytes per cylinder group from 8 to 64 TiB. Build and Write hold the
// whole image in memory as well; the limit check above estimates the
// bookkeeping with every group packed.
//
// A file with holes is copied without reading its holes (bcache.CopyFrom,
// SEEK_DATA on Linux): its blocks are allocated as FreeBSD's makefs
// allocates them, but the image file keeps holes there. A file an mtree
// spec creates without contents is not read or written at all
// (bcache.Image.ZeroRange).
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
// NewReader reads any UFS1 or UFS2 image, in either byte order, with its
// superblock at 65536, 8192, 0 or 262144, from an io.ReaderAt, and
// OpenReader from a file, as archive/zip's OpenReader does (the
// ReadCloser's Close closes the file), as an fs.FS that also implements
// fs.ReadDirFS, fs.ReadFileFS, fs.StatFS and fs.ReadLinkFS; Inode and
// BlockList give the inode number, block addresses and flags of a path.
// Sizes read from the image are checked before they are trusted; a
// corrupt image gives an error wrapping ErrFormat.
package ffs
