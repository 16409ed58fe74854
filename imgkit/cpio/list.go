package cpio

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A record is one entry as it will be written: its header and where its
// data comes from (a symbolic link's target in data, a regular file's
// bytes from open).
type record struct {
	h    Header
	data []byte
	open func() (io.ReadCloser, error)
}

// checksum returns the sum of the record's data bytes, GNU cpio's c_check
// of a crc archive.
func (r *record) checksum() (uint32, error) {
	if r.data != nil {
		return sumBytes(0, r.data), nil
	}
	rc, err := r.open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	var sum uint32
	buf := make([]byte, 64<<10)
	left := r.h.Size
	for left > 0 {
		n, err := rc.Read(buf[:min(int64(len(buf)), left)])
		sum = sumBytes(sum, buf[:n])
		left -= int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if left > 0 {
		return 0, fmt.Errorf("%w: %s", ErrShortWrite, r.h.Name)
	}
	return sum, nil
}

// sumBytes adds the bytes of b to sum.
func sumBytes(sum uint32, b []byte) uint32 {
	for _, c := range b {
		sum += uint32(c)
	}
	return sum
}

// linkKey identifies the entries of one hard-link set: c_ino and the
// device numbers, as GNU cpio compares them.
type linkKey struct {
	ino      uint64
	maj, min uint32
}

func keyOf(h *Header) linkKey { return linkKey{h.Ino, h.DevMajor, h.DevMinor} }

// A lister turns the entries of a name list into records in the order GNU
// cpio -o writes them: it numbers inodes (from 0, in list order, the
// links of a set sharing the number of their first), and in newc and crc
// holds back each regular file with other links until the last of its set
// (by c_nlink) comes; then the held ones are written without data, most
// recent first, and the last with the data. final writes the sets that
// never complete, most recent first, the data with the earliest of each.
type lister struct {
	opts     *Options
	emit     func(*record) error
	next     uint64
	inodes   map[any]uint64
	deferred []*record
}

func newLister(opts *Options, emit func(*record) error) *lister {
	return &lister{opts: opts, emit: emit, inodes: map[any]uint64{}}
}

// number returns the c_ino of an entry: a new number, or, for a file
// with other links (nlink > 1), the number its set got first, key telling
// the set.
func (l *lister) number(key any, nlink uint32) uint64 {
	if nlink > 1 {
		if n, ok := l.inodes[key]; ok {
			return n
		}
		l.inodes[key] = l.next
	}
	l.next++
	return l.next - 1
}

// add passes r on to emit, or holds it back as a hard link.
func (l *lister) add(r *record) error {
	if l.opts.Format == FormatODC || r.h.Mode&ModeType != ModeRegular || r.h.Nlink <= 1 {
		return l.emit(r)
	}
	k := keyOf(&r.h)
	held := 0
	for _, d := range l.deferred {
		if keyOf(&d.h) == k {
			held++
		}
	}
	if uint32(held)+1 != r.h.Nlink {
		l.deferred = append(l.deferred, r)
		return nil
	}
	kept := l.deferred[:0]
	var out []*record
	for i := len(l.deferred) - 1; i >= 0; i-- {
		if d := l.deferred[i]; keyOf(&d.h) == k {
			out = append(out, d)
		}
	}
	for _, d := range l.deferred {
		if keyOf(&d.h) != k {
			kept = append(kept, d)
		}
	}
	l.deferred = kept
	for _, d := range out {
		if err := l.emit(withoutData(d)); err != nil {
			return err
		}
	}
	return l.emit(r)
}

// withoutData returns r as GNU cpio writes the links of a set before the
// one that carries the data: c_filesize 0.
func withoutData(r *record) *record {
	c := *r
	c.h.Size, c.h.Check, c.data, c.open = 0, 0, nil, nil
	return &c
}

// final writes the records still held back.
func (l *lister) final() error {
	for len(l.deferred) > 0 {
		d := l.deferred[len(l.deferred)-1]
		l.deferred = l.deferred[:len(l.deferred)-1]
		others := 0
		for _, o := range l.deferred {
			if keyOf(&o.h) == keyOf(&d.h) {
				others++
			}
		}
		if others > 0 {
			d = withoutData(d)
		}
		if err := l.emit(d); err != nil {
			return err
		}
	}
	return nil
}

// stat builds the record of the file name as cpio -o does for a name of
// its list.
func (l *lister) stat(name string) (*record, error) {
	o := l.opts
	p := name
	if o.Dir != "" && !filepath.IsAbs(p) {
		p = filepath.Join(o.Dir, p)
	}
	var fi fs.FileInfo
	var err error
	if o.Dereference {
		fi, err = os.Stat(p)
	} else {
		fi, err = os.Lstat(p)
	}
	if err != nil {
		return nil, err
	}
	st, ok := hostStat(fi)
	if !ok {
		return nil, fmt.Errorf("cpio: %s: no stat information on this system", name)
	}
	r := &record{}
	h := &r.h
	h.Name = stripDotSlash(name)
	h.Mode = st.mode
	h.Nlink = st.nlink
	h.UID, h.GID = o.owner(st.uid, st.gid)
	h.RdevMajor, h.RdevMinor = devMajor(st.rdev), devMinor(st.rdev)
	h.Mtime = o.mtime(fi.ModTime())
	h.Size = fi.Size()
	if o.HostDevices {
		h.DevMajor, h.DevMinor = devMajor(st.dev), devMinor(st.dev)
	}
	if o.HostInodes {
		h.Ino = st.ino
	} else {
		h.Ino = l.number([2]uint64{st.dev, st.ino}, h.Nlink)
	}
	switch h.Mode & ModeType {
	case ModeRegular:
		r.open = func() (io.ReadCloser, error) { return os.Open(p) }
	case ModeSymlink:
		t, err := os.Readlink(p)
		if err != nil {
			return nil, err
		}
		r.data = []byte(linkTarget(t))
		h.Size = int64(len(r.data))
	default:
		h.Size = 0
	}
	return r, nil
}

// stripDotSlash removes leading "./" elements (and the slashes after
// each) from a name, as GNU cpio stores names, unless the name is "./".
func stripDotSlash(s string) string {
	if s == "./" {
		return s
	}
	for strings.HasPrefix(s, "./") {
		s = strings.TrimLeft(s[2:], "/")
	}
	return s
}

// linkTarget is a symbolic link's target as GNU cpio stores it: "." for
// an empty one, without leading "./" elements.
func linkTarget(t string) string {
	if t == "" {
		return "."
	}
	return stripDotSlash(t)
}

// devMajor and devMinor split a Linux (glibc) device number.
func devMajor(d uint64) uint32 { return uint32((d>>8)&0xfff) | uint32((d>>32)&^0xfff) }
func devMinor(d uint64) uint32 { return uint32(d&0xff) | uint32((d>>12)&^0xff) }

// hostStatT is what GNU cpio takes from struct stat beyond fs.FileInfo.
type hostStatT struct {
	mode, nlink, uid, gid uint32
	rdev, dev, ino        uint64
}
