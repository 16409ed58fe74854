package bcache

import (
	"os"

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
// into dst at off with copy_file_range(2). It returns how many bytes it
// copied; fewer than n with a nil error means src ended.
func copyFileRange(dst *os.File, off int64, src *os.File, n int64) (int64, error) {
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
			woff := off
			for done < n {
				m, err := unix.CopyFileRange(int(sfd), nil, int(dfd), &woff, int(min(n-done, 1<<30)), 0)
				if err == unix.EINTR {
					continue
				}
				if err != nil {
					cerr = err
					return
				}
				if m == 0 {
					return
				}
				done += int64(m)
			}
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
