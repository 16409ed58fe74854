package cpio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"
)

// ErrOutside is wrapped by the error of Extract for an entry whose name
// leaves the folder ("..") or whose path runs through a symbolic link
// that leads out of it.
var ErrOutside = errors.New("cpio: name leaves the folder")

// Extract writes the archive's entries under the folder dir, in archive
// order, as cpio -i does: folders, regular files (a hard link with its
// set's data) and symbolic links, with their permission bits and
// modification times. Every file is made through an os.Root of dir, so no
// entry can write outside it, not through ".." nor through a symbolic
// link an earlier entry made (ErrOutside). FIFOs, and devices when the
// process may make them (root), are made on Linux, as cpio -i makes them;
// otherwise they and sockets are skipped. done, when not nil, is called
// after each entry with its name and whether it was skipped. An existing file or link
// of an entry's name is replaced.
func (rd *Reader) Extract(dir string, done func(name string, skipped bool)) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for i, en := range rd.entries {
		if en.Header.Name == trailerName {
			continue
		}
		skipped, err := rd.extractEntry(root, i)
		if err != nil {
			return err
		}
		if done != nil {
			done(en.Header.Name, skipped)
		}
	}
	return nil
}

// extractEntry makes entry i under root, or reports that it skipped it.
func (rd *Reader) extractEntry(root *os.Root, i int) (skipped bool, err error) {
	en := rd.entries[i]
	rel := path.Clean("/" + en.Header.Name)[1:]
	if rel == "" {
		return false, nil // the folder itself
	}
	for _, el := range strings.Split(en.Header.Name, "/") {
		if el == ".." {
			return false, fmt.Errorf("%w: %s", ErrOutside, en.Header.Name)
		}
	}
	perm := fs.FileMode(en.Mode & 0o777)
	if d := path.Dir(rel); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return false, outside(en.Header.Name, err)
		}
	}
	switch en.Mode & ModeType {
	case ModeDir:
		err = root.MkdirAll(rel, perm|0o700)
	case ModeRegular:
		root.Remove(rel)
		var f *os.File
		if f, err = root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm); err == nil {
			_, err = io.Copy(f, rd.Section(i))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
	case ModeSymlink:
		root.Remove(rel)
		err = root.Symlink(en.Link, rel)
	default:
		made, merr := mknod(root, rel, en)
		if !made {
			return true, nil
		}
		err = merr
	}
	if err != nil {
		return false, outside(en.Header.Name, err)
	}
	if en.Mode&ModeType != ModeSymlink {
		t := time.Unix(en.Mtime, 0)
		root.Chtimes(rel, t, t)
	}
	return false, nil
}

// outside returns err, naming the entry, as an ErrOutside when os.Root
// refused a path that escapes the folder.
func outside(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes from parent") {
		return fmt.Errorf("%w: %s: %v", ErrOutside, name, pe.Err)
	}
	return err
}
