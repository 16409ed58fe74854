package bcache

import (
	"io"
	"os"

	"github.com/fixturegen/fixturegen/imgkit/internal/hostfile"
	"golang.org/x/sys/unix"
)

// cloneFSTypes maps the statfs(2) magic numbers of the file systems whose
// files share extents through FICLONERANGE (XFS with reflink, btrfs,
// bcachefs, OCFS2) to the least number of bytes worth cloning there
// (cloneMin). On any other file system the image never tries to clone, so
// that the copy path keeps its files grouped into runs and makes no failed
// system call per file. Below a threshold one clone costs more than a copy
// of the same bytes from the page cache; BenchmarkCloneThreshold measured
// each (BENCHMARKS.md), and bcachefs and OCFS2, not measured, get XFS's.
var cloneFSTypes = map[int64]int64{
	unix.XFS_SUPER_MAGIC:   256 << 10,
	unix.BTRFS_SUPER_MAGIC: 32 << 10,
	0xca451a4e:             256 << 10, // bcachefs
	0x7461636f:             256 << 10, // OCFS2
}

// initClone decides whether the image may clone file data and with which
// alignment: the block size of the image's file system, if that file
// system is one of cloneFSTypes and cloning is not turned off.
func (im *Image) initClone() {
	if im.opts.NoClone || envNoClone() {
		return
	}
	rc, err := im.f.SyscallConn()
	if err != nil {
		return
	}
	var st unix.Statfs_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fstatfs(int(fd), &st) }); err != nil || serr != nil {
		return
	}
	if least, ok := cloneFSTypes[int64(st.Type)]; ok && st.Bsize > 0 && st.Bsize&(st.Bsize-1) == 0 {
		im.clone.bsize, im.clone.least = int64(st.Bsize), least
		if cloneMin >= 0 {
			im.clone.least = cloneMin
		}
	}
}

// cloneFile clones into the image the whole aligned blocks of the copy fc
// from its source src (an open source of copyPath) and copies the head
// and tail around them through buf, as readPwrite would. It reports
// whether it did the copy; when it did not (nothing worth cloning, or the
// clone refused), nothing was written and src has not moved.
func (im *Image) cloneFile(buf []byte, fc *FileCopy, src io.ReadCloser) (bool, error) {
	rf, ok := src.(hostfile.File)
	if !ok {
		return false, nil
	}
	head, mid := im.clonePiece(fc.Off, fc.SrcOff, fc.N)
	if mid == 0 || !im.cloneRange(rf.Fd(), fc.SrcOff+head, fc.Off+head, mid) {
		return false, nil
	}
	return true, im.copyAround(buf, fc.Off, src, fc.SrcOff, fc.N, head, mid)
}

// cloneFrom is cloneFile for CopyFrom: n bytes of src from its current
// offset to off, the head and tail copied through the heap buffer, and
// src left at the end of the n bytes.
func (im *Image) cloneFrom(off int64, src *os.File, n int64) (bool, error) {
	if im.clone.bsize == 0 {
		return false, nil
	}
	pos, err := src.Seek(0, io.SeekCurrent)
	if err != nil {
		return false, nil
	}
	head, mid := im.clonePiece(off, pos, n)
	if mid == 0 {
		return false, nil
	}
	// Through SyscallConn, not Fd, which would leave src in blocking mode.
	rc, err := src.SyscallConn()
	if err != nil {
		return false, nil
	}
	cloned := false
	if rc.Control(func(fd uintptr) { cloned = im.cloneRange(int(fd), pos+head, off+head, mid) }) != nil || !cloned {
		return false, nil
	}
	buf := getBulk()
	defer putBulk(buf)
	if err := im.copyAround(buf[:], off, src, pos, n, head, mid); err != nil {
		return true, err
	}
	if _, err := src.Seek(pos+n, io.SeekStart); err != nil {
		return true, err
	}
	if im.data == nil {
		return true, im.refreshHeld(off, n)
	}
	return true, nil
}

// copyAround copies the n bytes of src from srcOff to the image at off but
// for the mid bytes from head on, which are already cloned.
func (im *Image) copyAround(buf []byte, off int64, src io.Reader, srcOff, n, head, mid int64) error {
	sk := src.(io.Seeker)
	if head > 0 {
		if _, err := sk.Seek(srcOff, io.SeekStart); err != nil {
			return err
		}
		if err := im.readPwrite(buf, off, src, head); err != nil {
			return err
		}
	}
	tail := n - head - mid
	if tail == 0 {
		return nil
	}
	if _, err := sk.Seek(srcOff+head+mid, io.SeekStart); err != nil {
		return err
	}
	return im.readPwrite(buf, off+head+mid, src, tail)
}

// cloneRange shares n bytes of the source file sfd from srcOff with the
// image from off (FICLONERANGE), a piece of at most copyChunk at a time
// that Options.Progress counts as it is shared, and reports whether it
// shared them all. A refusal
// that says the file system cannot clone at all (EOPNOTSUPP, ENOTTY,
// ENOSYS) turns cloning off for the image; any other (EXDEV for a source
// on another mount, EINVAL, ETXTBSY, ENOSPC...) only for this piece, which
// is then copied: if the copy fails as well, the copy reports it. A clone
// that failed half-way is overwritten by that copy (and counted again).
func (im *Image) cloneRange(sfd int, srcOff, off, n int64) bool {
	if im.clone.off.Load() {
		return false
	}
	rc, err := im.f.SyscallConn()
	if err != nil {
		return false
	}
	for done := int64(0); done < n; {
		piece := min(n-done, copyChunk)
		arg := unix.FileCloneRange{Src_fd: int64(sfd), Src_offset: uint64(srcOff + done), Src_length: uint64(piece), Dest_offset: uint64(off + done)}
		var cerr error
		if err := rc.Control(func(fd uintptr) {
			for cerr = unix.IoctlFileCloneRange(int(fd), &arg); cerr == unix.EINTR; {
				cerr = unix.IoctlFileCloneRange(int(fd), &arg)
			}
		}); err != nil {
			return false
		}
		switch cerr {
		case nil:
		case unix.EOPNOTSUPP, unix.ENOTTY, unix.ENOSYS:
			im.clone.off.Store(true)
			return false
		default:
			return false
		}
		im.clone.cloned.Add(piece)
		im.wrote(piece)
		done += piece
	}
	return true
}
