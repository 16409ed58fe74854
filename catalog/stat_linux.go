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
// directory p, sorted by name, in d's buffers: valid until d is released.
// On Linux it reads the directory with raw getdents64 calls and stats
// each entry relative to the open directory (fstatat), so that the
// kernel resolves one name per entry rather than the whole path: the
// up-to-date check of a no-op build is mostly these calls. It also returns
// the number of system calls it made (open, getdents64, fstatat, close).
// It keeps clear of os.File, whose Fd method would cost two fcntl calls
// and whose open an epoll_ctl, per directory.
func readDirInfo(p string, d *dirBuf) (infos []fs.FileInfo, calls int, err error) {
	calls = 2 // open and close
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, 1, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	defer unix.Close(fd)
	names := d.names[:0]
	for {
		n, err := unix.Getdents(fd, d.dirents)
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
		_, _, names = unix.ParseDirent(d.dirents[:n], -1, names)
	}
	d.names = names
	slices.Sort(names)
	d.sts = slices.Grow(d.sts[:0], len(names))[:len(names)]
	d.infos = slices.Grow(d.infos[:0], len(names))[:len(names)]
	calls += len(names)
	for i, n := range names {
		s := &d.sts[i]
		s.name = n
		err := unix.Fstatat(fd, n, &s.st, unix.AT_SYMLINK_NOFOLLOW)
		for err == unix.EINTR {
			err = unix.Fstatat(fd, n, &s.st, unix.AT_SYMLINK_NOFOLLOW)
		}
		if err != nil {
			return nil, calls, &fs.PathError{Op: "lstat", Path: p + "/" + n, Err: err}
		}
		d.infos[i] = s
	}
	return d.infos, calls, nil
}

// dirBuf holds the buffers of readDirInfo: one per folder being walked,
// reused from folder to folder (dirBufs), so that a no-op build of many
// input folders allocates (and the kernel faults in) little besides the
// names.
type dirBuf struct {
	dirents []byte
	names   []string
	sts     []statInfo
	infos   []fs.FileInfo
}

var dirBufs = sync.Pool{New: func() any { return &dirBuf{dirents: make([]byte, 16<<10)} }}

// getDirBuf returns a dirBuf for readDirInfo; release it when done with
// what readDirInfo returned.
func getDirBuf() *dirBuf { return dirBufs.Get().(*dirBuf) }

func (d *dirBuf) release() { dirBufs.Put(d) }

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
