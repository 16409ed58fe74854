package bcache

import (
	"io"
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// copyFileRangeSupported reports whether copyFileRange can work here.
const copyFileRangeSupported = true

// defaultBulkMmap and defaultBulkCopy are the CopyFrom paths BulkAuto stands
// for in each mode: mapping each source costs an mmap, a munmap and the
// source page faults per file, which loses to read and pwrite for small
// and large files alike (BENCHMARKS.md).
const (
	defaultBulkMmap = BulkPwrite
	defaultBulkCopy = BulkPwrite
)

// copyFileRange copies n bytes from src's current offset (which it advances)
// into dst at off with copy_file_range(2), calling add with each piece
// the kernel has copied (at most copyChunk), from more than one goroutine
// at once. It returns how many bytes it
// copied; fewer than n with a nil error means src ended. A copy of at
// least parallelCopyMin bytes is split in two halves copied at once,
// where there are two CPUs: the kernel's copy of one half from the
// source's page cache overlaps the other's write into the image, which
// took a 1 GiB copy into an ext4 image from 419 to 373 ms (BENCHMARKS.md,
// 2026-12-03).
func copyFileRange(dst *os.File, off int64, src *os.File, n int64, add func(int64)) (int64, error) {
	drc, err := dst.SyscallConn()
	if err != nil {
		return 0, err
	}
	srcRC, err := src.SyscallConn()
	if err != nil {
		return 0, err
	}
	var done int64
	var cerr error
	err = drc.Control(func(dfd uintptr) {
		err := srcRC.Control(func(sfd uintptr) {
			done, cerr = copyFDRange(int(dfd), off, int(sfd), n, add)
		})
		if cerr == nil {
			cerr = err
		}
	})
	if err == nil {
		err = cerr
	}
	return done, err
}

// parallelCopyMin is the least copyFileRange splits in two.
const parallelCopyMin = 64 << 20

// copyAlign is the boundary of the image that copyFDPiece copies up to
// before the rest: copy_file_range goes through a pipe of 64 KiB, and
// each of its writes gets page-cache folios no larger than the write's
// offset is aligned to, so a copy to an offset of odd pages (a qcow2's
// data, at 0x75000 behind its tables) took a page at a time: 423 ms for
// a GiB, against 291 ms from a 1 MiB boundary (BENCHMARKS.md,
// 2026-12-03).
const copyAlign = 64 << 10

// copyChunk is the most copyFDPiece asks of one copy_file_range call, so
// that Options.Progress moves while the kernel copies a large file rather
// than once at its end (a partition of 2 GiB showed no progress for its
// whole copy); copyAlign divides it, so that every call after the first
// starts aligned. Calls of 32 MiB rather than of 1 GiB cost no measurable
// time (BENCHMARKS.md, progress).
const copyChunk = 32 << 20

// copyFDRange is copyFileRange on file descriptors.
func copyFDRange(dfd int, off int64, sfd int, n int64, add func(int64)) (int64, error) {
	if n < parallelCopyMin || runtime.GOMAXPROCS(0) < 2 {
		return copyFDPiece(dfd, off, sfd, nil, n, add)
	}
	start, err := unix.Seek(sfd, 0, io.SeekCurrent)
	if err != nil {
		return copyFDPiece(dfd, off, sfd, nil, n, add)
	}
	half := n / 2 &^ (1<<16 - 1)
	var second int64
	var secondErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		so := start + half
		second, secondErr = copyFDPiece(dfd, off+half, sfd, &so, n-half, add)
	}()
	so := start
	first, err := copyFDPiece(dfd, off, sfd, &so, half, add)
	wg.Wait()
	done := first
	if err == nil && first == half {
		done, err = half+second, secondErr
	}
	if _, serr := unix.Seek(sfd, start+done, io.SeekStart); err == nil {
		err = serr
	}
	return done, err
}

// copyFDPiece copies n bytes of sfd, from *srcOff (advanced) or, when
// srcOff is nil, from its current offset, to dfd at off, in calls of at
// most copyChunk, and calls add with what each call copied. It stops
// early, without an error, where the source ends.
func copyFDPiece(dfd int, off int64, sfd int, srcOff *int64, n int64, add func(int64)) (int64, error) {
	var done int64
	woff := off
	for done < n {
		chunk := min(n-done, copyChunk)
		if head := (copyAlign - woff%copyAlign) % copyAlign; head > 0 {
			// Up to the next copyAlign boundary of the image first, so
			// that the kernel's writes after it, a pipe's worth each,
			// start at aligned offsets.
			chunk = min(chunk, head)
		}
		m, err := unix.CopyFileRange(sfd, srcOff, dfd, &woff, int(chunk), 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return done, err
		}
		if m == 0 {
			break
		}
		add(int64(m))
		done += int64(m)
	}
	return done, nil
}

// preallocate allocates the blocks of n bytes at off of the image file with
// fallocate(2) before CopyFiles writes them. On ext4 a buffered write into
// blocks allocated this way (unwritten extents) is cheaper than one into a
// hole, presumably because of delayed allocation done page by page
// (BENCHMARKS.md). The bytes read back are the same either way, so a failure
// (a file system without fallocate, a full disk that the writes will report
// anyway) is ignored.
func preallocate(f *os.File, off, n int64) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		for unix.Fallocate(int(fd), 0, off, n) == unix.EINTR {
		}
	})
}

// pwritev writes bufs one after the other at off of f with pwritev(2),
// again from where a short write stopped, and returns how many bytes it
// wrote. The iovecs go IOV_MAX (1,024) at a time.
func pwritev(f *os.File, bufs [][]byte, off int64) (int64, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var done int64
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for len(bufs) > 0 {
			batch := bufs[:min(len(bufs), iovMax)]
			k, err := unix.Pwritev(int(fd), batch, off+done)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				werr = err
				return true
			}
			if k == 0 {
				werr = io.ErrShortWrite
				return true
			}
			done += int64(k)
			bufs = advanceBufs(bufs, k)
		}
		return true
	})
	if werr != nil {
		return done, werr
	}
	return done, err
}

// iovMax is the most iovecs one pwritev takes (IOV_MAX).
const iovMax = 1024
