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
// # File contents: the bulk path
//
// CopyFrom copies file contents into the image. When the source is an
// *os.File on a regular file, the default (BulkMapSource) maps the source
// read-only and writes it into the image with pwrite in 1 MiB pieces: one
// copy, no read(2). The alternatives are reading straight into the mapped
// bytes (BulkRead), copy_file_range(2) (BulkCopyFileRange, Linux) and a heap
// buffer with read and pwrite (BulkPwrite). In mmap mode the pwrite reaches
// the mapping through the page cache, which these systems keep coherent.
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
// Copying a 64 MiB source file (in the page cache) into an image, best of 10
// interleaved runs:
//
//	go test -run '^$' -bench '^BenchmarkBulk64M$' -benchtime 10x ./imgkit/bcache/
//
//	(a) read(2) straight into the mapped bytes      1900-2500 MB/s
//	(b) copy_file_range(2) into the image file      2400-3300 MB/s
//	(c) read(2) into a heap buffer, pwrite(2)       2500-3300 MB/s
//	(d) (c), prefaulting the buffer before pwrite   2600-3300 MB/s
//	(e) pwrite(2) from a mapping of the source      3700-4600 MB/s
//	(f) (e), prefaulting the mapping before pwrite  3400-4600 MB/s
//
// (e) is the default. Reading into the mapping is slowest because every
// destination page takes a fault inside read(2); copy_file_range on ext4
// (no reflink) is an in-kernel read and write. Prefaulting, which won 60x for
// FreeBSD ar(1) on UFS (shared/reference/ar-prefault-before-write.txt), does
// not pay on Linux: (d) and (f) are within the noise of (c) and (e), so the
// cache does not prefault. What does matter on Linux is the size of each
// pwrite from a source mapping not yet faulted in: one 16 MiB pwrite ran at
// about 2300 MB/s, 1 MiB pieces at about 4000.
//
// Writing a 256 MiB image in mmap mode leaves RssAnon at about 1 MiB (the
// image lives in the page cache, RssFile).
package bcache
