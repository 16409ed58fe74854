//go:build linux || darwin || freebsd || netbsd || dragonfly

package bcache

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// mmapSupported reports whether this system has the mmap mode.
const mmapSupported = true

// mmapFile maps the first size bytes of f read-write and MAP_SHARED: with
// MAP_PRIVATE the writes would be copy-on-write and lost when the process
// ends.
func mmapFile(f *os.File, size int64) ([]byte, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var data []byte
	var merr error
	err = rc.Control(func(fd uintptr) {
		data, merr = unix.Mmap(int(fd), 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	})
	if err != nil {
		return nil, err
	}
	return data, merr
}

// munmap removes a mapping made by mmapFile.
func munmap(data []byte) error { return unix.Munmap(data) }

// msync schedules (or, with wait, completes) the write-back of the mapping.
func msync(data []byte, wait bool) error {
	flags := unix.MS_ASYNC
	if wait {
		flags = unix.MS_SYNC
	}
	return unix.Msync(data, flags)
}

// pwriteChunks writes p to the image at off+*done in bulkSize pieces,
// advancing *done. On Linux one pwrite of a whole 16 MiB window from a
// source mapping not yet faulted in runs at about half the speed of 1 MiB
// pieces (BenchmarkBulk64M).
func (im *Image) pwriteChunks(p []byte, off int64, done *int64) error {
	for len(p) > 0 {
		chunk := p[:min(len(p), bulkSize)]
		w, err := im.f.WriteAt(chunk, off+*done)
		*done += int64(w)
		im.wrote(int64(w))
		if err != nil {
			return err
		}
		p = p[len(chunk):]
	}
	return nil
}

// copyMappedSource writes n bytes of src, from its current offset, into the
// image at off with pwrite from a read-only mapping of src, then advances
// src's offset. It returns 0 and no error, having done nothing, when src is
// not a regular file or holds fewer than n bytes from its offset, so that the
// caller falls back to reading it. A source truncated under the mapping makes
// pwrite fail with EFAULT: an error, not a fault.
func (im *Image) copyMappedSource(off int64, src *os.File, n int64) (int64, error) {
	fi, err := src.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0, nil
	}
	pos, err := src.Seek(0, io.SeekCurrent)
	if err != nil || fi.Size()-pos < n {
		return 0, nil
	}
	rc, err := src.SyscallConn()
	if err != nil {
		return 0, nil
	}
	page := int64(os.Getpagesize())
	var done int64
	var werr error
	cerr := rc.Control(func(fd uintptr) {
		for done < n {
			start := (pos + done) &^ (page - 1)
			skip := pos + done - start
			length := min(mapWindow, skip+n-done)
			m, err := unix.Mmap(int(fd), start, int(length), unix.PROT_READ, unix.MAP_SHARED)
			if err != nil {
				werr = err
				return
			}
			werr = im.pwriteChunks(m[skip:length], off, &done)
			unix.Munmap(m)
			if werr != nil {
				return
			}
		}
	})
	if werr == nil {
		werr = cerr
	}
	if done == 0 && werr != nil {
		return 0, nil // mmap refused: let the caller read instead
	}
	if _, err := src.Seek(pos+done, io.SeekStart); err != nil && werr == nil {
		werr = err
	}
	return done, werr
}
