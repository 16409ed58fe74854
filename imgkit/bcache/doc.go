// Package bcache is the block cache through which fixturegen writes every
// image and archive: getblk, bread, bwrite and brelse at byte offsets over
// an image file or memory, after the mmap'd buffer cache FreeBSD makefs(8)
// gained in review D39026.
//
// The writers of imgkit (msdos, ffs, cd9660 and ar's archives) are built on
// it; users of those formats never need it, since their entry points choose
// the target. It is a supported package for writers of formats fixturegen
// does not have: a format lays its structures out with Getblk, Bread and
// Bwrite, copies file contents with CopyFiles or CopyFrom, and gets an
// atomically replaced file (Create), an in-memory image (CreateMemory) or
// bytes written to any io.WriterAt (CreateWriterAt) from the same code.
//
//	im, err := bcache.Create(path, size, &bcache.Options{Perm: 0o644})
//	if err != nil {
//		return err
//	}
//	defer im.Abort() // does nothing after Commit
//	b, err := im.Getblk(0, 512) // zeroed
//	if err != nil {
//		return err
//	}
//	if err := im.Guard(func() error { copy(b.Data(), bootSector); return nil }); err != nil {
//		return err
//	}
//	if err := im.Bwrite(b); err != nil {
//		return err
//	}
//	return im.Commit()
//
// # What to know
//
//   - Create writes a temporary file beside the output and Commit renames
//     it into place, so the output appears only when complete; a failed or
//     aborted build leaves the old file. Devices and pipes get the image
//     copied to them at Commit instead; a folder or socket is an error.
//   - A buffer from Getblk, or one whose bytes changed, is released with
//     Bwrite, and held buffers may not overlap (ErrOverlap): under that
//     discipline every mode (mmap, copy, memory) gives the same bytes.
//   - Code that stores into the bytes of Buf.Data in a mapped image runs
//     inside Image.Guard, so that a fault of the mapping (disk full, a
//     truncated file) is a *FaultError rather than a crash.
//   - Unwritten ranges stay holes of the image file; file contents are
//     cloned from their sources where the file system shares extents
//     (XFS, btrfs), and holes of the sources stay holes.
//   - Options.Mode, Options.NoClone and the FIXTUREGEN_CACHE variable
//     (mmap, copy, noclone) choose how image files are written; the bytes
//     are the same whichever is chosen.
//
// # More
//
// DETAILS.md in this package's folder is the reference: the atomic commit,
// which outputs are replaced and which written in place, the modes and
// their discipline, memory images, faults, and the paths for file contents.
// BENCHMARKS.md at the repository root has the measurements behind every
// default.
package bcache
