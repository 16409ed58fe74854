// Package bcache is the block cache through which fixturegen writes every
// image: getblk, bread, bwrite and brelse at byte offsets over an image file,
// after the mmap'd buffer cache FreeBSD makefs(8) gained in review D39026
// (shared/reference/makefs-mmap-buffer-cache.txt).
//
// # The image file and the atomic commit
//
// Create makes the image as a temporary file beside its final path (named
// like .name.tmp-123456, so the rename stays within one file system) and
// sizes it with ftruncate: everything never written stays a hole. Commit
// flushes it, optionally fsyncs it (Options.Sync), sets its permission with
// fchmod (exactly Options.Perm, whatever the umask) and renames it over the
// final path. Until then the final path is untouched: a failed build, an
// Abort, or a process killed in the middle leaves the old file (or no file)
// there, with at most a stale temporary file beside it. `defer im.Abort()`
// after Create is the idiom; Abort after Commit does nothing.
//
// An output that is not a regular file (a device such as /dev/stdout, a
// fifo) is never renamed over: the image is built in a temporary file under
// os.TempDir and Commit streams it to the output.
//
// # Two modes, one behaviour
//
// In ModeMmap (the default on Linux, macOS, FreeBSD, NetBSD and DragonFly for
// a regular output) the file is mapped MAP_SHARED and Getblk and Bread hand
// out the mapped bytes themselves: no copy, no system call per block. The
// mapping must be shared: a MAP_PRIVATE mapping is copy-on-write and its
// writes vanish with the process, the mistake the makefs review caught. In
// ModeCopy (Windows, OpenBSD, non-regular outputs, or FIXTUREGEN_CACHE=copy)
// every buffer is owned memory: Bread preads it, Bwrite pwrites it. Options.Mode
// chooses; ModeAuto defers to the environment variable FIXTUREGEN_CACHE
// (mmap or copy), then to the platform.
//
// Both modes give the same bytes for the same calls, which a model-based
// property test checks, under this discipline: a buffer from Getblk, and any
// buffer whose bytes were changed or grown, is released with Bwrite (Brelse
// drops changes only in copy mode; in mmap mode they are already in the
// image); held buffers do not overlap (Getblk and Bread of a range that
// overlaps a held buffer at another offset fail with ErrOverlap). WriteAt and
// CopyFrom show through held buffers in both modes.
//
// Getblk returns a fresh block, zeroed and never read; Bread the existing
// bytes. A buffer still held at that offset is returned as it is, neither
// wiped nor re-read. In mmap mode the zeroing skips 512-byte chunks never
// handed out or written before (a bitmap records them, one bit per chunk,
// 64 KiB for a 256 MiB image), because they still read as zero and are holes:
// a 1 GiB image with a few blocks written stays a few KiB on disk. Buf.Grow
// extends a held buffer in place, as FFS extends a file's last fragments.
//
// # Faults
//
// A write to the mapping can raise SIGBUS: when the file is truncated under
// it, or the file system has no block for a page being dirtied (disk full).
// Go crashes on that unless debug.SetPanicOnFault is set for the goroutine.
// The Image methods that touch the mapping (Getblk, Grow, WriteAt, CopyFrom)
// set it themselves and return a *FaultError naming the image and the offset;
// code that writes to Buf.Data should run inside Image.Guard, which does the
// same for a whole function.
//
// # Writes that bypass the mapping
//
// WriteAt is one pwrite(2) in both modes, never a store into the mapping.
// The first store to a page of a MAP_SHARED mapping faults, and on Linux
// that fault reads around the page: for the holes of a new sparse image the
// kernel allocates and zeroes up to read_ahead_kb of page cache per fault
// (8 MiB on the benchmark machine), for pages that the file contents will
// overwrite anyway. Metadata spread over the image between the file
// contents, as FAT directories and FFS inode blocks are, paid that on
// nearly every write. Getblk still hands out the mapped bytes: for blocks
// filled one after another the read-around is what makes the faults cheap
// (madvise(MADV_RANDOM), which turns it off, doubled the time to fill a
// 256 MiB image block by block), so the cache leaves it on.
//
// # File contents: the bulk path
//
// CopyFrom copies file contents into the image. On Linux the default
// (BulkAuto) reads the source into a 1 MiB heap buffer and writes it with
// pwrite(2) (BulkPwrite); the alternatives are reading straight into the
// mapped bytes (BulkRead), copy_file_range(2) (BulkCopyFileRange, Linux) and
// pwrite from a read-only mapping of the source (BulkMapSource, still the
// default on the other systems, where it has not been measured against the
// others). In mmap mode the pwrite reaches the mapping through the page
// cache, which these systems keep coherent.
//
// CopyFiles copies a batch of host files, one CopyFrom each in effect, with
// up to four goroutines when nothing can observe the order (no buffer held,
// every source a path, the pwrite path). Each file's bytes go to their own
// range, so the image is the same whatever the scheduling; of several
// failures the one with the lowest index is reported. A FileCopy may take
// its bytes from an offset of its source (SrcOff: the FFS writer copies a
// file run of blocks by run of blocks) and may declare the slack after it
// as its own (Pad: the rest of its last cluster or fragment, zero in the
// image): files that follow each other through their slack are read into
// one buffer, up to 1 MiB, and written with one pwrite. Before copying,
// CopyFiles preallocates with fallocate(2) the span from the batch's first
// byte to its last when the files fill at least three quarters of it (so
// that a sparse image stays sparse): on ext4 a buffered write into
// preallocated blocks is cheaper than into a hole.
//
// # Measured numbers
//
// Linux 6.18 on a 2-core Xeon VM shared with other work, ext4, Go 1.26.
//
// Writing a 256 MiB image block by block (Getblk, fill, Bwrite, then
// Commit), as the speed-up over a baseline doing one pread and one pwrite per
// 512-byte sector (3.5-4.2 s of CPU), best of 3 interleaved runs, CPU time (wall
// time agrees within 5%):
//
//	go test -run '^$' -bench Write256MRatio -benchtime 3x ./imgkit/bcache/
//
//	block    copy    mmap    raw mapping, no cache (floor)
//	512      6-7x    26-30x  36-39x
//	4 KiB    11-14x  30-36x
//	32 KiB   20-23x  33-39x
//
// The mmap mode meets the goal of 20x at 512-byte sectors; what it costs over
// the raw mapping is 60-110 ns per Getblk+Bwrite pair
// (BenchmarkCallOverhead); the rest is the kernel's page faults on a sparse
// file, one per 4 KiB page.
//
// Writing 200 blocks of 8 KiB at scattered offsets of a new 256 MiB image,
// as FAT directories and FFS inode blocks lie between file contents, best
// of 5:
//
//	go test -run '^$' -bench ScatteredMetadata -benchtime 5x ./imgkit/bcache/
//
//	WriteAt (pwrite), mmap mode                 1.0 ms
//	WriteAt (pwrite), copy mode                 1.1 ms
//	Getblk, fill, Bwrite (stores, mmap mode)   62 ms
//
// The last row is what WriteAt cost in mmap mode when it stored into the
// mapping: the read-around of each fault. A one-off experiment (not kept)
// with madvise(MADV_RANDOM) on the mapping brought that row to 0.6 ms, but
// doubled the time to fill a whole 256 MiB image in 4 KiB Getblk blocks
// (89 ms to 187-191 ms), so the cache keeps the read-around for Getblk and
// keeps WriteAt off the mapping.
//
// Copying the 5,000 files of the medium fsbench tree (217 MiB; 4,900 files
// under 8 KiB) into one image, Create to Commit, best of 8, load 0.7-2:
//
//	go test -run '^$' -bench 'CopyMedium' -benchtime 8x ./imgkit/bcache/
//
//	CopyFiles, 4 workers, preallocated, Pad (what the writers do)  60-65 ms
//	CopyFiles, 4 workers, preallocated (the default)                74-85 ms
//	CopyFiles, 4 workers, not preallocated                          88-110 ms
//	CopyFiles, 1 worker (= CopyFrom, read+pwrite)                    98-122 ms
//	CopyFiles, 2 workers                                              73-96 ms
//	CopyFrom per file, read+pwrite (os.Open)                        111-119 ms
//	CopyFrom per file, copy_file_range                              106-131 ms
//	CopyFrom per file, pwrite from a source mapping                 152-158 ms
//	CopyFrom per file, read into the mapping                        126-140 ms
//
// Not kept (BenchmarkCopyMediumExperiments): reading the sources straight
// into the mapped bytes with two goroutines, which takes no inode lock
// (page faults do not), 79-113 ms, with one 110-129 ms; the same after
// madvise(MADV_POPULATE_WRITE) of the data range, 88-126 ms; after
// fallocate(2), 69-105 ms, no better than the pwrite path preallocated and
// without Pad's grouping of small files. madvise(MADV_RANDOM) on the
// mapping made it twice as slow (222 ms).
//
// The whole builds of the medium tree (fstree.WalkDir, then msdos.Write or
// ffs.Write with -o compat=debian, mmap mode, best of 7, a fresh output
// and sync(2) before each run, load about 2), before and after the work
// above (ffs copying through CopyFiles, preallocation, Pad, the walk with
// up to 4 goroutines; images identical): msdos 138-155 ms to 100-101 ms
// (walk 13-17 to 11 ms, layout and metadata about 10 ms, copy 87-100 to
// about 80 ms); ffs UFS1 191-220 ms to 146-153 ms, UFS2 184-205 ms to
// 141-158 ms. In the ffs builds, the block allocator's map search takes
// about 18 ms of CPU (pprof), the largest cost besides the copy.
//
// Copying a 64 MiB source file (in the page cache) into an image, best of 10
// interleaved runs:
//
//	go test -run '^$' -bench '^BenchmarkBulk64M$' -benchtime 10x ./imgkit/bcache/
//
//	(a) read(2) straight into the mapped bytes      1400-2500 MB/s
//	(b) copy_file_range(2) into the image file      2400-3300 MB/s
//	(c) read(2) into a heap buffer, pwrite(2)       2500-3300 MB/s
//	(d) (c), prefaulting the buffer before pwrite   2600-3300 MB/s
//	(e) pwrite(2) from a mapping of the source      3700-4600 MB/s
//	(f) (e), prefaulting the mapping before pwrite  3400-4600 MB/s
//
// (e) wins for one large source written just before, and was the default
// until whole builds were measured: mapping each source costs an mmap, a
// munmap and the source's page faults per file, which loses to (c) by a
// third on the medium tree above, and on the big fsbench tree (20 files of
// 20 MiB, msdos build) too: 170-173 ms against 135-145 ms. So (c) is the
// default. Reading into the mapping is slow because every destination page
// takes a fault inside read(2); copy_file_range on ext4 (no reflink) is an
// in-kernel read and write. Prefaulting, which won 60x for FreeBSD ar(1) on
// UFS (shared/reference/ar-prefault-before-write.txt), does not pay on
// Linux: (d) and (f) are within the noise of (c) and (e), so the cache does
// not prefault (the prefault pass and variants (d) and (f) were removed after
// these runs; commit 5eef747 still has them). The size of each pwrite from a source mapping not yet
// faulted in matters: one 16 MiB pwrite ran at about 2300 MB/s, 1 MiB pieces
// at about 4000.
//
// Writing a 256 MiB image in mmap mode leaves RssAnon at about 1 MiB (the
// image lives in the page cache, RssFile). `fixturegen makefs -t msdos` of
// the medium tree peaks at 13 MiB RssAnon (sampled from /proc/PID/status)
// and 16 MiB maximum RSS (/usr/bin/time -v), four 1 MiB copy buffers
// included.
package bcache
