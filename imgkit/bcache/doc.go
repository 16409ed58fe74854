// Package bcache is the block cache through which fixturegen writes every
// image: getblk, bread, bwrite and brelse at byte offsets over an image file
// or owned memory, after the mmap'd buffer cache FreeBSD makefs(8) gained in
// review D39026 (summarised in BENCHMARKS.md at the repository root).
//
// It is a supported package, for writers of image formats that fixturegen
// does not have: a format lays its structures out with Getblk, Bread and
// Bwrite, copies file contents with CopyFiles, and gets an atomically
// replaced file (Create), an in-memory image (CreateMemory) or bytes
// written to any io.WriterAt (CreateWriterAt) from the same code. The
// image writers of imgkit (msdos, ffs, cd9660) are built that way; users
// of those formats never need bcache, since their entry points choose the
// target.
//
// # The image file and the atomic commit
//
// Create makes the image as a temporary file beside its final path (named
// .fixturegen-tmp-NAME-123456 as package internal/tempfile says for every
// fixturegen command, so the rename stays within one file system) and
// sizes it with ftruncate: everything never written stays a hole. Commit
// flushes it, optionally fsyncs it (Options.Sync), sets its permission with
// fchmod (exactly Options.Perm, whatever the umask) and renames it over the
// final path. Until then the final path is untouched: a failed build, an
// Abort, or a process killed in the middle leaves the old file (or no file)
// there, with at most a stale temporary file beside it. `defer im.Abort()`
// after Create is the idiom; Abort after Commit does nothing.
//
// # Which outputs are replaced and which are written in place
//
// What the output path is decides how the image gets there, never its
// name (ResolveTarget, which ar's Commit and every format writer reach
// through Create):
//
//   - a new name, or a regular file, anywhere (under /dev/shm, an ordinary
//     tmpfs, too) is replaced through the temporary file beside it, so it
//     ends holding exactly the image, never a byte of the file it
//     replaced;
//   - a symbolic link is followed, link by link (a relative target read
//     from the folder that holds the link), and the file it leads to is
//     replaced, or created when the link leads to nothing: the links stay
//     and point at the new image. FreeBSD makefs opens the path with
//     O_TRUNC, which follows the link in the same way but rewrites the
//     file in place; the rename keeps the old file whole until the image
//     is complete, and other hard links to the file keep its old bytes;
//   - a character or block device or a named pipe (/dev/null, a FIFO,
//     /dev/stdout on a pipe or a terminal) is never renamed over, truncated
//     or given a file beside it: the image is built in a temporary file
//     under os.TempDir and Commit opens the output for writing and copies
//     the image to it from its first byte (a block device larger than the
//     image keeps what lies after it, as with makefs). Opening a named pipe
//     waits for a reader, as makefs does;
//   - /dev/stdout redirected to a regular file (`> out.img`) is that file,
//     replaced like any other; the shell's descriptor keeps the old file.
//     Only a file that the links reach under no name (a deleted file held
//     open, a /proc/self/fd link) is truncated and written in place;
//   - a folder is an error wrapping ErrNotFile, a socket one wrapping
//     ErrNotWritable, each naming the path.
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
// (mmap or copy, and clone or noclone: see below), then to the platform.
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
// # Images in memory
//
// CreateMemory builds the image in owned memory instead of a file: one byte
// slice of the image's size, all zero at first. It has every method of an
// image file and gives the same bytes for the same calls, under the same
// discipline; the property test drives it beside the two file modes and the
// model. Getblk and Bread hand out slices of the image's bytes, zero-copy as
// in mmap mode (Mode reports ModeMemory; Brelse keeps a buffer's changes, as
// in mmap mode), and Getblk zeroes the parts of a fresh block that were
// handed out or written before, tracked by the same bitmap. WriteAt copies
// into the bytes; CopyFrom and CopyFiles read each source straight into
// them, with no copy buffer, pwrite, preallocation or source mapping
// (CopyFiles still reads with up to four goroutines when no buffer is held
// and every source is a path, and still zeroes the Pad between the files it
// groups). Commit finishes the image and Bytes then
// returns it; Abort drops it. There is no mapping, so no FaultError either.
//
// CreateWriterAt builds the image in memory in the same way for an
// io.WriterAt. Nothing is written to the writer before Commit, and nothing
// ever if the image is aborted. Commit writes every byte of the image to it
// at offsets 0 to the image's size, in pieces of 1 MiB, the regions never
// written included (as zeros), so that no byte the writer held before
// survives inside the image; an error from the writer fails Commit naming
// the offset of the first byte not written.
//
// The fields of Options (Mode, Sync, Perm, Bulk, NoClone) and FIXTUREGEN_CACHE are
// about image files; the memory targets ignore them. A negative size is an
// error wrapping ErrRange, and a size no byte slice can have on the platform
// (over what an int holds, or over what the Go runtime allocates at once)
// one wrapping ErrTooLarge, not a panic. A memory target allocates no copy
// buffers: besides the image it keeps the bitmap (at most one bit per 512
// bytes of the image) and the bookkeeping of the held buffers.
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
// WriteAt is one pwrite(2) in both modes, never a store into the mapping:
// on Linux the first store to a page of a new sparse image faults in and
// zeroes up to read_ahead_kb of page cache around it, which metadata spread
// between the file contents (FAT directories, FFS inode blocks) would pay
// on nearly every write. Getblk still hands out the mapped bytes, with the
// kernel's read-around left on: for blocks filled one after another it is
// what makes the faults cheap. Both choices were measured (BENCHMARKS.md at
// the repository root).
//
// # File contents: the bulk path
//
// CopyFrom copies file contents into the image. On Linux the default
// (BulkAuto) reads the source into a 1 MiB heap buffer and writes it with
// pwrite(2) (BulkPwrite); the alternatives are reading straight into the
// mapped bytes (BulkRead), copy_file_range(2) (BulkCopyFileRange, Linux) and
// pwrite from a read-only mapping of the source (BulkMapSource, the default
// on the other systems, where it has not been measured against the others).
// In mmap mode the pwrite reaches the mapping through the page cache, which
// these systems keep coherent.
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
// that a sparse image stays sparse), where the system has it (Linux); the
// bytes it will clone (below) do not count, since a clone frees the blocks
// it replaces.
//
// # Cloning file data
//
// On a file system whose files can share extents (XFS with reflink,
// btrfs; bcachefs and OCFS2 too, not measured), CopyFiles and CopyFrom
// clone a source's data into the image instead of copying it, on Linux:
// FICLONERANGE makes the image's blocks point at the source's blocks, so
// no byte is read or written and the image takes no disk space for them
// until one of the two files is written there. Only whole file-system
// blocks can be cloned, at the same offset within a block in the source
// and in the image: a piece whose image and source offsets differ modulo
// the block size (a FAT image with clusters under 4 KiB, an image behind
// an unaligned offset such as -O 512) is copied; otherwise the unaligned
// head and tail of the piece are copied and the blocks between them
// cloned. Pieces with fewer bytes of whole blocks than the file system's
// threshold are copied as before, since one clone (a transaction of the
// file system, 22-28 µs here) costs more than copying a small file whose
// data is in the page cache: 256 KiB on XFS, 32 KiB on btrfs, measured by
// BenchmarkCloneThreshold. A piece to clone is copied on its own, not in
// a run with the files beside it.
//
// The bytes are those of the copy in every case. A refusal (EOPNOTSUPP,
// EXDEV for a source on another mount, EINVAL, ETXTBSY, ENOSPC, any error)
// makes that piece go through the copy path, which reports the errors
// that matter; a refusal that says the file system cannot clone at all
// turns cloning off for the image. In mmap mode the file system writes
// back and drops the mapping's pages over the range before it clones, so
// bytes stored through the mapping before are replaced as a copy would
// replace them, the mapping shows the cloned bytes afterwards, and a store
// into a cloned block through the mapping later copies the block on write
// (the source never changes); in copy mode held buffers over the range
// are re-read, as after copy_file_range. On other file systems (ext4,
// tmpfs) nothing is tried: one statfs at Create decides.
//
// Options.NoClone turns cloning off, and so does the word noclone in
// FIXTUREGEN_CACHE, alone or beside a mode: FIXTUREGEN_CACHE=mmap,noclone.
//
// # Holes in sources
//
// CopyFrom of an *os.File, and CopyFiles of a host file, of at least 1
// MiB looks for holes in the source with lseek(2) SEEK_DATA and SEEK_HOLE
// (on Linux; elsewhere sources are read whole). Only the data runs are
// read and copied; a hole of the source is not read, and the range of
// the image under it is not written where it is fresh, so it stays a hole
// of the image file. Where it is not fresh it is made zero: in mmap mode
// and in memory the bitmap of chunks handed out or written decides
// (Getblk's rule: only those chunks are cleared), in copy mode the image
// file's own holes do (zeros are written over its data runs in the range;
// held buffers see them). The bytes are those of a copy that reads every
// byte, in every mode, which a test checks. In a batch, such sources are
// copied one by one after the batch's other files (which the workers
// copy), and the batch is not preallocated, since preallocation would
// allocate the holes. A source of which stat(2)
// reports as many blocks as bytes is taken to have no holes without
// looking.
//
// ZeroRange makes a range of the image zero under the same rule, writing
// nothing where it is fresh: the format writers use it for files that an
// mtree spec makes without contents, which are then holes of the image.
//
// # Measurements
//
// The defaults above (WriteAt as pwrite, BulkPwrite on Linux, up to four
// CopyFiles workers, preallocation, the read-around kept for Getblk, the
// clone thresholds) were
// each chosen by measurement. The commands, the numbers and the
// alternatives not kept are in BENCHMARKS.md at the repository root.
package bcache
