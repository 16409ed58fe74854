package fstree

import (
	"bytes"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// readXattrs returns the extended attributes of the host file p, not
// following a symbolic link, in llistxattr's order (none where the file
// system has no attributes).
func readXattrs(p string) ([]Xattr, error) {
	list, err := xattrCall(func(b []byte) (int, error) { return unix.Llistxattr(p, b) })
	if err != nil {
		if errors.Is(err, unix.ENOTSUP) {
			return nil, nil
		}
		return nil, &os.PathError{Op: "llistxattr", Path: p, Err: err}
	}
	var xs []Xattr
	for _, name := range bytes.Split(list, []byte{0}) {
		if len(name) == 0 {
			continue
		}
		v, err := xattrCall(func(b []byte) (int, error) { return unix.Lgetxattr(p, string(name), b) })
		if err != nil {
			return nil, &os.PathError{Op: "lgetxattr " + string(name), Path: p, Err: err}
		}
		xs = append(xs, Xattr{Name: string(name), Value: v})
	}
	return xs, nil
}

// xattrCall runs a list or get call first for the size, then with a
// buffer of it, again when the attributes grew in between (ERANGE).
func xattrCall(call func([]byte) (int, error)) ([]byte, error) {
	for range 8 {
		n, err := call(nil)
		if err != nil || n == 0 {
			return nil, err
		}
		b := make([]byte, n)
		n, err = call(b)
		if errors.Is(err, unix.ERANGE) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return b[:n], nil
	}
	return nil, unix.ERANGE
}
