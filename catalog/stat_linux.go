package catalog

import (
	"io/fs"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// readDirInfo returns the lstat information of every entry of the
// directory p, sorted by name. On Linux it reads the directory with raw
// getdents64 calls into one buffer and stats each entry relative to the
// open directory (fstatat), so that the kernel resolves one name per entry
// rather than the whole path: the up-to-date check of a no-op build is
// mostly these calls. It also returns the number of system calls it
// made (open, getdents64, fstatat, close). It keeps clear of os.File, whose Fd method would
// cost two fcntl calls and whose open an epoll_ctl, per directory.
func readDirInfo(p string) (infos []fs.FileInfo, calls int, err error) {
	calls = 2 // open and close
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, 1, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	defer unix.Close(fd)
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var names []string
	for {
		n, err := unix.Getdents(fd, buf)
		calls++
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, calls, &fs.PathError{Op: "readdirent", Path: p, Err: err}
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
	slices.Sort(names)
	sts := make([]statInfo, len(names))
	infos = make([]fs.FileInfo, len(names))
	calls += len(names)
	for i, n := range names {
		s := &sts[i]
		s.name = n
		err := unix.Fstatat(fd, n, &s.st, unix.AT_SYMLINK_NOFOLLOW)
		for err == unix.EINTR {
			err = unix.Fstatat(fd, n, &s.st, unix.AT_SYMLINK_NOFOLLOW)
		}
		if err != nil {
			return nil, calls, &fs.PathError{Op: "lstat", Path: p + "/" + n, Err: err}
		}
		infos[i] = s
	}
	return infos, calls, nil
}

// direntBufs holds the buffers readDirInfo reads directories into, so
// that a no-op build of many input folders does not allocate (and clear)
// one each.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

// statInfo is an fs.FileInfo over a unix.Stat_t.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.st.Mode&unix.S_IFMT == unix.S_IFDIR }
func (s *statInfo) Sys() any           { return &s.st }
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	if s.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// hostInfo returns the owner, link count and identity of the file fi
// describes, when the system says them.
func hostInfo(fi fs.FileInfo) (h hostStat, ok bool) {
	switch st := fi.Sys().(type) {
	case *unix.Stat_t:
		return hostStat{uid: st.Uid, gid: st.Gid, nlink: uint64(st.Nlink), dev: uint64(st.Dev), ino: st.Ino, rdev: uint64(st.Rdev), ctime: st.Ctim.Nano()}, true
	case *syscall.Stat_t:
		return hostStat{uid: st.Uid, gid: st.Gid, nlink: uint64(st.Nlink), dev: uint64(st.Dev), ino: st.Ino, rdev: uint64(st.Rdev), ctime: st.Ctim.Nano()}, true
	}
	return hostStat{}, false
}
